/** Record builders and helpers shared by the transformation tests. */
import { Headers } from '../../../../../shared/connect/headers.js';
import {
  type ConnectRecordInit,
  SinkRecord,
  SourceRecord,
} from '../../../../../shared/connect/records.js';
import type { Transformation } from '../../../../../shared/connect/transformation.js';

/** A sink record on `test` partition 0 offset 42 at timestamp 1_483_425_001_864 by default. */
export function sinkRecord(init: Partial<ConnectRecordInit> = {}): SinkRecord {
  return new SinkRecord({
    topic: 'test',
    kafkaPartition: 0,
    kafkaOffset: 42,
    timestamp: 1_483_425_001_864,
    ...init,
  } as ConnectRecordInit & { kafkaPartition: number; kafkaOffset: number });
}

/** A source record on `test` with no partition or offset tracking. */
export function sourceRecord(init: Partial<ConnectRecordInit> = {}): SourceRecord {
  return new SourceRecord({ sourcePartition: null, sourceOffset: null, topic: 'test', ...init });
}

/** `transformation` configured with `props`. */
export function configured<T extends Pick<Transformation<SinkRecord>, 'configure'>>(
  transformation: T,
  props: Record<string, string>,
): T {
  transformation.configure(props);
  return transformation;
}

/** Headers from `[key, value]` pairs (schemaless). */
export function headers(...pairs: [string, unknown][]): Headers {
  const out = new Headers();
  for (const [key, value] of pairs) out.add(key, value);
  return out;
}

/** What `fn` throws; fails the test when it returns normally. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw, but the call returned normally');
}
