/**
 * The Connect ↔ Protobuf mapping with its caches (Confluent's `ProtobufData`), synchronous:
 * a writer per Connect schema (the .proto text to register, the message's indexes, an
 * encoder), the registry's .proto texts parsed once, a reader per (schema, message, version).
 * Framing and the registry are the converter's (`protobuf-converter.ts`).
 *
 * @example
 * const data = new ProtobufData({ ...DEFAULT_PROTOBUF_DATA_OPTIONS, cacheSize: 1000 });
 * const writer = data.forConnectSchema(schema);     // writer.schemaText, writer.indexes
 * const payload = writer.encode(struct);
 * const parsed = data.parse('7', textFromRegistry, new Map());
 * const reader = data.reader(parsed, parsed.messageName([0]), 1);
 * reader.connectSchema; reader.decode(payload);
 */
import type { Type } from 'protobufjs';
import { DataError, type Schema } from 'serverless-connect/connect';
import { LruCache } from '../lru-cache.js';
import { writerProtoOf } from './from-connect-schema.js';
import { type ParsedProto, parseProto } from './proto-root.js';
import type { ProtobufDataOptions } from './protobuf-data-options.js';
import { toConnectSchema } from './to-connect-schema.js';
import { compileToConnect } from './to-connect-value.js';
import { compileToProtobuf } from './to-protobuf-value.js';

/** How Connect values of one schema are written. */
export interface ProtobufWriter {
  /** The .proto text to register (Confluent's `canonicalString()` of the schema). */
  readonly schemaText: string;
  /** The full name of the message (RecordNameStrategy's subject). */
  readonly messageName: string;
  /** The message's indexes in the text, for the wire format. */
  readonly indexes: readonly number[];
  /** The Protobuf payload of `value` (not framed). @throws DataError when it does not fit. */
  encode(value: unknown): Uint8Array;
}

/** How the payloads of one message of one registry schema are read. */
export interface ProtobufReader {
  readonly connectSchema: Schema;
  /** The Connect value of a payload. @throws DataError for bytes that are not the message. */
  decode(payload: Uint8Array): unknown;
}

export interface ProtobufDataSettings extends ProtobufDataOptions {
  /** `schemas.cache.size`: the bound on each cache. */
  readonly cacheSize: number;
}

function encoderOf(type: Type, schema: Schema, options: ProtobufDataSettings) {
  const toProtobuf = compileToProtobuf(schema, type, options.scrubInvalidNames);
  return (value: unknown): Uint8Array => {
    const object = toProtobuf(value);
    try {
      return type.encode(object).finish();
    } catch (error) {
      throw new DataError(`Cannot encode ${type.name}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };
}

/** Confluent's `ProtobufData`: both directions of the mapping, cached. */
export class ProtobufData {
  readonly #options: ProtobufDataSettings;
  readonly #writers: LruCache<Schema, ProtobufWriter>;
  readonly #parsed: LruCache<string, ParsedProto>;
  readonly #readers: LruCache<string, ProtobufReader>;
  /** Per Connect schema, the writers as messages of registry schemas. */
  readonly #foreignWriters = new WeakMap<Schema, LruCache<string, ProtobufWriter>>();

  constructor(options: ProtobufDataSettings) {
    this.#options = options;
    this.#writers = new LruCache(options.cacheSize);
    this.#parsed = new LruCache(options.cacheSize);
    this.#readers = new LruCache(options.cacheSize);
  }

  /** The writer of values of Connect schema `schema` with the schema Connect's mapping gives. */
  forConnectSchema(schema: Schema): ProtobufWriter {
    const cached = this.#writers.get(schema);
    if (cached !== undefined) return cached;
    const proto = writerProtoOf(schema, this.#options);
    const parsed = parseProto(proto.text, new Map());
    const writer: ProtobufWriter = {
      schemaText: proto.text,
      messageName: proto.messageName,
      indexes: parsed.indexesOf(proto.messageName),
      encode: encoderOf(parsed.type(proto.messageName), schema, this.#options),
    };
    this.#writers.set(schema, writer);
    return writer;
  }

  /** The schema parsed under `key`, if it still is in the cache. */
  parsed(key: string): ParsedProto | undefined {
    return this.#parsed.get(key);
  }

  /**
   * The registry schema `text` (with its imports' texts) parsed, cached under `key` (the
   * registry's id): parse a schema once per container.
   */
  parse(key: string, text: string, dependencies: ReadonlyMap<string, string>): ParsedProto {
    const cached = this.#parsed.get(key);
    if (cached !== undefined) return cached;
    const parsed = parseProto(text, dependencies);
    this.#parsed.set(key, parsed);
    return parsed;
  }

  /**
   * The writer of values of Connect schema `schema` as message `messageName` of another
   * schema (`use.latest.version`): fields are matched by name. Cached under `key`.
   */
  writerFor(key: string, parsed: ParsedProto, messageName: string, schema: Schema): ProtobufWriter {
    const cacheKey = `${key}\0${messageName}`;
    let writers = this.#foreignWriters.get(schema);
    const cached = writers?.get(cacheKey);
    if (cached !== undefined) return cached;
    const writer: ProtobufWriter = {
      schemaText: '',
      messageName,
      indexes: parsed.indexesOf(messageName),
      encode: encoderOf(parsed.type(messageName), schema, this.#options),
    };
    writers ??= new LruCache(16);
    this.#foreignWriters.set(schema, writers);
    writers.set(cacheKey, writer);
    return writer;
  }

  /** The reader of message `messageName` of `parsed` (cached under `key`, the registry id). */
  reader(
    key: string,
    parsed: ParsedProto,
    messageName: string,
    version: number | null,
  ): ProtobufReader {
    const cacheKey = `${key}\0${messageName}\0${version ?? ''}`;
    const cached = this.#readers.get(cacheKey);
    if (cached !== undefined) return cached;
    const type = parsed.type(messageName);
    const connectSchema = toConnectSchema(type, version, this.#options);
    const toConnect = compileToConnect(type, connectSchema, this.#options);
    const reader: ProtobufReader = {
      connectSchema,
      decode: (payload) => {
        let message: ReturnType<Type['decode']>;
        try {
          message = type.decode(payload);
        } catch (error) {
          throw new DataError(
            `Cannot read the payload as Protobuf message ${messageName}: ${(error as Error).message}`,
            { cause: error },
          );
        }
        return toConnect(message);
      },
    };
    this.#readers.set(cacheKey, reader);
    return reader;
  }
}
