/**
 * The keys holding the S3 sink's records, as a checker reads them: every final object under a
 * prefix of `topics.dir`, and the staged objects (`s3.write.mode=once`) of buckets not complete
 * yet, i.e. whose final key does not exist (a staged object beside its final object is a leftover
 * the sink deletes when it next seals that bucket: its records are in the final object).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { sdkS3SinkClient } from '../../shared/plugins/connectors/s3-sink/s3-sink-client.js';

/** Every key under `prefix` (the sink client's listing; `client` is not destroyed). */
function listAll(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  return sdkS3SinkClient(client).listKeys(bucket, prefix);
}

/** What {@link sinkOutputKeys} found. */
export interface SinkOutputKeys {
  /** Final keys, then staged keys of incomplete buckets, each group in key order. */
  readonly keys: readonly string[];
  readonly finals: number;
  readonly staged: number;
  /** Staged objects whose final object exists (not read). */
  readonly leftovers: number;
}

/**
 * The keys to read for the records under `prefix` (a prefix of final keys, e.g.
 * `topics/orders/`): final objects, and staged ones under `stagingDir` whose final is missing.
 */
export async function sinkOutputKeys(
  client: S3Client,
  bucket: string,
  prefix: string,
  stagingDir = '_staging',
): Promise<SinkOutputKeys> {
  // Staging first: a bucket sealed between the two listings then shows its final object (and its
  // staged one counts as a leftover), never neither.
  const stagedKeys = await listAll(client, bucket, `${stagingDir}/`);
  const finals = (await listAll(client, bucket, prefix)).sort();
  const present = new Set(finals);
  const staged: string[] = [];
  let leftovers = 0;
  for (const key of stagedKeys) {
    const finalKey = finalKeyOfStaged(key, stagingDir);
    if (!finalKey.startsWith(prefix)) continue;
    if (present.has(finalKey)) leftovers += 1;
    else staged.push(key);
  }
  return {
    keys: [...finals, ...staged.sort()],
    finals: finals.length,
    staged: staged.length,
    leftovers,
  };
}

/**
 * The final key a staged key stands for (`<stagingDir>/<topic>+<partition>/<final key>`): where
 * its records are once the sink sealed the bucket and deleted the staged object.
 */
export function finalKeyOfStaged(stagedKey: string, stagingDir = '_staging'): string {
  const rest = stagedKey.slice(stagingDir.length + 1);
  return rest.slice(rest.indexOf('/') + 1);
}
