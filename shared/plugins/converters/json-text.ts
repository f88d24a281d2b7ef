/**
 * A small JSON reader for the JSON converter (json-quote.ts writes strings as Jackson does).
 *
 * `JSON.parse` cannot be used: it loses int64 and decimal precision. The reader keeps every
 * number as its source text ({@link JsonNumber}), objects as insertion-ordered `Map`s (a
 * repeated key keeps its first position and its last value, as Jackson's `ObjectNode` does).
 * One member of a top-level object can be deferred: only delimited and returned as text, so
 * the converter can look its schema up in a cache by that text before parsing it.
 */
import { DataError } from 'serverless-connect/connect';

/** A JSON number, kept as written. `integral` when it has neither a fraction nor an exponent. */
export class JsonNumber {
  constructor(
    readonly text: string,
    readonly integral: boolean,
  ) {}
}

/** A parsed JSON value. Objects are `Map`s; numbers are {@link JsonNumber}s. */
export type JsonNode = null | boolean | string | JsonNumber | JsonNode[] | Map<string, JsonNode>;

/** Jackson's name for the kind of a node, used in Connect's error messages. */
export function nodeType(node: JsonNode | undefined): string {
  if (node === undefined) return 'MISSING';
  if (node === null) return 'NULL';
  if (typeof node === 'boolean') return 'BOOLEAN';
  if (typeof node === 'string') return 'STRING';
  if (node instanceof JsonNumber) return 'NUMBER';
  if (Array.isArray(node)) return 'ARRAY';
  return 'OBJECT';
}

/** A top-level member to return as text instead of parsing it. */
export interface DeferredMember {
  readonly key: string;
  /**
   * The text the member most likely has (e.g. the last schema seen): when the input has it
   * at that place, it is taken without scanning. It must be a complete JSON value.
   */
  readonly expected?: string | undefined;
}

/** A parsed document: `root` is `undefined` for empty input (Jackson's missing node). */
export interface ParsedJson {
  readonly root: JsonNode | undefined;
  /**
   * True when the text is exactly what the JSON converter writes for the schemaless value it
   * reads as (json-encode.ts): no whitespace outside strings, no escapes, no surrogates (which
   * the writer escapes), integers only (not `-0`) and no repeated keys. The bytes can then stand
   * for that value's serialised form.
   */
  readonly canonical: boolean;
  /**
   * The text of the deferred top-level member, when the root is an object that has it. Its
   * value in `root` is a placeholder `null`; parse the text with {@link parseJsonText}.
   */
  readonly deferred: string | undefined;
}

/** Jackson's default read constraints (`StreamReadConstraints`). */
const MAX_DEPTH = 1000;
const MAX_NUMBER_LENGTH = 1000;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function fail(text: string, at: number, what: string): never {
  const shown = at >= text.length ? 'end of input' : JSON.stringify(text.charAt(at));
  throw new DataError(
    `Converting byte[] to Kafka Connect data failed due to serialization error: ${what} (found ${shown} at position ${at})`,
  );
}

class Reader {
  pos = 0;
  deferred: string | undefined;
  /** See {@link ParsedJson.canonical}: cleared by whatever the writer would write otherwise. */
  canonical = true;

  constructor(
    readonly text: string,
    readonly defer: DeferredMember | undefined = undefined,
  ) {}

  skipWhitespace(): void {
    const t = this.text;
    let p = this.pos;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else break;
    }
    if (p !== this.pos) this.canonical = false;
    this.pos = p;
  }

  value(depth: number): JsonNode {
    if (depth > MAX_DEPTH) fail(this.text, this.pos, `nesting deeper than ${MAX_DEPTH} levels`);
    this.skipWhitespace();
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    switch (c) {
      case 0x7b: // {
        return this.object(depth);
      case 0x5b: // [
        return this.array(depth);
      case 0x22: // "
        return this.string();
      case 0x74: // t
        return this.literal('true', true);
      case 0x66: // f
        return this.literal('false', false);
      case 0x6e: // n
        return this.literal('null', null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
        return fail(t, this.pos, 'unexpected character, expected a JSON value');
    }
  }

  literal<T extends JsonNode>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) fail(this.text, this.pos, `expected '${word}'`);
    this.pos += word.length;
    return value;
  }

  object(depth: number): Map<string, JsonNode> {
    const t = this.text;
    const out = new Map<string, JsonNode>();
    this.pos++;
    this.skipWhitespace();
    if (t.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      if (t.charCodeAt(this.pos) !== 0x22) fail(t, this.pos, 'expected a field name');
      const key = this.string();
      this.skipWhitespace();
      if (t.charCodeAt(this.pos) !== 0x3a) fail(t, this.pos, "expected ':'");
      this.pos++;
      this.skipWhitespace();
      const size = out.size;
      if (depth === 0 && key === this.defer?.key) {
        this.deferred = this.deferValue(this.defer.expected);
        this.canonical = false;
        out.set(key, null);
      } else {
        out.set(key, this.value(depth + 1));
      }
      // A repeated key keeps one entry: the writer would write it once.
      if (out.size === size) this.canonical = false;
      this.skipWhitespace();
      const c = t.charCodeAt(this.pos++);
      if (c === 0x7d) return out;
      if (c !== 0x2c) fail(t, this.pos - 1, "expected ',' or '}'");
    }
  }

  array(depth: number): JsonNode[] {
    const t = this.text;
    const out: JsonNode[] = [];
    this.pos++;
    this.skipWhitespace();
    if (t.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.skipWhitespace();
      const c = t.charCodeAt(this.pos++);
      if (c === 0x5d) return out;
      if (c !== 0x2c) fail(t, this.pos - 1, "expected ',' or ']'");
    }
  }

  /** The text of the value here, moving past it; `expected` is checked first, cheaply. */
  deferValue(expected: string | undefined): string {
    const t = this.text;
    const start = this.pos;
    if (expected !== undefined && t.startsWith(expected, start)) {
      const after = t.charCodeAt(start + expected.length);
      // A complete value followed by a delimiter is exactly that value.
      if (after === 0x2c || after === 0x7d || after <= 0x20) {
        this.pos = start + expected.length;
        return expected;
      }
    }
    this.skipValue();
    return t.slice(start, this.pos);
  }

  /**
   * Moves past one value without building it: strings and brackets are matched, nothing else
   * is checked (the deferred text is parsed, or matched to text parsed before, later).
   */
  skipValue(): void {
    const t = this.text;
    let p = this.pos;
    const first = t.charCodeAt(p);
    if (first === 0x22) {
      p = this.afterString(p);
    } else if (first === 0x7b || first === 0x5b) {
      let depth = 0;
      do {
        const c = t.charCodeAt(p);
        if (Number.isNaN(c)) fail(t, p, 'unexpected end of input');
        if (c === 0x22) {
          p = this.afterString(p);
          continue;
        }
        if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) depth--;
        p++;
      } while (depth > 0);
    } else {
      for (;;) {
        const c = t.charCodeAt(p);
        if (Number.isNaN(c) || c === 0x2c || c === 0x7d || c === 0x5d || c <= 0x20) break;
        p++;
      }
    }
    if (p === this.pos) fail(t, p, 'expected a JSON value');
    this.pos = p;
  }

  /** The position after the string starting at `p` (its opening quote). */
  afterString(p: number): number {
    const t = this.text;
    let i = p + 1;
    for (;;) {
      const c = t.charCodeAt(i);
      if (Number.isNaN(c)) fail(t, i, 'unterminated string');
      if (c === 0x22) return i + 1;
      i += c === 0x5c ? 2 : 1;
    }
  }

  string(): string {
    const t = this.text;
    const start = ++this.pos;
    // Fast path: no escapes.
    let p = start;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        this.pos = p + 1;
        return t.slice(start, p);
      }
      if (c === 0x5c || c < 0x20 || Number.isNaN(c)) break;
      // The writer escapes each half of a surrogate pair.
      if (c >= 0xd800 && c <= 0xdfff) this.canonical = false;
      p++;
    }
    this.canonical = false;
    let out = '';
    let chunk = start;
    for (;;) {
      const c = t.charCodeAt(p);
      if (Number.isNaN(c)) fail(t, p, 'unterminated string');
      if (c === 0x22) {
        this.pos = p + 1;
        return out + t.slice(chunk, p);
      }
      if (c < 0x20) fail(t, p, 'unescaped control character in a string');
      if (c !== 0x5c) {
        p++;
        continue;
      }
      out += t.slice(chunk, p) + this.escape(p);
      p += t.charCodeAt(p + 1) === 0x75 ? 6 : 2;
      chunk = p;
    }
  }

  /** The character of the escape sequence at `p` (a backslash). */
  escape(p: number): string {
    const t = this.text;
    const e = t.charAt(p + 1);
    switch (e) {
      case '"':
      case '\\':
      case '/':
        return e;
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        const hex = t.slice(p + 2, p + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(t, p, 'invalid \\u escape');
        return String.fromCharCode(Number.parseInt(hex, 16));
      }
      default:
        return fail(t, p, 'invalid escape');
    }
  }

  number(): JsonNumber {
    const t = this.text;
    const start = this.pos;
    let p = start;
    let integral = true;
    if (t.charCodeAt(p) === 0x2d) p++;
    if (t.charCodeAt(p) === 0x30) {
      p++;
    } else if (isDigit(t.charCodeAt(p))) {
      while (isDigit(t.charCodeAt(p))) p++;
    } else {
      fail(t, p, 'invalid number');
    }
    if (t.charCodeAt(p) === 0x2e) {
      integral = false;
      p++;
      if (!isDigit(t.charCodeAt(p))) fail(t, p, 'expected a digit after the decimal point');
      while (isDigit(t.charCodeAt(p))) p++;
    }
    const e = t.charCodeAt(p);
    if (e === 0x65 || e === 0x45) {
      integral = false;
      p++;
      const sign = t.charCodeAt(p);
      if (sign === 0x2b || sign === 0x2d) p++;
      if (!isDigit(t.charCodeAt(p))) fail(t, p, 'expected a digit in the exponent');
      while (isDigit(t.charCodeAt(p))) p++;
    }
    if (isDigit(t.charCodeAt(p))) fail(t, p, 'leading zeroes are not allowed');
    if (p - start > MAX_NUMBER_LENGTH) {
      fail(t, start, `number longer than ${MAX_NUMBER_LENGTH} characters`);
    }
    this.pos = p;
    const text = t.slice(start, p);
    // The writer writes other numbers in Java's form (`1.5E10`), and `-0` as `0`.
    if (!integral || text === '-0') this.canonical = false;
    return new JsonNumber(text, integral);
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * Parses UTF-8 JSON bytes. Throws DataError for invalid UTF-8, malformed JSON or trailing
 * content. Empty (or all-whitespace) input gives `root: undefined`. `defer` names a
 * top-level member to return as text instead of parsing it (see {@link ParsedJson}).
 */
export function parseJson(bytes: Uint8Array, defer?: DeferredMember): ParsedJson {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch (error) {
    throw new DataError(
      'Converting byte[] to Kafka Connect data failed due to serialization error: invalid UTF-8',
      { cause: error },
    );
  }
  const reader = new Reader(text, defer);
  const root = readDocument(reader);
  return { root, deferred: reader.deferred, canonical: reader.canonical };
}

/** Parses JSON text (see {@link parseJson}); `undefined` for empty input. */
export function parseJsonText(text: string): JsonNode | undefined {
  return readDocument(new Reader(text));
}

function readDocument(reader: Reader): JsonNode | undefined {
  const text = reader.text;
  reader.skipWhitespace();
  if (reader.pos >= text.length) return undefined;
  const root = reader.value(0);
  reader.skipWhitespace();
  if (reader.pos < text.length) fail(text, reader.pos, 'unexpected content after the JSON value');
  return root;
}
