import { parseArgs } from 'node:util';
import { ConfigError } from '../../shared/connect/errors.js';

/** `npm run demo -- --help`. */
export const DEMO_USAGE = `Usage: npm run demo [-- options]

Creates (or updates) a datagen source "orders" with exactly-once and an S3 sink "orders-s3" on
its topic, shows their progress live, and stops on Ctrl-C or after --duration.

Talks to the runtime of \`npm start\` at --url; when none answers there, starts one in this
process (state in --data-dir, like \`npm start\`) and stops it at the end.

Options:
  --url <url>          the REST API (default http://127.0.0.1:8083; env CONNECT_URL)
  --duration <s>       stop after this many seconds (default: run until Ctrl-C)
  --rate <n>           records per second the source generates (default 1000)
  --data-dir <dir>     where npm start keeps its state and runtime.json (default .data)
  -h, --help           this text
`;

export interface DemoOptions {
  readonly url: string;
  readonly durationMs: number | undefined;
  readonly rate: number;
  readonly dataDir: string;
}

export function parseDemoArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): DemoOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      url: { type: 'string' },
      duration: { type: 'string' },
      rate: { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) return 'help';
  const duration = values.duration === undefined ? undefined : Number(values.duration);
  if (duration !== undefined && (!Number.isFinite(duration) || duration <= 0)) {
    throw new ConfigError('--duration takes seconds (> 0)', '--duration');
  }
  const rate = Number(values.rate ?? 1000);
  if (!Number.isInteger(rate) || rate <= 0) {
    throw new ConfigError('--rate takes records per second (a whole number > 0)', '--rate');
  }
  return {
    url: (values.url ?? env.CONNECT_URL ?? 'http://127.0.0.1:8083').replace(/\/+$/, ''),
    durationMs: duration === undefined ? undefined : Math.round(duration * 1000),
    rate,
    dataDir: values['data-dir'] ?? '.data',
  };
}

/** Where the sink writes, and with which keys. */
export interface DemoS3 {
  readonly endpoint: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The folder s3rver keeps the bucket's objects in, when known. */
  readonly directory: string | undefined;
}

export const SOURCE = 'orders';
export const SINK = 'orders-s3';
export const TOPIC = 'orders';
export const TOPICS_DIR = 'topics';

/** The datagen `orders` source: two source partitions over two tasks, exactly once. */
export function sourceConfig(rate: number): Record<string, string> {
  return {
    'connector.class': 'datagen',
    'kafka.topic': TOPIC,
    quickstart: 'orders',
    'tasks.max': '2',
    'source.partitions': '2',
    'rate.per.second': String(rate),
    'records.per.poll': '500',
    'exactly.once.support': 'required',
    'topic.creation.default.partitions': '2',
    'topic.creation.default.replication.factor': '1',
  };
}

/** The S3 sink on the `orders` topic: JSON lines, 1000 records per object. */
export function sinkConfig(s3: DemoS3): Record<string, string> {
  return {
    'connector.class': 's3-sink',
    topics: TOPIC,
    's3.bucket.name': s3.bucket,
    's3.endpoint': s3.endpoint,
    'aws.access.key.id': s3.accessKeyId,
    'aws.secret.access.key': s3.secretAccessKey,
    'topics.dir': TOPICS_DIR,
    'format.class': 'json',
    'flush.size': '1000',
    'partition.discovery.interval.ms': '5000',
  };
}
