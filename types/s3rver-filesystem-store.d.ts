// s3rver's filesystem store (CommonJS, no types): the part local/services/s3rver-store.ts
// extends. An object `key` of `bucket` is three files under `<root>/<bucket>/<key's folders>/`:
// `<name>._S3rver_object` (the bytes), `<name>._S3rver_object.md5` (hex MD5, the ETag) and
// `<name>._S3rver_metadata.json` (content headers and `x-amz-meta-*`).
declare module 's3rver/lib/stores/filesystem.js' {
  import type { Readable } from 'node:stream';

  namespace FilesystemStore {
    /** What s3rver hands the store to write (`lib/models/object.js`). */
    interface S3rverObject {
      readonly bucket: string;
      readonly key: string;
      readonly content: Readable | Buffer;
      /** Request headers (lower case): content headers and `x-amz-meta-*`. */
      readonly metadata: Readonly<Record<string, string>>;
    }
  }

  class FilesystemStore {
    constructor(rootDirectory: string);
    readonly rootDirectory: string;
    /** `<root>/<bucket>/<key's folders>/<name>._S3rver_<resource>`. */
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    /** The stored metadata plus `etag`, `last-modified` and `content-length`. */
    getMetadata(bucket: string, key: string): Promise<Record<string, string | number>>;
    putObject(object: FilesystemStore.S3rverObject): Promise<{ size: number; md5: string }>;
    copyObject(
      srcBucket: string,
      srcKey: string,
      destBucket: string,
      destKey: string,
      replacementMetadata: Readonly<Record<string, string>> | null,
    ): Promise<Record<string, string | number>>;
    deleteObject(bucket: string, key: string): Promise<void>;
  }

  export = FilesystemStore;
}

declare module 's3rver/lib/models/object.js' {
  const S3Object: {
    /** The request headers s3rver stores with an object, besides `x-amz-meta-*`. */
    readonly ALLOWED_METADATA: readonly string[];
  };

  export = S3Object;
}
