/**
 * Avro binary encoding of Connect values, synchronous: `AvroData` maps schemas both ways (as
 * Confluent's `AvroData`, with its settings and caches bounded by `schemas.cache.size`), and
 * each `AvroCodec` encodes and decodes the values of one schema through avsc.
 *
 * @example
 * const avroData = new AvroData({ cacheSize: 1000 });
 * const codec = avroData.forConnectSchema(schema);
 * const bytes = codec.encode(struct);            // Avro binary, no framing
 * registry.register(subject, { schemaType: 'AVRO', schema: codec.schemaText, references: [] });
 * const back = avroData.forAvroSchema(codec.schemaText).decode(bytes);
 */
import type { Type } from 'avsc';
import avroTypes from 'avsc/lib/types.js';
import avroUtils from 'avsc/lib/utils.js';
import { DataError, type Schema } from 'serverless-connect/connect';
import { LruCache } from '../lru-cache.js';
import { type AvroDataOptions, DEFAULT_AVRO_DATA_OPTIONS } from './avro-data-options.js';
import { plainJson, writeAvroJson } from './avro-json.js';
import { EXACT_LONG_TYPE } from './avro-long.js';
import { type Convert, compileToConnect } from './avro-values.js';
import { compileWriter, type Write } from './avro-writer.js';
import { fromConnectSchema } from './from-connect-schema.js';
import { toConnectSchema } from './to-connect-schema.js';

const { Type: AvroType } = avroTypes;
const { Tap } = avroUtils;

/** Where values are written before their bytes are copied out (grows for larger values). */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * The schema avsc compiles: field defaults left out (they play no part in writing or reading
 * with the writer's schema, and avsc refuses a union default that fits a later branch, which
 * Apache Avro 1.12 and so Confluent accept).
 */
function withoutDefaults(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(withoutDefaults);
  if (typeof json !== 'object' || json === null) return json;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    if (key === 'fields' && Array.isArray(value)) {
      out.fields = value.map((field: Record<string, unknown>) => {
        const { default: _dropped, ...rest } = field;
        return { ...rest, type: withoutDefaults(field.type) };
      });
    } else if (key === 'items' || key === 'values' || key === 'type') {
      out[key] = withoutDefaults(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function forSchema(schemaJson: unknown): Type {
  return AvroType.forSchema(schemaJson as never, {
    wrapUnions: true,
    registry: { long: EXACT_LONG_TYPE },
  });
}

function compile(schemaJson: unknown): Type {
  try {
    return forSchema(withoutDefaults(schemaJson));
  } catch (error) {
    throw new DataError(`Invalid Avro schema: ${(error as Error).message}`, { cause: error });
  }
}

/** `codec`'s type with its field defaults, which schema resolution needs, when avsc takes them. */
function withDefaults(codec: AvroCodec): Type {
  try {
    return forSchema(JSON.parse(codec.schemaText));
  } catch {
    return codec.avroType; // a union default avsc refuses (see withoutDefaults)
  }
}

/**
 * Why data written with `writer`'s schema cannot be read with `reader`'s under Avro's schema
 * resolution (Confluent's `latestVersion.isBackwardCompatible(schema)` check of
 * `latest.compatibility.strict`), or `null` when it can.
 */
export function resolutionProblem(reader: AvroCodec, writer: AvroCodec): string | null {
  if (reader === writer || reader.schemaText === writer.schemaText) return null;
  try {
    withDefaults(reader).createResolver(withDefaults(writer));
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Encodes and decodes the values of one schema. Immutable; share it. */
export class AvroCodec {
  /** The Avro schema's text, as Apache Avro's Java library writes it. */
  readonly schemaText: string;
  /** The Connect schema of the values. */
  readonly connectSchema: Schema;
  readonly #type: Type;
  readonly #write: Write;
  readonly #toConnect: Convert;

  constructor(schemaText: string, connectSchema: Schema, type: Type) {
    this.schemaText = schemaText;
    this.connectSchema = connectSchema;
    this.#type = type;
    this.#write = compileWriter(connectSchema, type);
    this.#toConnect = compileToConnect(connectSchema, type);
  }

  /** The avsc type the values are encoded with (for tools that walk it). */
  get avroType(): Type {
    return this.#type;
  }

  /** The full name of the Avro record, or `null` when the schema is not a record. */
  get recordName(): string | null {
    return this.#type.typeName === 'record' ? (this.#type.name ?? null) : null;
  }

  /**
   * Avro binary of `value`, after `headerSize` bytes left for the caller's header (unset: a
   * wire format's header goes there without copying the payload again); DataError when the
   * value does not fit the schema.
   */
  encode(value: unknown, headerSize = 0): Uint8Array {
    let tap = new Tap(scratch, headerSize);
    try {
      this.#write(tap, value);
      if (!tap.isValid()) {
        scratch = Buffer.allocUnsafe(Math.max(2 * scratch.length, tap.pos));
        tap = new Tap(scratch, headerSize);
        this.#write(tap, value);
      }
    } catch (error) {
      if (error instanceof DataError) throw error;
      throw new DataError(`Cannot encode the value as Avro: ${(error as Error).message}`, {
        cause: error,
      });
    }
    // A copy from the pool of small Buffers: one allocation per value.
    const out = Buffer.allocUnsafe(tap.pos);
    scratch.copy(out, headerSize, headerSize, tap.pos);
    return out;
  }

  /** The Connect value in `bytes` (all of them); DataError for bytes that do not parse. */
  decode(bytes: Uint8Array): unknown {
    let avro: unknown;
    try {
      avro = this.#type.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    } catch (error) {
      throw new DataError(`Cannot decode Avro data: ${(error as Error).message}`, { cause: error });
    }
    return this.#toConnect(avro);
  }
}

export interface AvroDataSettings extends Partial<AvroDataOptions> {
  /** `schemas.cache.size`: the most schemas each direction caches. */
  readonly cacheSize: number;
}

/** Confluent's `AvroData`: the two mappings with their caches, and the codecs they give. */
export class AvroData {
  readonly #options: AvroDataOptions;
  readonly #byConnectSchema: LruCache<Schema, AvroCodec>;
  readonly #byAvroText: LruCache<string, AvroCodec>;

  constructor(settings: AvroDataSettings) {
    const { cacheSize, ...options } = settings;
    this.#options = { ...DEFAULT_AVRO_DATA_OPTIONS, ...options };
    this.#byConnectSchema = new LruCache(cacheSize);
    this.#byAvroText = new LruCache(cacheSize);
  }

  /** The codec writing values of `schema` (cached by the schema object). */
  forConnectSchema(schema: Schema): AvroCodec {
    const cached = this.#byConnectSchema.get(schema);
    if (cached !== undefined) return cached;
    const json = fromConnectSchema(schema, this.#options);
    const text = writeAvroJson(json);
    const codec = new AvroCodec(text, schema, compile(plainJson(json)));
    this.#byConnectSchema.set(schema, codec);
    return codec;
  }

  /**
   * The codec reading values written with the Avro schema `text` (a writer's schema from the
   * registry; `version` its registry version). Cached by text and version.
   */
  forAvroSchema(text: string, version: number | null = null): AvroCodec {
    const key = `${version ?? ''}\0${text}`;
    const cached = this.#byAvroText.get(key);
    if (cached !== undefined) return cached;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new DataError('Invalid Avro schema: not JSON');
    }
    const connectSchema = toConnectSchema(json, this.#options, version);
    const codec = new AvroCodec(text, connectSchema, compile(json));
    this.#byAvroText.set(key, codec);
    return codec;
  }
}
