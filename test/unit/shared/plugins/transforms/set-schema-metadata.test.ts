import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';
import {
  SetSchemaMetadataKey,
  SetSchemaMetadataValue,
} from '../../../../../shared/plugins/transforms/set-schema-metadata.js';
import { configured, sinkRecord } from './fixtures.js';

describe('SetSchemaMetadata', () => {
  it('sets the name and version of a value schema, rebuilding the Struct under it', () => {
    // Prepare
    const schema = SchemaBuilder.struct()
      .name('old')
      .version(1)
      .doc('doc')
      .field('a', SchemaBuilder.int32().optional().defaultValue(3))
      .build();
    const transform = configured(new SetSchemaMetadataValue(), {
      'schema.name': 'foo',
      'schema.version': '42',
    });
    const value = new Struct(schema);

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: schema, value }));

    // Assess
    expect(out?.valueSchema?.name).toBe('foo');
    expect(out?.valueSchema?.version).toBe(42);
    expect(out?.valueSchema?.doc).toBe('doc');
    expect((out?.value as Struct | undefined)?.schema).toBe(out?.valueSchema);
    expect((out?.value as Struct | undefined)?.getWithoutDefault('a')).toBe(3);
    expect(value.schema).toBe(schema);
  });

  it('keeps explicit nulls when replace.null.with.default is false', () => {
    // Prepare
    const schema = SchemaBuilder.struct()
      .field('a', SchemaBuilder.int32().optional().defaultValue(3))
      .build();
    const transform = configured(new SetSchemaMetadataValue(), {
      'schema.name': 'n',
      'replace.null.with.default': 'false',
    });

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: schema, value: new Struct(schema) }));

    // Assess
    expect((out?.value as Struct | undefined)?.getWithoutDefault('a')).toBeNull();
  });

  it('updates only the version of a primitive key schema', () => {
    // Prepare
    const transform = configured(new SetSchemaMetadataKey(), { 'schema.version': '2' });

    // Act
    const out = transform.apply(sinkRecord({ keySchema: Schemas.STRING, key: 'k' }));

    // Assess
    expect(out?.keySchema?.version).toBe(2);
    expect(out?.keySchema?.type).toBe('string');
    expect(out?.key).toBe('k');
  });

  it('requires a schema, and a name or a version', () => {
    // Act / Assess
    expect(() =>
      configured(new SetSchemaMetadataValue(), { 'schema.name': 'n' }).apply(
        sinkRecord({ value: 1 }),
      ),
    ).toThrow(new DataError('Schema required for [updating schema metadata]'));
    expect(() => new SetSchemaMetadataValue().configure({})).toThrow(
      new ConfigError('Neither schema name nor version configured'),
    );
    expect(() => new SetSchemaMetadataValue().configure({ 'schema.version': 'x' })).toThrow(
      'Invalid value x for configuration schema.version: Not a number of type INT',
    );
  });
});
