import type { IHeaders, KafkaMessage } from 'kafkajs';
import type {
  EsmSourceRecord,
  KafkaEsmTimestampType,
} from '../../shared/adapters/lambda/esm-event.js';

const encoder = new TextEncoder();

/** kafkajs keeps the record batch's attributes on each message, outside its public types. */
interface WithBatchContext {
  readonly batchContext?: { readonly timestampType?: number };
}

function bytesOf(value: Buffer | string | null | undefined): Uint8Array | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? encoder.encode(value) : new Uint8Array(value);
}

/**
 * kafkajs headers as a list. kafkajs groups a repeated header name into an array, so the
 * values of one name keep their order but names that alternate (a, b, a) come out grouped
 * (a, a, b): the wire order across names is not recoverable from kafkajs.
 */
export function headersOf(headers: IHeaders | undefined): EsmSourceRecord['headers'] {
  const out: { key: string; value: Uint8Array | null }[] = [];
  for (const [key, value] of Object.entries(headers ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    for (const one of values) out.push({ key, value: bytesOf(one) });
  }
  return out;
}

function timestampTypeOf(message: KafkaMessage): KafkaEsmTimestampType {
  const type = (message as WithBatchContext).batchContext?.timestampType;
  if (type === 1) return 'LOG_APPEND_TIME';
  return 'CREATE_TIME';
}

/** A kafkajs message of `topic`/`partition` as `toEsmEvent`'s input record. */
export function toEsmSourceRecord(
  topic: string,
  partition: number,
  message: KafkaMessage,
): EsmSourceRecord {
  return {
    topic,
    partition,
    offset: Number(message.offset),
    timestamp: Number(message.timestamp),
    timestampType: timestampTypeOf(message),
    key: bytesOf(message.key),
    value: bytesOf(message.value),
    headers: headersOf(message.headers),
  };
}

/** `items` cut into consecutive slices of at most `size` (size >= 1), in order. */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const step = Math.max(1, Math.floor(size));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += step) out.push(items.slice(i, i + step));
  return out;
}
