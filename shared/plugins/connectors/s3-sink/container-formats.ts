/**
 * The S3 sink's formats with a schema per object: Avro object container files (Confluent's
 * AvroFormat, `.avro`) and Parquet (Confluent's ParquetFormat, `.snappy.parquet`, `.gz.parquet`
 * or `.parquet` by `parquet.codec`). A record's value is encoded to Avro binary with the Avro
 * schema its Connect schema maps to (`../../converters/avro/`, Confluent's AvroData mapping with
 * `connect.meta.data` and `enhanced.avro.schema.support`); records without a value schema are
 * refused (DataError), as Confluent's formats refuse them.
 *
 * Avro objects are containers grown block by block (staged and final alike). Parquet objects
 * are staged as Avro containers (uncompressed) and written as Parquet when sealed.
 */
import type { Type } from 'avsc';
import {
  ConnectError,
  DataError,
  IllegalStateError,
  type SinkRecord,
} from 'serverless-connect/connect';
import { type AvroCodec, AvroData } from '../../converters/avro/avro-codec.js';
import { LruCache } from '../../converters/lru-cache.js';
import {
  type AvroFileCodec,
  readBlocks,
  readHeader,
  schemaFingerprint,
  syncMarker,
} from './avro-container.js';
import {
  avroContainerLayout,
  generatorStream,
  type ObjectHead,
  type ObjectLayout,
  SCHEMA_FINGERPRINT_METADATA,
} from './object-layout.js';
import { type ParquetCodec, ParquetFileWriter, parquetExtension } from './parquet-file.js';
import type { RecordFormat } from './record-format.js';

/** The schema of the records of one object. */
export interface WriterSchema {
  /** The Avro schema's text (what an Avro object's header holds). */
  readonly schemaText: string;
  /** Its fingerprint (the `schema-fingerprint` metadata of staged objects). */
  readonly fingerprint: string;
}

/** A format whose objects hold the records of one schema, in a container. */
export interface ContainerFormat extends RecordFormat {
  readonly name: 'AvroFormat' | 'ParquetFormat';
  /** The schema `record`'s value is written with; DataError when it has none (or cannot have). */
  schemaOf(record: SinkRecord): WriterSchema;
  /** The layout of the staged object of `finalKey`, holding records of `schema`. */
  stagingLayout(schema: WriterSchema, finalKey: string): ObjectLayout;
  /**
   * The layout of the final object `finalKey`: of records of `schema`, or of the records staged
   * (null: the schema comes from the staged object).
   */
  finalLayout(schema: WriterSchema | null, finalKey: string): ObjectLayout;
}

/** What a container format is configured with. */
export interface ContainerFormatSettings {
  /** `schema.cache.size`. */
  readonly cacheSize: number;
  /** `connect.meta.data`. */
  readonly connectMetaData: boolean;
  /** `enhanced.avro.schema.support`. */
  readonly enhancedSchemaSupport: boolean;
}

function describe(record: SinkRecord): string {
  return `${record.topic}-${record.kafkaPartition}@${record.kafkaOffset}`;
}

/** Shared by both formats: the Connect → Avro mapping and the writer schemas. */
abstract class AvroBackedFormat implements ContainerFormat {
  abstract readonly name: 'AvroFormat' | 'ParquetFormat';
  abstract readonly extension: string;
  protected readonly avroData: AvroData;
  readonly #schemas = new WeakMap<AvroCodec, WriterSchema>();

  constructor(settings: ContainerFormatSettings) {
    this.avroData = new AvroData({
      cacheSize: settings.cacheSize,
      connectMetaData: settings.connectMetaData,
      enhancedSchemaSupport: settings.enhancedSchemaSupport,
    });
  }

  #codecOf(record: SinkRecord): AvroCodec {
    const schema = record.valueSchema;
    if (schema === null) {
      throw new DataError(
        `${this.name} writes records with a value schema (e.g. read by the AvroConverter, or by the JsonConverter with schemas.enable=true), but record ${describe(record)} has none`,
      );
    }
    this.checkSchema(record);
    return this.avroData.forConnectSchema(schema);
  }

  /** Refuses a value schema the format cannot write (DataError). */
  protected checkSchema(_record: SinkRecord): void {}

  schemaOf(record: SinkRecord): WriterSchema {
    const codec = this.#codecOf(record);
    let schema = this.#schemas.get(codec);
    if (schema === undefined) {
      schema = { schemaText: codec.schemaText, fingerprint: schemaFingerprint(codec.schemaText) };
      this.#schemas.set(codec, schema);
    }
    return schema;
  }

  encode(record: SinkRecord): Uint8Array {
    return this.#codecOf(record).encode(record.value);
  }

  abstract stagingLayout(schema: WriterSchema, finalKey: string): ObjectLayout;
  abstract finalLayout(schema: WriterSchema | null, finalKey: string): ObjectLayout;

  /**
   * Avro containers of `schema` (null: from the stored objects), written with `codec`; staged
   * objects carry the schema's fingerprint, which the next batch reads when it starts in their
   * bucket (`object-segments.ts`).
   */
  protected containerLayout(
    schema: WriterSchema | null,
    finalKey: string,
    codec: AvroFileCodec,
    staged: boolean,
  ): ObjectLayout {
    if (schema === null) return avroContainerLayout(null);
    const { schemaText, fingerprint } = schema;
    return avroContainerLayout(
      { schemaText, codec, sync: syncMarker(schemaText, finalKey) },
      staged ? { [SCHEMA_FINGERPRINT_METADATA]: fingerprint } : {},
    );
  }
}

/** Confluent's AvroFormat: Avro object container files, `.avro`, compressed with `avro.codec`. */
export class AvroContainerFormat extends AvroBackedFormat {
  readonly name = 'AvroFormat';
  readonly extension = '.avro';

  constructor(
    settings: ContainerFormatSettings,
    readonly codec: AvroFileCodec,
  ) {
    super(settings);
  }

  stagingLayout(schema: WriterSchema, finalKey: string): ObjectLayout {
    return this.containerLayout(schema, finalKey, this.codec, true);
  }

  finalLayout(schema: WriterSchema | null, finalKey: string): ObjectLayout {
    return this.containerLayout(schema, finalKey, this.codec, false);
  }
}

async function readAll(head: ObjectHead): Promise<Uint8Array> {
  if (head instanceof Uint8Array) return head;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of head) {
    chunks.push(chunk);
    size += chunk.length;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Confluent's ParquetFormat: one Parquet file per object, compressed with `parquet.codec`. */
export class ParquetObjectFormat extends AvroBackedFormat {
  readonly name = 'ParquetFormat';
  readonly extension: string;
  readonly #writers: LruCache<string, ParquetFileWriter>;

  constructor(
    settings: ContainerFormatSettings,
    readonly codec: ParquetCodec,
  ) {
    super(settings);
    this.extension = parquetExtension(codec);
    this.#writers = new LruCache(settings.cacheSize);
  }

  protected override checkSchema(record: SinkRecord): void {
    if (record.valueSchema?.type !== 'struct') {
      throw new DataError(
        `ParquetFormat writes struct values, but the value schema of record ${describe(record)} is ${record.valueSchema?.type}`,
      );
    }
  }

  /** Records wait in uncompressed Avro containers until their object is sealed. */
  stagingLayout(schema: WriterSchema, finalKey: string): ObjectLayout {
    return this.containerLayout(schema, finalKey, 'null', true);
  }

  finalLayout(schema: WriterSchema | null, _finalKey: string): ObjectLayout {
    const format = this;
    return {
      contentType: 'application/vnd.apache.parquet',
      metadata: {},
      extendable: false,
      content(heads, fresh) {
        async function* build(): AsyncGenerator<Uint8Array> {
          let schemaText = schema?.schemaText ?? null;
          const rows: unknown[] = [];
          for (const head of heads) {
            const bytes = await readAll(head);
            const header = readHeader(bytes);
            if (header === null)
              throw new ConnectError('A staged Avro object ends inside its header');
            if (schemaText !== null && header.schemaText !== schemaText) {
              throw new ConnectError(
                'A staged object holds records of another schema than the ones to seal with it; it was written under other settings: remove it',
              );
            }
            schemaText = header.schemaText;
            const type = format.#typeOf(schemaText);
            for (const block of readBlocks(bytes, header)) {
              const data = bufferOf(block.data);
              let at = 0;
              for (let i = 0; i < block.count; i++) {
                const { value, offset } = type.decode(data, at);
                if (offset < 0)
                  throw new ConnectError('A staged Avro object holds a truncated record');
                rows.push(value);
                at = offset;
              }
            }
          }
          if (schemaText === null) throw new IllegalStateError('A Parquet object needs a schema');
          const type = format.#typeOf(schemaText);
          for (const entry of fresh) rows.push(type.fromBuffer(bufferOf(entry.bytes)));
          yield format.#writerOf(schemaText).write(rows, format.codec, schemaText);
        }
        const cleanup = async () => {
          await Promise.all(
            heads.map((h) => (h instanceof ReadableStream && !h.locked ? h.cancel() : undefined)),
          );
        };
        return generatorStream(build(), cleanup);
      },
    };
  }

  #typeOf(schemaText: string): Type {
    return this.avroData.forAvroSchema(schemaText).avroType;
  }

  #writerOf(schemaText: string): ParquetFileWriter {
    let writer = this.#writers.get(schemaText);
    if (writer === undefined) {
      writer = new ParquetFileWriter(JSON.parse(schemaText));
      this.#writers.set(schemaText, writer);
    }
    return writer;
  }
}
