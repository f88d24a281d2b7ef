import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { testS3, uniqueName } from '../../support/services.js';

const motoServer = fileURLToPath(new URL('../../support/moto/moto-server.ts', import.meta.url));

/** Whether anything answers HTTP at `endpoint`. */
async function answers(endpoint: string): Promise<boolean> {
  return fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(2_000) }).then(
    () => true,
    () => false,
  );
}

describe('moto server (test/support/moto)', () => {
  it("refuses a multipart part below AWS's 5 MiB minimum with EntityTooSmall, as AWS does", async () => {
    // Prepare
    const s3 = testS3('moto');
    const Bucket = uniqueName('moto-parts');
    const Key = 'small-parts.bin';
    await s3.send(new CreateBucketCommand({ Bucket }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    const parts = [];
    for (const PartNumber of [1, 2]) {
      const body = new Uint8Array(12 * 1024).fill(PartNumber);
      const { ETag } = await s3.send(
        new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: body }),
      );
      parts.push({ ETag, PartNumber });
    }

    // Act
    const refused = await s3
      .send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key,
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      )
      .then(
        () => 'completed',
        (error: { name: string }) => error.name,
      );

    // Assess
    expect(refused).toBe('EntityTooSmall');
    s3.destroy();
  });

  it('ends with the process that started it, even one killed with SIGKILL', async () => {
    // Prepare: a Node process starts its own moto and prints the endpoint.
    const code = `const { startMoto } = await import(${JSON.stringify(motoServer)});
      const moto = await startMoto();
      console.log(moto.endpoint);
      setInterval(() => {}, 1000);`;
    const starter = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', code],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(starter.stdout, 'data')) as [Buffer];
    const endpoint = line.toString('utf8').trim();
    const s3 = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'moto', secretAccessKey: 'moto' },
    });
    await s3.send(new CreateBucketCommand({ Bucket: 'lifecycle' }));
    await s3.send(new PutObjectCommand({ Bucket: 'lifecycle', Key: 'k', Body: 'v' }));
    const before = await answers(endpoint);

    // Act
    starter.kill('SIGKILL');
    await once(starter, 'exit');
    let after = true;
    for (let i = 0; i < 50 && after; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      after = await answers(endpoint);
    }

    // Assess
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(before).toBe(true);
    expect(after).toBe(false);
    s3.destroy();
  });
});
