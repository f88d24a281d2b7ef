/**
 * The standard {@link Validator}s of Kafka's `ConfigDef`, with Kafka's messages and the
 * `toString` descriptions Connect shows in docs (e.g. `Range.atLeast(1)` prints `[1,...]`).
 * Each receives the parsed value, which is `null` when the key was null, missing or unparsable.
 */
import { invalidValue, type Validator } from './config-def.js';

function asNumber(value: number | bigint): number {
  return Number(value);
}

/** Inclusive numeric bounds (Kafka's `Range`). `null` fails with "Value must be non-null". */
export class Range implements Validator {
  private constructor(
    readonly min: number | bigint | undefined,
    readonly max: number | bigint | undefined,
  ) {}

  static atLeast(min: number | bigint): Range {
    return new Range(min, undefined);
  }

  static between(min: number | bigint, max: number | bigint): Range {
    return new Range(min, max);
  }

  ensureValid(name: string, value: unknown): void {
    if (value === null || value === undefined)
      throw invalidValue(name, null, 'Value must be non-null');
    if (typeof value !== 'number' && typeof value !== 'bigint') {
      throw invalidValue(name, value, 'Value must be a number');
    }
    const n = asNumber(value);
    if (this.min !== undefined && n < asNumber(this.min)) {
      throw invalidValue(name, value, `Value must be at least ${this.min}`);
    }
    if (this.max !== undefined && n > asNumber(this.max)) {
      throw invalidValue(name, value, `Value must be no more than ${this.max}`);
    }
  }

  toString(): string {
    if (this.min === undefined && this.max === undefined) return '[...]';
    if (this.min === undefined) return `[...,${this.max}]`;
    if (this.max === undefined) return `[${this.min},...]`;
    return `[${this.min},...,${this.max}]`;
  }
}

/** The value must be exactly one of the given strings (Kafka's `ValidString`, case-sensitive). */
export class ValidString implements Validator {
  private constructor(readonly validStrings: readonly string[]) {}

  static in(...validStrings: string[]): ValidString {
    return new ValidString(validStrings);
  }

  ensureValid(name: string, value: unknown): void {
    if (typeof value !== 'string' || !this.validStrings.includes(value)) {
      throw invalidValue(name, value, `String must be one of: ${this.validStrings.join(', ')}`);
    }
  }

  toString(): string {
    return `[${this.validStrings.join(', ')}]`;
  }
}

/** Every list item must be one of the given strings (Kafka's `ValidList`). */
export class ValidList implements Validator {
  readonly #validString: ValidString;

  private constructor(validStrings: string[]) {
    this.#validString = ValidString.in(...validStrings);
  }

  static in(...validStrings: string[]): ValidList {
    return new ValidList(validStrings);
  }

  ensureValid(name: string, value: unknown): void {
    if (!Array.isArray(value)) throw invalidValue(name, value, 'Expected a comma separated list.');
    for (const item of value) this.#validString.ensureValid(name, item);
  }

  toString(): string {
    return this.#validString.toString();
  }
}

/** One of the given strings, ignoring case (Kafka's `CaseInsensitiveValidString`). */
export class CaseInsensitiveValidString implements Validator {
  readonly #upper: readonly string[];

  private constructor(validStrings: string[]) {
    this.#upper = [...new Set(validStrings.map((s) => s.toUpperCase()))];
  }

  static in(...validStrings: string[]): CaseInsensitiveValidString {
    return new CaseInsensitiveValidString(validStrings);
  }

  ensureValid(name: string, value: unknown): void {
    if (typeof value !== 'string' || !this.#upper.includes(value.toUpperCase())) {
      throw invalidValue(
        name,
        value,
        `String must be one of (case insensitive): ${this.#upper.join(', ')}`,
      );
    }
  }

  toString(): string {
    return `(case insensitive) [${this.#upper.join(', ')}]`;
  }
}

/** The value must not be null (Kafka's `NonNullValidator`). */
export class NonNullValidator implements Validator {
  ensureValid(name: string, value: unknown): void {
    if (value === null || value === undefined)
      throw invalidValue(name, null, 'entry must be non null');
  }

  toString(): string {
    return 'non-null string';
  }
}

/** A string must not be empty; `null` passes (Kafka's `NonEmptyString`). */
export class NonEmptyString implements Validator {
  ensureValid(name: string, value: unknown): void {
    if (value === '') throw invalidValue(name, value, 'String must be non-empty');
  }

  toString(): string {
    return 'non-empty string';
  }
}

function isIsoControl(codePoint: number): boolean {
  return codePoint <= 0x1f || (codePoint >= 0x7f && codePoint <= 0x9f);
}

/** Non-empty and free of ISO control characters; `null` passes (used by the `name` key). */
export class NonEmptyStringWithoutControlChars implements Validator {
  ensureValid(name: string, value: unknown): void {
    if (value === null || value === undefined) return;
    if (value === '') throw invalidValue(name, value, 'String may not be empty');
    if (typeof value !== 'string') return;
    const found: number[] = [];
    for (let i = 0; i < value.length; i++) {
      const codePoint = value.codePointAt(i) ?? 0;
      if (isIsoControl(codePoint)) found.push(codePoint);
    }
    if (found.length > 0) {
      throw invalidValue(
        name,
        value,
        `String may not contain control sequences but had the following ASCII chars: ${found.join(', ')}`,
      );
    }
  }

  toString(): string {
    return 'non-empty string without ISO control characters';
  }
}

/** At most `maxSize` list items (Kafka's `ListSize`). */
export class ListSize implements Validator {
  private constructor(readonly maxSize: number) {}

  static atMostOfSize(maxSize: number): ListSize {
    return new ListSize(maxSize);
  }

  ensureValid(name: string, value: unknown): void {
    if (Array.isArray(value) && value.length > this.maxSize) {
      throw invalidValue(name, value, `exceeds maximum list size of [${this.maxSize}].`);
    }
  }

  toString(): string {
    return `List containing maximum of ${this.maxSize} elements`;
  }
}

/** Runs validators in order; the first failure wins (Kafka's `CompositeValidator`). */
export class CompositeValidator implements Validator {
  private constructor(readonly validators: readonly Validator[]) {}

  static of(...validators: Validator[]): CompositeValidator {
    return new CompositeValidator(validators);
  }

  ensureValid(name: string, value: unknown): void {
    for (const validator of this.validators) validator.ensureValid(name, value);
  }

  toString(): string {
    return this.validators.map((v) => v.toString()).join(', ');
  }
}

/** A validator from two functions (Kafka's `LambdaValidator`). */
export class LambdaValidator implements Validator {
  private constructor(
    readonly check: (name: string, value: unknown) => void,
    readonly describe: () => string,
  ) {}

  static with(
    check: (name: string, value: unknown) => void,
    describe: () => string,
  ): LambdaValidator {
    return new LambdaValidator(check, describe);
  }

  ensureValid(name: string, value: unknown): void {
    this.check(name, value);
  }

  toString(): string {
    return this.describe();
  }
}

/**
 * Compiles `pattern` as Kafka compiles a `java.util.regex.Pattern` and matches like
 * `Matcher.matches()` (the whole input). JavaScript's dialect is used: Java-only syntax
 * (possessive quantifiers, `\p{Alpha}`-style classes) is rejected as invalid.
 */
export function compileFullMatch(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`);
}

function regexError(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    compileFullMatch(pattern);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The value must be a valid regular expression (Connect's `RegexValidator`). */
export class RegexValidator implements Validator {
  ensureValid(name: string, value: unknown): void {
    const problem = typeof value === 'string' ? regexError(value) : 'null';
    if (problem !== undefined) throw invalidValue(name, value, `Invalid regex: ${problem}`);
  }

  toString(): string {
    return 'valid regex';
  }
}

/** Every item of a list must be a valid regular expression (topic creation include/exclude). */
export class RegexListValidator implements Validator {
  ensureValid(name: string, value: unknown): void {
    if (!Array.isArray(value)) return;
    for (const item of value) {
      const problem = regexError(String(item));
      if (problem !== undefined) {
        throw invalidValue(name, value, `Syntax error in regular expression: ${problem}`);
      }
    }
  }

  toString(): string {
    return 'list of valid regular expressions';
  }
}

/**
 * The whole string must match `pattern` (a `Pattern`-like check, as many connectors declare
 * with a custom validator). `null` passes; combine with {@link NonNullValidator} to forbid it.
 */
export class PatternValidator implements Validator {
  readonly #regex: RegExp;

  private constructor(
    readonly pattern: string,
    readonly description: string,
  ) {
    this.#regex = compileFullMatch(pattern);
  }

  static matching(pattern: string, description?: string): PatternValidator {
    return new PatternValidator(pattern, description ?? `string matching ${pattern}`);
  }

  ensureValid(name: string, value: unknown): void {
    if (value === null || value === undefined) return;
    if (typeof value !== 'string' || !this.#regex.test(value)) {
      throw invalidValue(name, value, `String must match the pattern ${this.pattern}`);
    }
  }

  toString(): string {
    return this.description;
  }
}

/**
 * Non-null list of unique items, e.g. `transforms` aliases ("Duplicate alias provided.");
 * described as `non-null string, unique <what>`.
 */
export function uniqueAliases(what: string): CompositeValidator {
  return CompositeValidator.of(
    new NonNullValidator(),
    LambdaValidator.with(
      (name, value) => {
        if (Array.isArray(value) && new Set(value).size < value.length) {
          throw invalidValue(name, value, 'Duplicate alias provided.');
        }
      },
      () => `unique ${what}`,
    ),
  );
}
