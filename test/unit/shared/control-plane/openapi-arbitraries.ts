/**
 * fast-check arbitraries of REST requests generated from the OpenAPI description: a path and
 * method of the document (or a wrong one), parameters mixing known names with arbitrary
 * strings, and bodies following the operation's schema, mutated, or arbitrary JSON and text.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { openApiDocument } from '../../../../shared/control-plane/openapi.js';
import type { HttpResponse } from '../../../../shared/control-plane/router.js';

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string[]>;
  readonly body: string | undefined;
}

type Schema = Readonly<Record<string, unknown>>;

const components = openApiDocument.components as unknown as {
  readonly schemas: Readonly<Record<string, Schema>>;
  readonly parameters: Readonly<Record<string, Schema>>;
};

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const [, , kind, name] = ref.split('/');
  const target =
    kind === 'schemas' ? components.schemas[name ?? ''] : components.parameters[name ?? ''];
  if (target === undefined) throw new Error(`unresolved ${ref}`);
  return target;
}

/** Config keys and values that reach past the first validation step. */
const CONFIG_KEYS = [
  'connector.class',
  'name',
  'tasks.max',
  'topics',
  'topics.regex',
  'kafka.topic',
  'errors.tolerance',
  'errors.deadletterqueue.topic.name',
  'transforms',
  'transforms.t.type',
  'predicates',
  'key.converter',
  'exactly.once.support',
  'transaction.boundary',
  'secret.token',
  '__proto__',
  '',
];
const CONFIG_VALUES = [
  'test-sink',
  'datagen',
  'dev.test.TestSinkConnector',
  'InsertField$Value',
  'orders',
  '1',
  '0',
  '-1',
  'all',
  'required',
  'connector',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a config placeholder, not a template
  '${env:HOME}',
  't',
  '',
];

const anyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
);
const scalar = fc.oneof(
  anyString,
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
);

const randomConfig = fc.dictionary(
  fc.oneof(fc.constantFrom(...CONFIG_KEYS), anyString),
  fc.oneof(fc.constantFrom(...CONFIG_VALUES), scalar),
  { maxKeys: 8 },
);

/** Valid configs (sometimes with a random change), so writes get past validation too. */
const validConfig = fc
  .tuple(
    fc.constantFrom(
      { 'connector.class': 'test-sink', topics: 'orders' },
      { 'connector.class': 'datagen', 'kafka.topic': 'out' },
    ),
    fc.option(randomConfig, { nil: undefined, freq: 2 }),
  )
  .map(([base, extra]) => ({ ...base, ...extra }));

const configMap = fc.oneof(validConfig, randomConfig);

const offsetsBody = fc.record(
  {
    offsets: fc.array(
      fc.record(
        {
          partition: fc.oneof(
            fc.record({
              kafka_topic: fc.oneof(fc.constantFrom('orders', 'a b', ''), scalar),
              kafka_partition: fc.oneof(fc.constantFrom('0', '1', 'abc', -1), scalar),
            }),
            fc.dictionary(anyString, fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 })), {
              maxKeys: 3,
            }),
            fc.constant(null),
          ),
          offset: fc.oneof(
            fc.record({ kafka_offset: fc.oneof(fc.constantFrom('5', 0, -3, 'x'), scalar) }),
            fc.dictionary(anyString, scalar, { maxKeys: 2 }),
            fc.constant(null),
            fc.constant({}),
          ),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: [] },
);

/** Values following `schema` (depth-limited), sometimes breaking it. */
function fromSchema(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (s === components.schemas.ConfigInput) return configMap;
  if (s === components.schemas.ConnectorOffsets) return offsetsBody;
  if (depth > 4) return scalar;
  if (Array.isArray(s.oneOf))
    return fc.oneof(...(s.oneOf as Schema[]).map((o) => fromSchema(o, depth + 1)));
  if (Array.isArray(s.enum)) return fc.oneof(fc.constantFrom(...(s.enum as unknown[])), anyString);
  const types = Array.isArray(s.type) ? (s.type as string[]) : [String(s.type)];
  return fc.oneof(...types.map((type) => fromType(s, type, depth)));
}

function fromType(s: Schema, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return anyString;
    case 'integer':
      return fc.integer();
    case 'number':
      return fc.double({ noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema((s.items ?? {}) as Schema, depth + 1), { maxLength: 4 });
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const record = fc.record(
        Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromSchema(v, depth + 1)])),
        { requiredKeys: [] },
      );
      const extra = fc.dictionary(anyString, scalar, { maxKeys: 2 });
      return fc
        .tuple(record, extra, fc.boolean())
        .map(([r, e, addExtra]) => (addExtra ? { ...e, ...r } : r));
    }
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

function paramValue(name: string, names: readonly string[]): fc.Arbitrary<string> {
  const known: Record<string, readonly string[]> = {
    connector: names,
    task: ['0', '1', '99', '-1', 'abc', '2147483648'],
    plugin: ['test-sink', 'datagen', 'InsertField$Value', 'TestSinkConnector', 'Nope'],
    logger: ['root', 'a.b', 'org.apache.kafka'],
  };
  const encoded = fc
    .oneof(
      fc.constantFrom(...(known[name] ?? ['x'])),
      anyString,
      fc.string({ minLength: 1000, maxLength: 1100 }),
    )
    .filter((v) => !/\p{Cs}/u.test(v))
    .map((v) => encodeURIComponent(v));
  return fc.oneof(
    { weight: 8, arbitrary: encoded },
    fc.constantFrom('%', '%zz', '%ED%A0%80', '..', ''),
  );
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** One request: an operation of the document (most of the time) or a wrong method. */
export function requestArbitrary(names: readonly string[]): fc.Arbitrary<FuzzRequest> {
  const operations = Object.entries(
    openApiDocument.paths as unknown as Record<string, Schema>,
  ).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([key]) => (METHODS as readonly string[]).includes(key.toUpperCase()))
      .map(([method, op]) => ({ path, method: method.toUpperCase(), op: op as Schema })),
  );
  return fc
    .tuple(
      fc.constantFrom(...operations),
      fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS, 'HEAD', 'OPTIONS') },
      ),
    )
    .chain(([operation, wrongMethod]) => {
      const params = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
      const queryParams = ((operation.op.parameters ?? []) as Schema[]).map(resolve);
      const requestBody = operation.op.requestBody as
        | { content: { 'application/json': { schema: Schema } } }
        | undefined;
      const bodyArb: fc.Arbitrary<string | undefined> =
        requestBody === undefined
          ? fc.option(fc.string(), { nil: undefined, freq: 4 })
          : fc.oneof(
              {
                weight: 6,
                arbitrary: fromSchema(requestBody.content['application/json'].schema).map((v) =>
                  JSON.stringify(v),
                ),
              },
              { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
              { weight: 1, arbitrary: fc.string() },
              { weight: 1, arbitrary: fc.constant(undefined) },
            );
      return fc.record({
        method: fc.constant(wrongMethod ?? operation.method),
        path: fc.tuple(...params.map((p) => paramValue(p, names))).map((values) => {
          let i = 0;
          return operation.path.replace(/\{\w+\}/g, () => values[i++] ?? '');
        }),
        query: fc
          .tuple(
            ...queryParams.map((p) =>
              fc.option(
                fc.array(fc.oneof(fromSchema((p.schema ?? {}) as Schema).map(String), anyString), {
                  minLength: 1,
                  maxLength: 2,
                }),
                {
                  nil: undefined,
                },
              ),
            ),
          )
          .map((values) =>
            Object.fromEntries(
              queryParams.flatMap((p, i) =>
                values[i] === undefined ? [] : [[String(p.name), values[i] as string[]]],
              ),
            ),
          ),
        body: bodyArb,
      });
    });
}

/** No 5xx; every error body `{error_code: status, message}`. */
export function assertWellFormed(
  request: { readonly method: string; readonly path: string },
  response: HttpResponse,
): void {
  const where = `${request.method} ${request.path} -> ${response.status} ${response.body ?? ''}`;
  expect(response.status < 500, where).toBe(true);
  if (request.method === 'HEAD') {
    expect(response.body, where).toBeUndefined();
    return;
  }
  if (response.body === undefined) {
    expect(response.status >= 400, where).toBe(false);
    return;
  }
  expect(response.headers['Content-Type'], where).toBe('application/json');
  const body = JSON.parse(response.body);
  if (response.status >= 400) {
    expect(body.error_code, where).toBe(response.status);
    expect(typeof body.message === 'string' || body.message === null, where).toBe(true);
  }
}
