import { describe, expect, it } from 'vitest';
import { s3PriceClass } from '../../../../../shared/adapters/s3/s3-request-meter.js';

describe('s3PriceClass', () => {
  it.each([
    ['PUT', 'PutObjectCommand', 'tier1'],
    ['PUT', 'CopyObjectCommand', 'tier1'],
    ['PUT', 'UploadPartCommand', 'tier1'],
    ['POST', 'CreateMultipartUploadCommand', 'tier1'],
    ['POST', 'CompleteMultipartUploadCommand', 'tier1'],
    ['GET', 'ListObjectsV2Command', 'tier1'],
    ['GET', 'GetObjectCommand', 'tier2'],
    ['HEAD', 'HeadObjectCommand', 'tier2'],
    ['DELETE', 'DeleteObjectCommand', 'free'],
    ['DELETE', 'AbortMultipartUploadCommand', 'free'],
  ])('prices %s %s as %s (S3 Standard request classes)', (method, command, priceClass) => {
    expect(s3PriceClass(method, command)).toBe(priceClass);
  });
});
