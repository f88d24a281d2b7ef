import { s3SourceDescriptor } from '../../shared/plugins/connectors/s3-source/descriptor.js';
import {
  S3_BUCKET_CONFIG,
  S3_PREFIX_CONFIG,
} from '../../shared/plugins/connectors/s3-source/s3-source-config.js';
import type { ConfigStore } from '../../shared/ports/config-store.js';

/** An object an S3 notification announced. */
export interface CreatedObject {
  readonly bucket: string;
  readonly key: string;
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

const S3_SOURCE_NAMES = new Set([s3SourceDescriptor.className, ...s3SourceDescriptor.aliases]);

/**
 * The S3 source connectors that read any of `objects`: same bucket, key under the connector's
 * prefix. Config-provider placeholders in the bucket or prefix are compared as stored (a
 * connector whose bucket is a placeholder is still reconciled on its one-minute schedule).
 */
export async function s3SourcesReading(
  configs: Pick<ConfigStore, 'listConnectors' | 'getConnector'>,
  objects: readonly CreatedObject[],
): Promise<string[]> {
  if (objects.length === 0) return [];
  const matches: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await configs.listConnectors(cursor === undefined ? {} : { cursor });
    for (const name of page.names) {
      const config = (await configs.getConnector(name))?.config;
      if (config === undefined || !S3_SOURCE_NAMES.has(config['connector.class'] ?? '')) continue;
      const bucket = config[S3_BUCKET_CONFIG];
      const prefix = config[S3_PREFIX_CONFIG] ?? '';
      if (objects.some((o) => o.bucket === bucket && o.key.startsWith(prefix))) matches.push(name);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return matches.sort();
}
