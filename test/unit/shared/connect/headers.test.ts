import { describe, expect, it } from 'vitest';
import { DataError, IllegalStateError } from '../../../../shared/connect/errors.js';
import { Headers } from '../../../../shared/connect/headers.js';
import { Schemas } from '../../../../shared/connect/schema.js';

describe('Headers', () => {
  it('keeps headers in insertion order, duplicates included', () => {
    // Act
    const headers = new Headers().add('a', 1).add('b', 'x', Schemas.STRING).add('a', 2);

    // Assess
    expect(headers.size).toBe(3);
    expect([...headers].map((h) => [h.key, h.value])).toEqual([
      ['a', 1],
      ['b', 'x'],
      ['a', 2],
    ]);
    expect(headers.lastWithName('a')?.value).toBe(2);
    expect(headers.allWithName('a').map((h) => h.value)).toEqual([1, 2]);
    expect(headers.lastWithName('missing')).toBeNull();
  });

  it('accepts null values and validates values against a given schema', () => {
    // Prepare
    const headers = new Headers().add('n', null);

    // Act + Assess
    expect(headers.lastWithName('n')).toEqual({ key: 'n', schema: null, value: null });
    expect(() => headers.add('s', 5, Schemas.STRING)).toThrow(DataError);
    expect(() => headers.add('s', null, Schemas.STRING)).toThrow(/null used for required/);
  });

  it('removes every header with a key', () => {
    // Act
    const headers = new Headers().add('a', 1).add('b', 2).add('a', 3).remove('a');

    // Assess
    expect(headers.toArray().map((h) => h.key)).toEqual(['b']);
  });

  it('retains only the latest header of one key or of every key', () => {
    // Prepare
    const make = (): Headers => new Headers().add('a', 1).add('b', 1).add('a', 2).add('b', 2);

    // Act
    const one = make().retainLatest('a');
    const all = make().retainLatest();

    // Assess
    expect(one.toArray().map((h) => `${h.key}${String(h.value)}`)).toEqual(['b1', 'a2', 'b2']);
    expect(all.toArray().map((h) => `${h.key}${String(h.value)}`)).toEqual(['a2', 'b2']);
  });

  it('duplicates into an independent copy', () => {
    // Prepare
    const original = new Headers().add('a', 1);

    // Act
    const copy = original.duplicate().add('b', 2);

    // Assess
    expect(original.size).toBe(1);
    expect(copy.size).toBe(2);
    expect(original.equals(new Headers().add('a', 1))).toBe(true);
  });

  it('transforms or drops headers with apply', () => {
    // Act
    const headers = new Headers()
      .add('a', 1)
      .add('b', 2)
      .apply((h) => (h.key === 'a' ? null : { ...h, value: 20 }));

    // Assess
    expect(headers.toArray()).toEqual([{ key: 'b', schema: null, value: 20 }]);
  });

  it('refuses changes when read-only but can still be duplicated', () => {
    // Prepare
    const frozen = new Headers().add('a', 1).readOnly();

    // Act + Assess
    expect(() => frozen.add('b', 2)).toThrow(IllegalStateError);
    expect(() => frozen.remove('a')).toThrow(IllegalStateError);
    expect(frozen.duplicate().add('b', 2).size).toBe(2);
  });
});
