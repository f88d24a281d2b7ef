/**
 * How everit's loader (which Confluent's JSON Schema provider uses) sees a JSON Schema, for the
 * backward compatibility check (`json-schema-compatibility.ts`): string, number (integer or
 * not), boolean, null, object, array, enum, const, not, combined (`allOf`/`anyOf`/`oneOf`, and a
 * `type` array as an `anyOf` of one schema per type), empty (`{}`, `true`, no type keyword) or
 * false. Local `$ref`s (`#/...`) are followed.
 */
import type { JsonNode } from '../json-text.js';

export type Kind =
  | 'string'
  | 'number'
  | 'boolean'
  | 'null'
  | 'object'
  | 'array'
  | 'enum'
  | 'const'
  | 'not'
  | 'combined'
  | 'empty'
  | 'false';

export type JsonObject = Map<string, JsonNode>;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
const COMBINATORS = ['allOf', 'anyOf', 'oneOf'] as const;
const KEYWORDS_OF: readonly (readonly [Kind, readonly string[]])[] = [
  [
    'object',
    [
      'properties',
      'required',
      'additionalProperties',
      'patternProperties',
      'dependencies',
      'minProperties',
      'maxProperties',
    ],
  ],
  ['array', ['items', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems']],
  ['string', ['minLength', 'maxLength', 'pattern']],
  ['number', ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']],
];

/** A schema as the comparison sees it. */
export interface Node {
  readonly kind: Kind;
  readonly schema: JsonObject;
  /** `combined`: the criterion and the subschemas. */
  readonly criterion?: (typeof COMBINATORS)[number];
  readonly subschemas?: readonly JsonNode[];
}

/** Follows a local `$ref` (`#/definitions/x`) from `root`; `undefined` when it cannot. */
function resolve(root: JsonNode, ref: string): JsonNode | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: JsonNode | undefined = root;
  for (const raw of ref
    .slice(1)
    .split('/')
    .filter((p) => p !== '')) {
    const part = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    node = node instanceof Map ? node.get(part) : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** How `node` (of the document `root`) is compared. */
export function classify(node: JsonNode, root: JsonNode, hops = 0): Node {
  if (node === false) return { kind: 'false', schema: new Map() };
  if (!(node instanceof Map)) return { kind: 'empty', schema: new Map() };
  const ref = node.get('$ref');
  if (typeof ref === 'string' && hops < 32) {
    const target = resolve(root, ref);
    if (target !== undefined) return classify(target, root, hops + 1);
  }
  const present = COMBINATORS.filter((c) => Array.isArray(node.get(c)));
  const type = node.get('type');
  const typed = typeof type === 'string' || Array.isArray(type);
  const kindOf = (rest: JsonObject): Kind | null =>
    KEYWORDS_OF.find(([, ks]) => ks.some((k) => rest.has(k)))?.[0] ?? null;
  if (present.length > 0) {
    const rest = new Map([...node].filter(([k]) => !COMBINATORS.includes(k as never)));
    const others = present.map((c) => new Map([[c, node.get(c) as JsonNode]]));
    if (present.length === 1 && !typed && kindOf(rest) === null) {
      const criterion = present[0] as (typeof COMBINATORS)[number];
      return {
        kind: 'combined',
        schema: node,
        criterion,
        subschemas: node.get(criterion) as JsonNode[],
      };
    }
    const parts: JsonNode[] = typed || kindOf(rest) !== null ? [rest, ...others] : others;
    return { kind: 'combined', schema: node, criterion: 'allOf', subschemas: parts };
  }
  if (Array.isArray(type)) {
    const parts = type.map((t) => new Map([...node, ['type', t]]));
    return { kind: 'combined', schema: node, criterion: 'anyOf', subschemas: parts };
  }
  if (node.has('enum')) return { kind: 'enum', schema: node };
  if (node.has('const')) return { kind: 'const', schema: node };
  if (node.has('not')) return { kind: 'not', schema: node };
  if (typeof type === 'string' && TYPES.has(type)) {
    return { kind: type === 'integer' ? 'number' : (type as Kind), schema: node };
  }
  return { kind: kindOf(node) ?? 'empty', schema: node };
}
