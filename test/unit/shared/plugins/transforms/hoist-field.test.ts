import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../shared/connect/errors.js';
import { Schemas } from '../../../../../shared/connect/schema.js';
import type { Struct } from '../../../../../shared/connect/struct.js';
import {
  HoistFieldKey,
  HoistFieldValue,
} from '../../../../../shared/plugins/transforms/hoist-field.js';
import { configured, sinkRecord, thrown } from './fixtures.js';

describe('HoistField', () => {
  it('wraps a schemaless key in a one-entry map', () => {
    // Prepare
    const transform = configured(new HoistFieldKey(), { field: 'magic' });

    // Act
    const out = transform.apply(sinkRecord({ key: 42 }));

    // Assess
    expect(out?.keySchema).toBeNull();
    expect(out?.key).toEqual({ magic: 42 });
  });

  it("wraps a schema'd value in a one-field Struct", () => {
    // Prepare
    const transform = configured(new HoistFieldValue(), { field: 'magic' });

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: Schemas.INT32, value: 42 }));

    // Assess
    expect(out?.valueSchema?.fields.map((f) => [f.name, f.schema])).toEqual([
      ['magic', Schemas.INT32],
    ]);
    expect((out?.value as Struct | undefined)?.get('magic')).toBe(42);
  });

  it('hoists a null into the field of an optional schema', () => {
    // Prepare
    const transform = configured(new HoistFieldValue(), { field: 'f' });

    // Act
    const out = transform.apply(sinkRecord({ valueSchema: Schemas.OPTIONAL_STRING, value: null }));

    // Assess
    expect((out?.value as Struct | undefined)?.get('f')).toBeNull();
  });

  it('requires the field name', () => {
    // Act / Assess
    expect(thrown(() => new HoistFieldValue().configure({}))).toMatchObject({
      name: ConfigError.name,
      key: 'field',
    });
  });
});
