/**
 * Fakes shared by the error-handling tests: a manual clock whose sleep advances it, a recording
 * logger, a dead letter sink, a converter that fails its first calls.
 */
import type { ConfigDef } from '../../../../../shared/connect/config-def.js';
import type { Converter } from '../../../../../shared/connect/converter.js';
import { RetriableError } from '../../../../../shared/connect/errors.js';
import type { ReadonlyHeaders } from '../../../../../shared/connect/headers.js';
import type { PluginRegistry } from '../../../../../shared/connect/plugin.js';
import type { Schema, SchemaAndValue } from '../../../../../shared/connect/schema.js';
import { StringConverter } from '../../../../../shared/plugins/converters/string-converter.js';
import type { Clock } from '../../../../../shared/ports/clock.js';
import type { OutgoingRecord } from '../../../../../shared/ports/kafka.js';
import type { LogFields, Logger } from '../../../../../shared/ports/logger.js';
import type { DeadLetterSink } from '../../../../../shared/runtime/pipeline/dead-letter.js';

export interface FakeTime {
  readonly clock: Clock;
  /** Records the delay and moves the clock forward by it; never waits. */
  readonly sleep: (ms: number) => Promise<void>;
  readonly sleeps: number[];
  now(): number;
}

export function fakeTime(start = 1_000_000): FakeTime {
  let now = start;
  const sleeps: number[] = [];
  return {
    clock: { now: () => now },
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
    now: () => now,
  };
}

export interface LogLine {
  readonly level: 'error' | 'warn' | 'info' | 'debug';
  readonly message: string;
  readonly fields: LogFields | undefined;
}

export function recordingLogger(): Logger & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, fields });
    };
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

export function recordingSink(): DeadLetterSink & { readonly sent: OutgoingRecord[] } {
  const sent: OutgoingRecord[] = [];
  return {
    sent,
    send: async (records) => {
      sent.push(...records);
    },
  };
}

/** An operation that throws `errors[i]` on call i and returns `value` once they run out. */
export function failing<V>(errors: readonly unknown[], value: V) {
  let calls = 0;
  const operation = async (): Promise<V> => {
    const error = errors[calls];
    calls++;
    if (calls <= errors.length) throw error;
    return value;
  };
  return { operation, calls: () => calls };
}

/** An operation that always throws what `make` returns. */
export function alwaysFailing(make: () => unknown) {
  let calls = 0;
  const operation = async (): Promise<never> => {
    calls++;
    throw make();
  };
  return { operation, calls: () => calls };
}

const decoder = new TextDecoder();

/** Header values of `record` as text, by key (last wins). */
export function headerText(record: OutgoingRecord): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const h of record.headers ?? [])
    out[h.key] = h.value === null ? null : decoder.decode(h.value);
  return out;
}

export function text(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : decoder.decode(bytes);
}

/** The only element of `items`; throws when there is not exactly one. */
export function single<T>(items: readonly T[]): T {
  const [first] = items;
  if (items.length !== 1 || first === undefined) {
    throw new Error(`expected exactly one item, got ${items.length}`);
  }
  return first;
}

/** `value`, or a thrown error when it is null or undefined. */
export function present<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('expected a value');
  return value;
}

/** How a {@link FlakyConverter} fails and answers. */
export interface FlakyOptions {
  /** Answer with promises, as a converter that calls a schema registry does. @default false */
  readonly async?: boolean;
  /** The error of a failed call. @default a RetriableError */
  readonly error?: () => Error;
}

/**
 * A StringConverter whose first `failures` conversions (either way) fail with a retriable error
 * (or `options.error`): thrown, or with `options.async` rejected (its answers are then
 * promises); registered as `test.FlakyConverter` by {@link registerFlakyConverter}.
 */
export class FlakyConverter implements Converter {
  calls = 0;
  readonly #inner = new StringConverter();
  readonly #failures: number;
  readonly #options: FlakyOptions;
  constructor(failures: number, options: FlakyOptions = {}) {
    this.#failures = failures;
    this.#options = options;
  }
  configure(props: Readonly<Record<string, string>>, isKey: boolean): void {
    this.#inner.configure(props, isKey);
  }
  config(): ConfigDef {
    return this.#inner.config();
  }
  fromConnectData(
    topic: string,
    headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null | Promise<Uint8Array | null> {
    return this.#answer(() => this.#inner.fromConnectData(topic, headers, schema, value));
  }
  toConnectData(
    topic: string,
    headers: ReadonlyHeaders,
    bytes: Uint8Array | null,
  ): SchemaAndValue | Promise<SchemaAndValue> {
    return this.#answer(() => this.#inner.toConnectData(topic, headers, bytes));
  }
  #answer<T>(convert: () => T): T | Promise<T> {
    this.calls += 1;
    const failing = this.calls <= this.#failures;
    const error = () => this.#options.error?.() ?? new RetriableError('briefly unavailable');
    if (this.#options.async === true) {
      return failing ? Promise.reject(error()) : Promise.resolve().then(convert);
    }
    if (failing) throw error();
    return convert();
  }
}

/** Registers `flaky` in `plugins` as the converter class `test.FlakyConverter`. */
export function registerFlakyConverter(plugins: PluginRegistry, flaky: FlakyConverter): void {
  plugins.register({
    className: 'test.FlakyConverter',
    aliases: [],
    type: 'converter',
    version: '1',
    create: () => flaky,
  });
}
