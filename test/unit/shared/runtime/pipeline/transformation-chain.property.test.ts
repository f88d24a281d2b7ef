/**
 * Properties of the transformation chain over the built-in transformations: it never changes
 * the record it is given (whatever the chain does, even when a stage fails), and a `null` from
 * any stage drops the record without running later stages.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigDef } from '../../../../../shared/connect/config-def.js';
import { Headers } from '../../../../../shared/connect/headers.js';
import { LogicalTimestamp } from '../../../../../shared/connect/logical-types.js';
import { PluginRegistry } from '../../../../../shared/connect/plugin.js';
import type { ConnectRecord } from '../../../../../shared/connect/records.js';
import { SinkRecord } from '../../../../../shared/connect/records.js';
import { SchemaBuilder, Schemas, validateValue } from '../../../../../shared/connect/schema.js';
import { copyValue, Struct } from '../../../../../shared/connect/struct.js';
import type { Transformation } from '../../../../../shared/connect/transformation.js';
import { predicateDescriptors } from '../../../../../shared/plugins/predicates/descriptors.js';
import { transformDescriptors } from '../../../../../shared/plugins/transforms/descriptors.js';
import {
  buildTransformationChain,
  TransformationChain,
  TransformationError,
  type TransformationStage,
} from '../../../../../shared/runtime/pipeline/transformation-chain.js';

const registry = new PluginRegistry();
for (const d of [...transformDescriptors, ...predicateDescriptors]) registry.register(d);

const inner = SchemaBuilder.struct()
  .field('x', Schemas.INT32)
  .field('y', Schemas.OPTIONAL_STRING)
  .optional()
  .build();
const valueSchema = SchemaBuilder.struct()
  .name('Value')
  .field('a', Schemas.INT32)
  .field('b', Schemas.OPTIONAL_STRING)
  .field('c', SchemaBuilder.int64().optional().defaultValue(5))
  .field('ts', LogicalTimestamp.schema())
  .field('n', inner)
  .optional()
  .build();

const structValue = fc
  .record({
    a: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    b: fc.option(fc.string({ maxLength: 5 })),
    c: fc.option(fc.maxSafeInteger()),
    ts: fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }),
    n: fc.option(
      fc.record({ x: fc.integer({ min: -1000, max: 1000 }), y: fc.option(fc.string()) }),
    ),
  })
  .map(({ a, b, c, ts, n }) =>
    new Struct(valueSchema)
      .put('a', a)
      .put('b', b)
      .put('c', c)
      .put('ts', ts)
      .put('n', n === null ? null : new Struct(inner).put('x', n.x).put('y', n.y)),
  );

const leaf = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 5 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
);
const mapKeys = fc.constantFrom('a', 'b', 'c', 'n', 'ts', 'z');
const nested = fc.dictionary(mapKeys, leaf, { maxKeys: 3 });
const schemalessValue = fc
  .tuple(fc.dictionary(mapKeys, fc.oneof(leaf, nested), { maxKeys: 6 }), fc.boolean())
  .map(([object, asMap]) => (asMap ? new Map(Object.entries(object)) : object));

const recordArb = fc
  .record({
    topic: fc.constantFrom('orders-raw', 'users', 'x'),
    schemad: fc.boolean(),
    struct: structValue,
    schemaless: schemalessValue,
    key: fc.oneof(fc.constant(null), fc.string({ maxLength: 4 }), schemalessValue),
    tombstone: fc.boolean(),
    headers: fc.array(fc.tuple(fc.constantFrom('h1', 'h2'), fc.string({ maxLength: 3 })), {
      maxLength: 3,
    }),
  })
  .map(
    (r) =>
      new SinkRecord({
        topic: r.topic,
        kafkaPartition: 1,
        kafkaOffset: 7,
        timestamp: 1_483_425_001_864,
        key: r.key,
        valueSchema: r.schemad ? valueSchema : null,
        value: r.tombstone ? null : r.schemad ? r.struct : r.schemaless,
        headers: new Headers(r.headers.map(([key, value]) => ({ key, value, schema: null }))),
      }),
  );

/** Transform configs (without the `transforms.<alias>.` prefix). */
const CATALOGUE: Record<string, string>[] = [
  { type: 'InsertField$Value', 'topic.field': 'topic', 'static.field': 's', 'static.value': 'v' },
  { type: 'InsertField$Key', 'partition.field': 'p' },
  { type: 'ReplaceField$Value', exclude: 'b', renames: 'a:aa' },
  { type: 'MaskField$Value', fields: 'a,b' },
  { type: 'Cast$Value', spec: 'a:string,c:int8' },
  { type: 'Flatten$Value', delimiter: '_' },
  { type: 'Flatten$Key' },
  { type: 'HoistField$Value', field: 'h' },
  { type: 'HoistField$Key', field: 'k' },
  { type: 'ExtractField$Value', field: 'n' },
  { type: 'ValueToKey', fields: 'a' },
  { type: 'TimestampConverter$Value', field: 'ts', 'target.type': 'unix' },
  { type: 'SetSchemaMetadata$Value', 'schema.name': 'renamed', 'schema.version': '3' },
  { type: 'HeaderFrom$Value', fields: 'a', headers: 'ha', operation: 'move' },
  { type: 'HeaderFrom$Value', fields: 'b', headers: 'hb', operation: 'copy' },
  { type: 'InsertHeader', header: 'h1', 'value.literal': '42' },
  { type: 'DropHeaders', headers: 'h1' },
  { type: 'RegexRouter', regex: '(.*)-raw', replacement: '$1' },
  { type: 'TimestampRouter' },
];

const chainProps = fc
  .array(
    fc.record({ spec: fc.constantFrom(...CATALOGUE), gated: fc.boolean(), negate: fc.boolean() }),
    {
      maxLength: 5,
    },
  )
  .map((stages) => {
    const props: Record<string, string> = {
      transforms: stages.map((_, i) => `t${i}`).join(','),
      predicates: 'tomb',
      'predicates.tomb.type': 'RecordIsTombstone',
    };
    stages.forEach(({ spec, gated, negate }, i) => {
      for (const [k, v] of Object.entries(spec)) props[`transforms.t${i}.${k}`] = v;
      if (gated) {
        props[`transforms.t${i}.predicate`] = 'tomb';
        props[`transforms.t${i}.negate`] = String(negate);
      }
    });
    return props;
  });

/** A deep copy of `record` that shares nothing mutable with it. */
function snapshot(record: SinkRecord): SinkRecord {
  return new SinkRecord({
    topic: record.topic,
    kafkaPartition: record.kafkaPartition ?? 0,
    kafkaOffset: record.kafkaOffset,
    timestamp: record.timestamp,
    keySchema: record.keySchema,
    key: copyValue(record.key),
    valueSchema: record.valueSchema,
    value: copyValue(record.value),
    headers: record.headers.toArray(),
  });
}

/** Freezes plain objects and arrays, so an in-place write throws a TypeError. */
function deepFreeze(value: unknown): void {
  if (
    Array.isArray(value) ||
    (typeof value === 'object' &&
      value !== null &&
      Object.getPrototypeOf(value) === Object.prototype)
  ) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  if (value instanceof Map) for (const item of value.values()) deepFreeze(item);
}

describe('TransformationChain properties', () => {
  it('never changes its input record, whatever the chain does', () => {
    fc.assert(
      fc.property(recordArb, chainProps, (record, props) => {
        // Prepare
        const chain = buildTransformationChain<SinkRecord>(props, registry);
        const before = snapshot(record);
        deepFreeze(record.key);
        deepFreeze(record.value);

        // Act
        try {
          chain.apply(record);
        } catch (error) {
          // Data errors are allowed; writes into a frozen input (TypeError) are not.
          expect(error).toBeInstanceOf(TransformationError);
          expect((error as TransformationError).cause).not.toBeInstanceOf(TypeError);
        }

        // Assess
        expect(record.equals(before)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('produces keys and values that are valid for their schemas', () => {
    fc.assert(
      fc.property(recordArb, chainProps, (record, props) => {
        // Prepare
        const chain = buildTransformationChain<SinkRecord>(props, registry);

        // Act
        let out: SinkRecord | null = null;
        try {
          out = chain.apply(record);
        } catch (error) {
          expect(error).toBeInstanceOf(TransformationError);
        }

        // Assess
        if (out?.valueSchema) validateValue(out.valueSchema, out.value);
        if (out?.keySchema) validateValue(out.keySchema, out.key);
      }),
      { numRuns: 300 },
    );
  });

  it('drops the record at the first null and runs no later stage', () => {
    const counting = <R extends ConnectRecord>(calls: number[], id: number): Transformation<R> => ({
      config: () => new ConfigDef(),
      configure: () => {},
      apply: (r: R) => {
        calls.push(id);
        return r.newRecord({ topic: `${r.topic}.${id}` });
      },
      close: () => {},
    });
    const dropper: Transformation<SinkRecord> = {
      config: () => new ConfigDef(),
      configure: () => {},
      apply: () => null,
      close: () => {},
    };
    fc.assert(
      fc.property(
        recordArb,
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 5 }),
        (record, before, after) => {
          // Prepare
          const calls: number[] = [];
          const stages: TransformationStage<SinkRecord>[] = [];
          for (let i = 0; i < before; i++)
            stages.push({ alias: `b${i}`, transformation: counting(calls, i) });
          stages.push({ alias: 'drop', transformation: dropper });
          for (let i = 0; i < after; i++) {
            stages.push({ alias: `a${i}`, transformation: counting(calls, 100 + i) });
          }

          // Act
          const out = new TransformationChain(stages).apply(record);

          // Assess
          expect(out).toBeNull();
          expect(calls).toEqual([...Array(before).keys()]);
        },
      ),
    );
  });
});
