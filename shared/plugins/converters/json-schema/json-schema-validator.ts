/**
 * Validates JSON payloads against their JSON Schema (`json.fail.invalid.schema`), through ajv
 * 8.20.0 (MIT; the JSON Schema validator most used from JavaScript; ~122 KB minified with its
 * four small dependencies). Confluent validates with everit; the two follow the same drafts for
 * what Connect's schemas use (types, properties, `oneOf`, `enum`, `items`, `additionalProperties`).
 *
 * ajv compiles each schema to a function once; the compiled validators are kept per schema
 * text in a bounded cache (`schemas.cache.size`), and ajv's own reference to a schema is dropped
 * when the cache lets it go. Unknown keywords (`connect.index`, ...) are ignored, as are formats
 * (`date-time`, `email`: ajv checks them only with the separate ajv-formats package) and the
 * `$schema` draft (draft-07's rules apply).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { DataError } from 'serverless-connect/connect';
import { LruCache } from '../lru-cache.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export class JsonSchemaValidator {
  readonly #ajv = new Ajv({
    strict: false,
    allErrors: false,
    validateSchema: false,
    validateFormats: false,
    logger: false,
  });
  readonly #validators: LruCache<string, ValidateFunction>;

  constructor(cacheSize: number) {
    this.#validators = new LruCache(cacheSize, (_text, validate) => {
      this.#ajv.removeSchema(validate.schema as object);
    });
  }

  /**
   * Throws DataError when the JSON `payload` (text or UTF-8 bytes) does not match the JSON
   * Schema `schemaText`, naming where and why (`$.qty must be <= 10`).
   */
  check(schemaText: string, payload: string | Uint8Array): void {
    const validate = this.#validator(schemaText);
    let value: unknown;
    try {
      value = JSON.parse(typeof payload === 'string' ? payload : UTF8.decode(payload));
    } catch (error) {
      throw new DataError('JSON does not match schema of type JSON: not JSON', { cause: error });
    }
    const valid = validate(value);
    // Nothing is cached with schemas.cache.size=0: ajv must not keep the schema either.
    if (this.#validators.capacity < 1) this.#ajv.removeSchema(validate.schema as object);
    if (!valid) {
      const report = this.#ajv.errorsText(validate.errors, { dataVar: '$' });
      throw new DataError(`Validation error in JSON: ${report}`);
    }
  }

  #validator(schemaText: string): ValidateFunction {
    const cached = this.#validators.get(schemaText);
    if (cached !== undefined) return cached;
    let validate: ValidateFunction;
    try {
      validate = this.#ajv.compile(JSON.parse(schemaText) as object);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new DataError(`Invalid JSON schema: ${reason}`, { cause: error });
    }
    this.#validators.set(schemaText, validate);
    return validate;
  }
}
