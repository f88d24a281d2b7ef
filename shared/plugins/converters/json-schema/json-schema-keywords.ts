/**
 * The names Confluent's `JsonSchemaData` writes into JSON Schemas and Connect schemas: the
 * `connect.*` keywords that carry what JSON Schema cannot say (Connect's integer and float
 * widths, bytes, maps, field order, versions, parameters), and the names of the Connect schemas
 * that stand for JSON Schema's enums and `oneOf`s.
 */

export const NAMESPACE = 'io.confluent.connect.json';

/** The Connect type of a number, a string holding bytes, or an object or array holding a map. */
export const CONNECT_TYPE = 'connect.type';
export const CONNECT_VERSION = 'connect.version';
export const CONNECT_PARAMETERS = 'connect.parameters';
/** A struct field's (or a map entry member's) position. */
export const CONNECT_INDEX = 'connect.index';

export const CONNECT_TYPE_MAP = 'map';
export const CONNECT_TYPE_BYTES = 'bytes';

/** A map entry's members when keys are not (required) strings: `[{"key": k, "value": v}]`. */
export const KEY_FIELD = 'key';
export const VALUE_FIELD = 'value';

/** The parameter marking a string schema as a JSON enum; `<prefix>.<symbol>` lists the symbols. */
export const JSON_TYPE_ENUM = `${NAMESPACE}.Enum`;
export const JSON_TYPE_ENUM_PREFIX = `${JSON_TYPE_ENUM}.`;
/** The enum symbol standing for JSON `null`. */
export const NULL_MARKER = '<NULL>';
/** The name of a struct standing for a `oneOf` (one optional field per branch). */
export const JSON_TYPE_ONE_OF = `${NAMESPACE}.OneOf`;
/** The name of branch `i` of a `oneOf` struct. */
export const oneOfField = (i: number) => `${JSON_TYPE_ONE_OF}.field.${i}`;
