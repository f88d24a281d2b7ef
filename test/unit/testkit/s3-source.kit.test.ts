import { describe, it } from 'vitest';
import { S3SourceConnector } from '../../../shared/plugins/connectors/s3-source/s3-source-connector.js';
import {
  type SourceConnectorSubject,
  sourceConnectorChecks,
} from '../../../shared/testkit/index.js';
import { FakeClock, FakeS3 } from '../shared/plugins/connectors/s3-source/fakes.js';

const lines = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix} line ${i + 1}`).join('\n');

/** A bucket with three directories (split over the tasks) and a root object. */
function world() {
  const s3 = new FakeS3('bucket', 2)
    .put('app/top.txt', lines('top', 4))
    .put('app/a/1.txt', lines('a1', 7))
    .put('app/a/2.txt', `${lines('a2', 3)}\n\n${lines('a2b', 2)}\n`)
    .put('app/b/1.txt', lines('b1', 5))
    .put('app/c/deep/1.txt', lines('c1', 6));
  return {
    s3,
    connector: () => new S3SourceConnector({ clock: new FakeClock(), createClient: () => s3 }),
  };
}

// Every check of the kit applies; the S3 source defines no transaction boundaries (its tasks
// would have nowhere natural to draw them), so the boundary check is not in its list.
const subject: SourceConnectorSubject<ReturnType<typeof world>> = {
  validConfig: {
    's3.bucket.name': 'bucket',
    's3.prefix': 'app/',
    topic: 'lines',
    'batch.max.rows': '3',
  },
  invalidConfigs: [
    { config: { topic: 'lines' }, field: 's3.bucket.name' },
    { config: { 's3.bucket.name': 'bucket', topic: 'lines', format: 'csv' }, field: 'format' },
    {
      config: { 's3.bucket.name': 'bucket', topic: 'lines', 'batch.max.rows': '0' },
      field: 'batch.max.rows',
    },
  ],
  setUp: world,
  identity: (record) => String(record.sourceOffset?.position),
  exactlyOnceSupport: 'SUPPORTED',
  transactionBoundaries: 'UNSUPPORTED',
  // The fake S3 client stands behind the port, whose adapter already maps SDK errors
  // (object-reader.ts), so the failure injected is a corrupt stored offset.
  injectFailure: () => ({
    cause: /Invalid S3 source offset.*"position":"x"/,
    storedOffsets: [
      {
        partition: { bucket: 'bucket', key: 'app/a/1.txt' },
        offset: { position: 'x', eof: false },
      },
    ],
  }),
};

describe('S3 source connector (connector test kit)', () => {
  for (const check of sourceConnectorChecks(subject)) it(check.name, () => check.run());
});
