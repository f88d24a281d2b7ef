/**
 * Confluent's wire format: a magic byte 0, the schema's registry id as a 4-byte big-endian
 * integer, then the payload (Avro binary; Protobuf adds message indexes; JSON Schema, JSON).
 */
import { DataError } from 'serverless-connect/connect';

export const MAGIC_BYTE = 0;
/** Magic byte and schema id. */
export const HEADER_SIZE = 5;

/** `payload` framed with the magic byte and `schemaId`. */
export function frame(schemaId: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER_SIZE + payload.length);
  out.set(payload, HEADER_SIZE);
  return writeHeader(out, schemaId);
}

/**
 * Writes the magic byte and `schemaId` into the first {@link HEADER_SIZE} bytes of `bytes` (a
 * payload encoded after room left for the header); returns `bytes`.
 */
export function writeHeader(bytes: Uint8Array, schemaId: number): Uint8Array {
  if (!Number.isInteger(schemaId) || schemaId < -(2 ** 31) || schemaId >= 2 ** 31) {
    throw new DataError(`Schema id ${schemaId} does not fit 4 bytes`);
  }
  bytes[0] = MAGIC_BYTE;
  bytes[1] = schemaId >>> 24;
  bytes[2] = (schemaId >>> 16) & 0xff;
  bytes[3] = (schemaId >>> 8) & 0xff;
  bytes[4] = schemaId & 0xff;
  return bytes;
}

/** The schema id and payload of framed `bytes` (the payload is a view, not a copy). */
export function unframe(bytes: Uint8Array): {
  readonly schemaId: number;
  readonly payload: Uint8Array;
} {
  if (bytes.length < HEADER_SIZE) {
    throw new DataError(
      `Unknown magic byte! The data is ${bytes.length} byte(s), shorter than the 5-byte header of Confluent's wire format`,
    );
  }
  if (bytes[0] !== MAGIC_BYTE) {
    throw new DataError(`Unknown magic byte ${bytes[0]}: not Confluent's wire format`);
  }
  const schemaId = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(
    1,
    false,
  );
  return { schemaId, payload: bytes.subarray(HEADER_SIZE) };
}
