import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  unmarshallItem,
  unmarshallNumber,
  unmarshallValue,
} from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/attribute-values.js';

describe('unmarshallItem', () => {
  it('turns every AttributeValue type into a plain value', () => {
    // Prepare
    const item = {
      s: { S: 'text' },
      n: { N: '42' },
      d: { N: '-1.25' },
      b: { B: new Uint8Array([1, 2]) },
      b64: { B: 'AwQ=' },
      yes: { BOOL: true },
      none: { NULL: true },
      ss: { SS: ['a', 'b'] },
      ns: { NS: ['1', '2.5'] },
      bs: { BS: [new Uint8Array([9])] },
      l: { L: [{ S: 'x' }, { N: '1' }, { M: { deep: { BOOL: false } } }] },
      m: { M: { inner: { S: 'y' } } },
    };

    // Act
    const value = unmarshallItem(item);

    // Assess
    expect(value).toEqual({
      s: 'text',
      n: 42,
      d: -1.25,
      b: new Uint8Array([1, 2]),
      b64: new Uint8Array([3, 4]),
      yes: true,
      none: null,
      ss: ['a', 'b'],
      ns: [1, 2.5],
      bs: [new Uint8Array([9])],
      l: ['x', 1, { deep: false }],
      m: { inner: 'y' },
    });
  });

  it('orders attributes by name so equal keys serialise identically', () => {
    // Act
    const a = unmarshallItem({ sk: { S: '2' }, pk: { S: '1' } });
    const b = unmarshallItem({ pk: { S: '1' }, sk: { S: '2' } });

    // Assess
    expect(Object.keys(a)).toEqual(['pk', 'sk']);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('keeps an attribute named __proto__ as data', () => {
    // Act
    const value = unmarshallItem(JSON.parse('{"__proto__": {"S": "p"}}'));

    // Assess
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
  });

  it('rejects an unknown or ambiguous AttributeValue with a data error', () => {
    // Act
    const unknown = () => unmarshallValue({ X: 'y' });
    const ambiguous = () => unmarshallValue({ S: 'a', N: '1' });

    // Assess
    expect(unknown).toThrow(DataError);
    expect(unknown).toThrow(/Unsupported DynamoDB AttributeValue type: X/);
    expect(ambiguous).toThrow(DataError);
  });
});

describe('unmarshallNumber', () => {
  it('never loses a digit: bigints for large integers, strings beyond int64 or double precision', () => {
    // Act
    const values = [
      unmarshallNumber('9007199254740993'),
      unmarshallNumber('123456789012345678901234567890'),
      unmarshallNumber('0.12345678901234567'),
      unmarshallNumber('1E+3'),
      unmarshallNumber('00012'),
    ];

    // Assess
    expect(values).toEqual([
      9007199254740993n,
      '123456789012345678901234567890',
      '0.12345678901234567',
      1000,
      12,
    ]);
  });

  it('gives back every safe integer and short decimal as the same number', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(unmarshallNumber(String(n))).toBe(n);
      }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: -99_999_999, max: 99_999_999 }),
        fc.integer({ min: 0, max: 6 }),
        (n, scale) => {
          const text = (n / 10 ** scale).toFixed(scale);
          expect(unmarshallNumber(text)).toBe(Number(text));
        },
      ),
    );
  });
});
