import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import { LogicalTimestamp } from '../../../../../shared/connect/logical-types.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import {
  InsertFieldKey,
  InsertFieldValue,
} from '../../../../../shared/plugins/transforms/insert-field.js';
import { configured, sinkRecord, sourceRecord } from './fixtures.js';

const ALL = {
  'topic.field': 'topic_field!',
  'partition.field': 'partition_field',
  'offset.field': 'offset_field!',
  'timestamp.field': 'timestamp_field?',
  'static.field': 'instance_id',
  'static.value': 'my-instance-id',
};

const simple = SchemaBuilder.struct()
  .name('name')
  .version(1)
  .doc('doc')
  .field('magic', Schemas.OPTIONAL_INT64)
  .build();

describe('InsertField', () => {
  it('inserts metadata and a static field into a Struct value, extending its schema', () => {
    // Prepare
    const transform = configured(new InsertFieldValue(), ALL);
    const record = sinkRecord({ valueSchema: simple, value: new Struct(simple).put('magic', 42) });

    // Act
    const out = transform.apply(record);

    // Assess
    const schema = out?.valueSchema;
    expect(schema?.name).toBe('name');
    expect(schema?.version).toBe(1);
    expect(schema?.doc).toBe('doc');
    expect(schema?.field('topic_field')?.schema).toEqual(Schemas.STRING);
    expect(schema?.field('partition_field')?.schema).toEqual(Schemas.OPTIONAL_INT32);
    expect(schema?.field('offset_field')?.schema).toEqual(Schemas.INT64);
    expect(schema?.field('timestamp_field')?.schema.name).toBe(LogicalTimestamp.LOGICAL_NAME);
    expect(schema?.field('timestamp_field')?.schema.optional).toBe(true);
    expect(schema?.field('instance_id')?.schema).toEqual(Schemas.OPTIONAL_STRING);
    const value = out?.value as Struct;
    expect(value.get('magic')).toBe(42);
    expect(value.get('topic_field')).toBe('test');
    expect(value.get('partition_field')).toBe(0);
    expect(value.get('offset_field')).toBe(42);
    expect(value.get('timestamp_field')).toEqual(new Date(1_483_425_001_864));
    expect(value.get('instance_id')).toBe('my-instance-id');
  });

  it('inserts metadata into a schemaless map value, keeping the map representation', () => {
    // Prepare
    const transform = configured(new InsertFieldValue(), ALL);
    const record = sinkRecord({ value: { magic: 42 } });

    // Act
    const out = transform.apply(record);

    // Assess
    expect(out?.valueSchema).toBeNull();
    expect(out?.value).toEqual({
      magic: 42,
      topic_field: 'test',
      partition_field: 0,
      offset_field: 42,
      timestamp_field: 1_483_425_001_864,
      instance_id: 'my-instance-id',
    });
  });

  it('inserts into a Map key with the $Key variant, leaving the value alone', () => {
    // Prepare
    const transform = configured(new InsertFieldKey(), { 'topic.field': 't' });
    const record = sinkRecord({ key: new Map([['id', 1]]), value: 'v' });

    // Act
    const out = transform.apply(record);

    // Assess
    expect(out?.key).toEqual(
      new Map<string, unknown>([
        ['id', 1],
        ['t', 'test'],
      ]),
    );
    expect(out?.value).toBe('v');
  });

  it('skips the partition and timestamp when the record has none', () => {
    // Prepare
    const transform = configured(new InsertFieldValue(), {
      'partition.field': 'p',
      'timestamp.field': 'ts',
    });
    const record = sourceRecord({ value: {}, timestamp: null });

    // Act
    const out = transform.apply(record);

    // Assess
    expect(out?.value).toEqual({});
  });

  it('passes tombstones through unchanged', () => {
    // Prepare
    const transform = configured(new InsertFieldValue(), ALL);
    const schemaless = sinkRecord({ value: null });
    const withSchema = sinkRecord({ valueSchema: simple, value: null });

    // Act / Assess
    expect(transform.apply(schemaless)).toBe(schemaless);
    expect(transform.apply(withSchema)).toBe(withSchema);
  });

  it('rejects the offset field on source records', () => {
    // Prepare
    const transform = configured(new InsertFieldValue(), { 'offset.field': 'o' });

    // Act / Assess
    expect(() => transform.apply(sourceRecord({ value: {} }))).toThrow(
      new DataError('Only SinkRecord supported for [field insertion], found: SourceRecord'),
    );
  });

  it("rejects a schemaless value that is not a map, and a schema'd value that is not a Struct", () => {
    // Prepare
    const transform = configured(new InsertFieldValue(), { 'topic.field': 't' });

    // Act / Assess
    expect(() => transform.apply(sinkRecord({ value: 'text' }))).toThrow(
      new DataError(
        'Only Map objects supported in absence of schema for [field insertion], found: String',
      ),
    );
    expect(() => transform.apply(sinkRecord({ valueSchema: Schemas.INT32, value: 1 }))).toThrow(
      new DataError('Only Struct objects supported for [field insertion], found: Number'),
    );
  });

  it('never modifies the input record or its Struct', () => {
    // Prepare
    const transform = configured(new InsertFieldValue(), ALL);
    const value = new Struct(simple).put('magic', 1);
    const record = sinkRecord({ valueSchema: simple, value });

    // Act
    transform.apply(record);

    // Assess
    expect(record.valueSchema).toBe(simple);
    expect(value.schema.fields.map((f) => f.name)).toEqual(['magic']);
    expect(value.get('magic')).toBe(1);
  });

  it('reuses the updated schema for records with the same schema', () => {
    // Prepare
    const transform = configured(new InsertFieldValue(), { 'topic.field': 't' });
    const a = sinkRecord({ valueSchema: simple, value: new Struct(simple) });
    const b = sinkRecord({ valueSchema: simple, value: new Struct(simple).put('magic', 2) });

    // Act
    const first = transform.apply(a)?.valueSchema;
    const second = transform.apply(b)?.valueSchema;

    // Assess
    expect(second).toBe(first);
  });

  it('copies nulls as nulls when replace.null.with.default is false', () => {
    // Prepare
    const schema = SchemaBuilder.struct()
      .field('opt', SchemaBuilder.int32().optional().defaultValue(7))
      .build();
    const keep = configured(new InsertFieldValue(), {
      'topic.field': 't',
      'replace.null.with.default': 'false',
    });
    const replace = configured(new InsertFieldValue(), { 'topic.field': 't' });
    const record = sinkRecord({ valueSchema: schema, value: new Struct(schema) });

    // Act
    const kept = keep.apply(record)?.value as Struct;
    const replaced = replace.apply(record)?.value as Struct;

    // Assess
    expect(kept.getWithoutDefault('opt')).toBeNull();
    expect(replaced.getWithoutDefault('opt')).toBe(7);
  });

  it('rejects a config that inserts nothing, or a static field without a value', () => {
    // Act / Assess
    expect(() => new InsertFieldValue().configure({})).toThrow(
      new ConfigError('No field insertion configured'),
    );
    expect(() => new InsertFieldValue().configure({ 'static.field': 's' })).toThrow(
      'Invalid value null for configuration static.value: No value specified for static field: s',
    );
    expect(() =>
      new InsertFieldValue().configure({ 'topic.field': 't', 'replace.null.with.default': 'x' }),
    ).toThrow(ConfigError);
  });

  it('describes its keys in config()', () => {
    // Act
    const names = new InsertFieldValue().config().names();

    // Assess
    expect(names).toEqual([
      'topic.field',
      'partition.field',
      'offset.field',
      'timestamp.field',
      'static.field',
      'static.value',
      'replace.null.with.default',
    ]);
  });
});
