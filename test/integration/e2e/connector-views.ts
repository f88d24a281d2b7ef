/** Reading connector state through the REST API, for the end-to-end tests. */
import { parseDatagenRecordIdentity } from '../../../shared/plugins/connectors/datagen/quickstarts.js';
import { connectorPath, type E2eRuntime, type Http, s3Lines } from './support.js';

// biome-ignore lint/suspicious/noExplicitAny: REST bodies are checked field by field
export type Body = any;

export const taskStates = (status: Body): string[] => status.tasks.map((t: Body) => t.state);

export const isRunning = (status: Body, tasks: number) =>
  status?.connector?.state === 'RUNNING' &&
  status.tasks.length === tasks &&
  taskStates(status).every((s) => s === 'RUNNING');

/** Records a datagen source committed: the sum of `seq` over its source partitions. */
export const committedSeq = (offsets: Body): number =>
  (offsets?.offsets ?? []).reduce((n: number, o: Body) => n + Number(o.offset?.seq ?? 0), 0);

/** The sum of a sink's `kafka_offset`s. */
export const sinkOffset = (offsets: Body): number =>
  (offsets?.offsets ?? []).reduce(
    (n: number, o: Body) => n + Number(o.offset?.kafka_offset ?? 0),
    0,
  );

/** Per (datagen partition, seq): how many times it is in the S3 objects of `topic`. */
export async function sunk(e2e: E2eRuntime, topic: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const line of await s3Lines(e2e.runtime, `topics/${topic}/`)) {
    const { partition, seq } = parseDatagenRecordIdentity(line);
    const key = `${partition}:${seq}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** `GET .../status` and `GET .../offsets` of a connector. */
export function readers(http: Http) {
  return {
    status: async (name: string) => (await http('GET', connectorPath(name, '/status'))).body,
    offsets: async (name: string) => (await http('GET', connectorPath(name, '/offsets'))).body,
  };
}
