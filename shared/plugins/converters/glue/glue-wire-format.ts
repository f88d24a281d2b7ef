/**
 * The AWS Glue Schema Registry wire format, as the AWS library's serializers write it
 * (`SerializationDataEncoder`) and its deserializers check it
 * (`GlueSchemaRegistryDeserializerDataParser`):
 *
 * | bytes | what |
 * |---|---|
 * | 0 | header version byte, 3 |
 * | 1 | compression byte: 0 none, 5 zlib |
 * | 2-17 | the schema version id, a UUID as two big-endian 64-bit halves (Java's `UUID` order) |
 * | 18- | the payload (Avro binary), compressed with zlib when byte 1 is 5 |
 *
 * zlib is Java's `Deflater` default: the zlib container (RFC 1950), default level, which
 * `node:zlib`'s `deflateSync` / `inflateSync` write and read.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { DataError } from 'serverless-connect/connect';

export const HEADER_VERSION_BYTE = 3;
export const COMPRESSION_NONE_BYTE = 0;
export const COMPRESSION_ZLIB_BYTE = 5;
/** Header version, compression and the 16-byte schema version id. */
export const GLUE_HEADER_SIZE = 18;

/** How the payload is compressed (the library's `compression` setting). */
export type GlueCompression = 'NONE' | 'ZLIB';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` is a UUID in its canonical 8-4-4-4-12 hex form. */
export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}

/** The 16 bytes of `uuid` (canonical text), most significant first. */
export function uuidBytes(uuid: string): Uint8Array {
  if (!isUuid(uuid)) throw new DataError(`Schema version id ${uuid} is not a UUID`);
  return Uint8Array.from(Buffer.from(uuid.replaceAll('-', ''), 'hex'));
}

/** The canonical lower-case text of the 16 bytes at `offset` of `bytes`. */
export function uuidText(bytes: Uint8Array, offset = 0): string {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset + offset, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `payload` framed for schema version `schemaVersionId`, compressed as `compression` says. */
export function glueFrame(
  schemaVersionId: string,
  payload: Uint8Array,
  compression: GlueCompression,
): Uint8Array {
  const body = compression === 'ZLIB' ? deflateSync(payload) : payload;
  const out = new Uint8Array(GLUE_HEADER_SIZE + body.length);
  out[0] = HEADER_VERSION_BYTE;
  out[1] = compression === 'ZLIB' ? COMPRESSION_ZLIB_BYTE : COMPRESSION_NONE_BYTE;
  out.set(uuidBytes(schemaVersionId), 2);
  out.set(body, GLUE_HEADER_SIZE);
  return out;
}

/** What framed bytes hold. */
export interface GlueFramed {
  /** The schema version id, canonical lower-case text. */
  readonly schemaVersionId: string;
  /** The payload, decompressed (a view of the input when it was not compressed). */
  readonly payload: Uint8Array;
}

/**
 * The schema version id and payload of framed `bytes`. DataError (the library's
 * `GlueSchemaRegistryIncompatibleDataException`) for bytes shorter than the header, another
 * header version, an unknown compression byte, or a zlib payload that does not inflate.
 */
export function glueUnframe(bytes: Uint8Array): GlueFramed {
  if (bytes.length < GLUE_HEADER_SIZE) {
    throw new DataError(
      `Data is not compatible with schema registry size: ${bytes.length} (shorter than the ${GLUE_HEADER_SIZE}-byte header of the Glue Schema Registry wire format)`,
    );
  }
  if (bytes[0] !== HEADER_VERSION_BYTE) {
    throw new DataError(
      `Invalid schema registry header version byte ${bytes[0]} in data (expected ${HEADER_VERSION_BYTE}): not the Glue Schema Registry wire format`,
    );
  }
  const compression = bytes[1];
  if (compression !== COMPRESSION_NONE_BYTE && compression !== COMPRESSION_ZLIB_BYTE) {
    throw new DataError(
      `Invalid schema registry compression byte ${compression} in data (expected ${COMPRESSION_NONE_BYTE} or ${COMPRESSION_ZLIB_BYTE})`,
    );
  }
  const schemaVersionId = uuidText(bytes, 2);
  const body = bytes.subarray(GLUE_HEADER_SIZE);
  if (compression === COMPRESSION_NONE_BYTE) return { schemaVersionId, payload: body };
  try {
    return { schemaVersionId, payload: inflateSync(body) };
  } catch (error) {
    throw new DataError(`Bytes received is not compressed properly: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
