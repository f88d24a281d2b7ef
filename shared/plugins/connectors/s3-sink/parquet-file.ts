/**
 * Parquet files from Avro records, as Confluent's ParquetFormat writes them (through
 * parquet-avro): the Avro schema the Connect schema maps to becomes the Parquet schema as
 * `parquet-schema.ts` maps it, and the file's key-value metadata carries the Avro schema
 * (`parquet.avro.schema`) as parquet-avro writes it.
 *
 * Written with hyparquet-writer (pinned in package.json; the choice, measured against the other
 * writers: this folder's README, "Parquet library"): one row group per object, 64 KiB pages as
 * Confluent's writer uses, dictionary encoding where it pays, column statistics.
 */
import { gzipSync } from 'node:zlib';
import { ByteWriter, type ColumnSource, ParquetWriter, type SchemaElement } from 'hyparquet-writer';
import { DataError } from 'serverless-connect/connect';
import {
  type Convert,
  isObject,
  type Json,
  type JsonObject,
  Names,
  SchemaConverter,
} from './parquet-schema.js';

/** The codecs this writer supports (`parquet.codec`). */
export const PARQUET_CODECS = ['none', 'snappy', 'gzip'] as const;
export type ParquetCodec = (typeof PARQUET_CODECS)[number];

/** The file extension of a codec, as Confluent's ParquetFormat names files. */
export function parquetExtension(codec: ParquetCodec): string {
  return `${codec === 'none' ? '' : codec === 'gzip' ? '.gz' : '.snappy'}.parquet`;
}

const PAGE_SIZE = 64 * 1024;

/** How the records of one Avro record schema become Parquet columns. */
export class ParquetFileWriter {
  /** The Parquet schema, flattened depth first (root first). */
  readonly schema: SchemaElement[];
  readonly #fields: readonly string[];
  readonly #convertRow: Convert;

  /** Throws DataError when `schemaJson` (a parsed Avro schema) is not a record Parquet can hold. */
  constructor(schemaJson: Json) {
    if (!isObject(schemaJson) || schemaJson.type !== 'record') {
      throw new DataError(
        'ParquetFormat writes struct values only (an Avro record); the value schema is not a struct',
      );
    }
    const root = new SchemaConverter().field('root', schemaJson, 'REQUIRED', null);
    const [top, ...rest] = root.elements;
    const namespace = typeof schemaJson.namespace === 'string' ? schemaJson.namespace : null;
    const fullName = new Names().fullName(String(schemaJson.name), namespace);
    this.schema = [{ name: fullName, num_children: top?.num_children ?? 0 }, ...rest];
    this.#fields = (schemaJson.fields as JsonObject[]).map((f) => String(f.name));
    this.#convertRow = root.convert;
  }

  /**
   * The Parquet file holding `rows` (Avro records as avsc decodes them), compressed with
   * `codec`, with `schemaText` as its `parquet.avro.schema`.
   */
  write(rows: readonly unknown[], codec: ParquetCodec, schemaText: string): Uint8Array {
    const converted = rows.map((r) => this.#convertRow(r) as Record<string, unknown>);
    const columnData: ColumnSource[] = this.#fields.map((name) => ({
      name,
      data: converted.map((r) => r[name]),
    }));
    const writer = new ByteWriter();
    const parquet = new ParquetWriter({
      writer,
      schema: this.schema,
      codec: codec === 'none' ? 'UNCOMPRESSED' : codec === 'gzip' ? 'GZIP' : 'SNAPPY',
      compressors: { GZIP: (input: Uint8Array) => gzipSync(input) },
      kvMetadata: [
        { key: 'parquet.avro.schema', value: schemaText },
        { key: 'writer.model.name', value: 'avro' },
      ],
    });
    try {
      parquet.write({ columnData, rowGroupSize: Math.max(rows.length, 1), pageSize: PAGE_SIZE });
      parquet.finish();
    } catch (error) {
      throw new DataError(`Cannot write the records as Parquet: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return writer.getBytes();
  }
}
