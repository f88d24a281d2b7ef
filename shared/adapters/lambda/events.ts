/**
 * The events Lambda hands serverless-connect's functions, decoded at the door: the source-task
 * invocation the enumerator sends, and what starts an enumerator run (the schedule, a nudge
 * from the REST API, the state table's stream, an S3 object-created notification).
 */
import { ConfigError } from '../../connect/errors.js';
import type { CreatedObject, EnumeratorRunScope } from '../../ports/dispatch.js';

/** The enumerator's asynchronous invocation of one source task. */
export interface SourceTaskEvent {
  readonly connector: string;
  readonly task: number;
  readonly generation: number;
  /** The idle streak the invocation continues (SourceTaskInvocation.idleStreak). @default 0 */
  readonly idleStreak?: number;
}

/** @throws ConfigError naming the expected shape. */
export function parseSourceTaskEvent(event: unknown): SourceTaskEvent {
  const e = (event ?? {}) as Record<string, unknown>;
  const ok =
    typeof e.connector === 'string' &&
    e.connector.length > 0 &&
    Number.isInteger(e.task) &&
    (e.task as number) >= 0 &&
    Number.isInteger(e.generation) &&
    (e.generation as number) >= 0 &&
    (e.idleStreak === undefined ||
      (Number.isInteger(e.idleStreak) && (e.idleStreak as number) >= 0));
  if (!ok) {
    throw new ConfigError(
      'A source-task event needs {"connector": <name>, "task": <int >= 0>, "generation": <int >= 0>} and optionally "idleStreak": <int >= 0>',
    );
  }
  return {
    connector: e.connector as string,
    task: e.task as number,
    generation: e.generation as number,
    ...(e.idleStreak === undefined || e.idleStreak === 0
      ? {}
      : { idleStreak: e.idleStreak as number }),
  };
}

/**
 * What an enumerator event asks to reconcile: an S3 notification, the connectors a nudge
 * (`{"connector": name}`) or the state table's stream names (`connectorOfKeys` reads a stream
 * record's `dynamodb.Keys`), or else (the schedule, anything unknown) every connector.
 */
export function enumeratorRunScope(
  event: unknown,
  connectorOfKeys: (keys: unknown) => string | undefined,
): EnumeratorRunScope {
  const objects = createdObjectsOf(event);
  if (objects !== undefined) return { kind: 'created-objects', objects };
  const e = (event ?? {}) as Record<string, unknown>;
  if (typeof e.connector === 'string' && e.connector.length > 0) {
    return { kind: 'connectors', connectors: [e.connector] };
  }
  if (Array.isArray(e.Records)) {
    const names = new Set<string>();
    for (const record of e.Records as Record<string, unknown>[]) {
      const keys = (record.dynamodb as { Keys?: unknown } | undefined)?.Keys;
      const name = connectorOfKeys(keys);
      if (name !== undefined) names.add(name);
    }
    return { kind: 'connectors', connectors: [...names].sort() };
  }
  return { kind: 'all' };
}

/** S3 event notifications percent-encode keys and write spaces as `+`. */
function decodeKey(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
}

/**
 * The objects an S3 "object created" notification names: either S3's own notification
 * (`Records[].s3`, delivered to Lambda directly or through SNS/SQS unwrapped by the caller) or
 * EventBridge's `Object Created` event. Undefined when the event is neither.
 */
export function createdObjectsOf(event: unknown): CreatedObject[] | undefined {
  const e = (event ?? {}) as Record<string, unknown>;
  if (e.source === 'aws.s3' && e['detail-type'] === 'Object Created') {
    const detail = (e.detail ?? {}) as { bucket?: { name?: unknown }; object?: { key?: unknown } };
    const bucket = detail.bucket?.name;
    const key = detail.object?.key;
    return typeof bucket === 'string' && typeof key === 'string' ? [{ bucket, key }] : [];
  }
  if (!Array.isArray(e.Records)) return undefined;
  const records = e.Records as Record<string, unknown>[];
  if (!records.some((r) => r.eventSource === 'aws:s3')) return undefined;
  return records.flatMap((record) => {
    if (record.eventSource !== 'aws:s3') return [];
    if (typeof record.eventName === 'string' && !record.eventName.startsWith('ObjectCreated')) {
      return [];
    }
    const s3 = (record.s3 ?? {}) as { bucket?: { name?: unknown }; object?: { key?: unknown } };
    const bucket = s3.bucket?.name;
    const key = s3.object?.key;
    return typeof bucket === 'string' && typeof key === 'string'
      ? [{ bucket, key: decodeKey(key) }]
      : [];
  });
}
