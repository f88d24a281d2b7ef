/**
 * The keys of Confluent's S3 sink (`io.confluent.connect.s3.S3SinkConnector`, an alias of this
 * connector) that this S3 sink does not support, from Confluent's configuration reference. The
 * compatibility table in `README.md` beside this file lists them with the keys taken alike or
 * differently; keys that only tune Confluent's own clients and formats (`retry.backoff.ms`,
 * `s3.part.retries`, `schema.cache.size`, ...) are accepted and have no effect.
 */
import type { PeerConnector } from '../peer-keys.js';

const ROTATION =
  'objects rotate at flush.size offset boundaries and every batch is written when it completes, so no record waits for a time-based rotation';
const ENCRYPTION =
  "objects get the bucket's default encryption: set SSE-S3 or SSE-KMS on the bucket";
const PROXY = 'the function reaches S3 directly or through a VPC endpoint';

export const CONFLUENT_S3_SINK: PeerConnector = {
  name: "Confluent's S3 sink",
  unsupportedKeys: [
    { name: 'rotate.interval.ms', accepted: ['-1'], instead: ROTATION },
    { name: 'rotate.schedule.interval.ms', accepted: ['-1'], instead: ROTATION },
    {
      name: 'storage.class',
      accepted: ['io.confluent.connect.s3.storage.S3Storage'],
      instead: 'this connector writes to S3 only',
    },
    { name: 'store.url', instead: 'use s3.endpoint (path-style access follows it)' },
    { name: 's3.path.style.access.enabled', instead: 'use s3.path.style.access' },
    {
      name: 's3.credentials.provider.class',
      accepted: ['com.amazonaws.auth.DefaultAWSCredentialsProviderChain'],
      instead:
        "credentials come from the function's role (the default chain), or from aws.access.key.id and aws.secret.access.key",
    },
    { name: 's3.ssea.name', accepted: [''], instead: ENCRYPTION },
    { name: 's3.sse.customer.key', accepted: [''], instead: ENCRYPTION, secret: true },
    { name: 's3.sse.kms.key.id', accepted: [''], instead: ENCRYPTION },
    {
      name: 's3.acl.canned',
      accepted: [''],
      instead: "use the bucket's policy and object ownership settings",
    },
    {
      name: 's3.object.tagging',
      accepted: ['false'],
      instead:
        'objects carry user metadata instead of tags (first-offset, last-offset, record-count)',
    },
    { name: 's3.wan.mode', accepted: ['false'], instead: 'S3 Transfer Acceleration is not used' },
    {
      name: 's3.compression.level',
      accepted: ['-1'],
      instead: 'gzip objects are written at the default level',
    },
    { name: 's3.proxy.url', accepted: [''], instead: PROXY },
    { name: 's3.proxy.user', accepted: [''], instead: PROXY },
    { name: 's3.proxy.password', accepted: [''], instead: PROXY, secret: true },
    {
      name: 'store.kafka.keys',
      accepted: ['false'],
      instead: 'only record values are written',
    },
    {
      name: 'store.kafka.headers',
      accepted: ['false'],
      instead: 'only record values are written',
    },
    { name: 'keys.format.class', instead: 'record keys are not written' },
    { name: 'headers.format.class', instead: 'record headers are not written' },
    {
      name: 'directory.delim',
      accepted: ['/'],
      instead: 'directories in object keys are separated by /',
    },
    {
      name: 'file.delim',
      accepted: ['+'],
      instead: 'object names are <topic>+<partition>+<offset>',
    },
    {
      name: 'filename.offset.zero.pad.width',
      accepted: ['20'],
      instead: 'object names pad offsets to 20 digits, so keys sort by offset',
    },
    {
      name: 'schema.compatibility',
      accepted: ['NONE'],
      instead:
        'Avro and Parquet objects rotate whenever the value schema changes, as with NONE; records are never projected to another schema version (JSON and bytes objects carry no schema)',
    },
    {
      name: 's3.schema.partition.affix.type',
      accepted: ['NONE'],
      instead: 'object keys carry no schema name',
    },
  ],
};
