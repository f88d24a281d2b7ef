/**
 * Which S3 source connectors read an object an S3 notification announced: the enumerator
 * dispatches them at once instead of at their next scheduled run.
 */
import { s3SourceDescriptor } from '../plugins/connectors/s3-source/descriptor.js';
import {
  S3_BUCKET_CONFIG,
  S3_PREFIX_CONFIG,
} from '../plugins/connectors/s3-source/s3-source-config.js';
import type { ConfigStore } from '../ports/config-store.js';
import type { CreatedObject } from '../ports/dispatch.js';

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
