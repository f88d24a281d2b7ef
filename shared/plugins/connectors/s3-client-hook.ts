/**
 * The hook the S3 connectors call with every S3 client they make, before its first request. The
 * runtime meters the client's requests through it (the engine gives it to the connectors'
 * descriptors: `builtinRegistry`); a connector built without one makes its clients as they are.
 */
import type { S3Client } from '@aws-sdk/client-s3';

export type S3ClientHook = (client: S3Client) => void;
