/**
 * A process that runs s3rver on a folder and rewrites objects in it as the S3 sink does (each
 * write: the object's previous lines plus new ones, its line count in `x-amz-meta-lines`), as
 * fast as it can, until it is killed. Prints `ready` once the first round of writes is done.
 *
 * `tsx test/support/s3rver-writer-process.ts <folder> <bucket> <objects> <round>`: writes keys
 * `object-0` … `object-<objects - 1>`; round r writes r × 1000 + 1 … lines, so that every start
 * writes more lines than the last one did.
 */
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startS3rver } from '../../local/services/s3rver.js';

/** The content of an object of `count` lines: `line <i> xxx…`, each ending in a line feed. */
function objectLines(count: number): string {
  let out = '';
  for (let i = 1; i <= count; i += 1) out += `line ${i} ${'x'.repeat(200)}\n`;
  return out;
}

const [folder, bucket, objects, round] = process.argv.slice(2);
if (folder === undefined || bucket === undefined || objects === undefined || round === undefined) {
  throw new Error('usage: s3rver-writer-process.ts <folder> <bucket> <objects> <round>');
}
const s3 = await startS3rver({ directory: folder });
const client = new S3Client({
  endpoint: s3.endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: s3.credentials,
});
await client.send(new CreateBucketCommand({ Bucket: bucket })).catch(() => undefined);
const keys = Array.from({ length: Number(objects) }, (_, i) => `object-${i}`);
const first = Number(round) * 1000 + 1;
for (let lines = first; ; lines += 1) {
  const body = objectLines(lines);
  await Promise.all(
    keys.map((Key) =>
      client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key,
          Body: body,
          Metadata: { lines: String(lines) },
        }),
      ),
    ),
  );
  if (lines === first) process.stdout.write('ready\n');
}
