/**
 * Reads the S3 sink's Avro and Parquet objects back in TypeScript, for unit tests and the sink
 * campaign (the reference readers, Apache Avro's Java library and pyarrow, check them in the
 * integration tests): an Avro object container through the sink's block reader and avsc, a
 * Parquet file through hyparquet. Records come back as JSON text (bigints as strings, bytes as
 * hex), one per record.
 */
import { gunzipSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import { readBlocks, readHeader } from '../../shared/plugins/connectors/s3-sink/avro-container.js';
import { AvroData } from '../../shared/plugins/converters/avro/avro-codec.js';

const avroData = new AvroData({ cacheSize: 100 });

/** JSON text of a decoded value: bigints as strings, bytes as hex, records as plain objects. */
export function jsonOf(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return String(v);
    if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
    if (
      typeof v === 'object' &&
      v !== null &&
      (v as { type?: string }).type === 'Buffer' &&
      Array.isArray((v as { data?: unknown }).data)
    ) {
      return Buffer.from((v as { data: number[] }).data).toString('hex');
    }
    return v;
  });
}

/** What an Avro object container holds. */
export interface ContainerContent {
  readonly schemaText: string;
  readonly codec: string;
  /** Each record as avsc decodes it (wrapped unions), as JSON text. */
  readonly records: readonly string[];
}

/** The schema and records of an Avro object container. */
export function readAvroContainer(bytes: Uint8Array): ContainerContent {
  const header = readHeader(bytes);
  if (header === null) throw new Error('not a complete Avro container');
  const type = avroData.forAvroSchema(header.schemaText).avroType;
  const records: string[] = [];
  for (const block of readBlocks(bytes, header)) {
    const data = Buffer.from(block.data.buffer, block.data.byteOffset, block.data.byteLength);
    let at = 0;
    for (let i = 0; i < block.count; i++) {
      const { value, offset } = type.decode(data, at);
      records.push(jsonOf(value));
      at = offset;
    }
    if (at !== data.length) throw new Error(`a block holds ${data.length - at} bytes too many`);
  }
  return { schemaText: header.schemaText, codec: header.codec, records };
}

/** The rows of a Parquet file, as JSON text. */
export async function readParquetRows(bytes: Uint8Array): Promise<string[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const rows = await parquetReadObjects({
    file: file as ArrayBuffer,
    compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)) },
  });
  return rows.map(jsonOf);
}

/**
 * The records of an S3 sink object of key `key`, as JSON text: final Parquet objects as Parquet,
 * Avro objects and staged objects of either format as Avro containers.
 */
export async function recordsOf(key: string, bytes: Uint8Array): Promise<string[]> {
  if (key.endsWith('.parquet') && !key.startsWith('_')) return readParquetRows(bytes);
  return [...readAvroContainer(bytes).records];
}
