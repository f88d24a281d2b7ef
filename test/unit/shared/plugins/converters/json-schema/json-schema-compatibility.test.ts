/**
 * The backward compatibility check of `latest.compatibility.strict` for JSON Schema, case by
 * case as Confluent's `SchemaDiff` classifies the differences (original: the record's schema;
 * update: the subject's latest version, which must read what the original validated).
 */
import { describe, expect, it } from 'vitest';
import { backwardIncompatibilities } from '../../../../../../shared/plugins/converters/json-schema/json-schema-compatibility.js';
import { parseJsonText } from '../../../../../../shared/plugins/converters/json-text.js';

function check(original: unknown, update: unknown): string[] {
  const tree = (value: unknown) => parseJsonText(JSON.stringify(value)) ?? null;
  return backwardIncompatibilities(tree(original), tree(update));
}

const closed = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const optional = (schema: unknown) => ({ oneOf: [{ type: 'null' }, schema] });

describe('backwardIncompatibilities', () => {
  it.each([
    ['the same schema', closed({ a: { type: 'string' } }), closed({ a: { type: 'string' } })],
    [
      'an optional property added to a closed object',
      closed({ a: { type: 'string' } }),
      closed({ a: { type: 'string' }, b: optional({ type: 'integer' }) }),
    ],
    [
      'a required property with a default added to a closed object',
      closed({ a: { type: 'string' } }),
      closed({ a: { type: 'string' }, b: { type: 'integer', default: 0 } }, ['b']),
    ],
    [
      'a property removed from an open object',
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'string' } } },
    ],
    ['integer widened to number', { type: 'integer' }, { type: 'number' }],
    ['a required value made optional', { type: 'string' }, optional({ type: 'string' })],
    ['a string type made a type array', { type: 'string' }, { type: ['string', 'null'] }],
    ['maxLength removed', { type: 'string', maxLength: 3 }, { type: 'string' }],
    ['maxLength increased', { type: 'string', maxLength: 3 }, { type: 'string', maxLength: 5 }],
    ['minimum decreased', { type: 'number', minimum: 3 }, { type: 'number', minimum: 1 }],
    ['an enum extended', { enum: ['A', 'B'] }, { enum: ['A', 'B', 'C'] }],
    ['anything read as the empty schema', { type: 'string' }, {}],
    [
      'title and description changed',
      { type: 'string', title: 'A' },
      { type: 'string', title: 'B', description: 'x' },
    ],
  ])('finds %s compatible', (_, original, update) => {
    expect(check(original, update)).toEqual([]);
  });

  it.each([
    [
      'a required property without default added to a closed object',
      closed({ a: { type: 'string' } }),
      closed({ a: { type: 'string' }, b: { type: 'integer' } }, ['b']),
      ['#/properties/b: REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL'],
    ],
    [
      'a property removed from a closed object',
      closed({ a: { type: 'string' }, b: { type: 'string' } }),
      closed({ a: { type: 'string' } }),
      ['#/properties/b: PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL'],
    ],
    [
      'a typed property added to an open object',
      { type: 'object', properties: {} },
      { type: 'object', properties: { a: { type: 'string' } } },
      ['#/properties/a: PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL'],
    ],
    [
      'a property’s type changed',
      closed({ a: { type: 'string' } }),
      closed({ a: { type: 'integer' } }),
      ['#/properties/a: TYPE_CHANGED'],
    ],
    ['number narrowed to integer', { type: 'number' }, { type: 'integer' }, ['#: TYPE_NARROWED']],
    [
      'an optional value made required',
      optional({ type: 'string' }),
      { type: 'string' },
      ['#: TYPE_CHANGED'],
    ],
    [
      'an existing property made required',
      { type: 'object', properties: { a: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      ['#/required/a: REQUIRED_ATTRIBUTE_ADDED'],
    ],
    [
      'maxLength decreased',
      { type: 'string', maxLength: 5 },
      { type: 'string', maxLength: 3 },
      ['#/maxLength: MAX_LENGTH_DECREASED'],
    ],
    [
      'a pattern added',
      { type: 'string' },
      { type: 'string', pattern: '^a' },
      ['#/pattern: PATTERN_ADDED'],
    ],
    ['an enum narrowed', { enum: ['A', 'B'] }, { enum: ['A'] }, ['#/enum: ENUM_ARRAY_CHANGED']],
    [
      'additional properties closed',
      { type: 'object', properties: {} },
      { type: 'object', properties: {}, additionalProperties: false },
      ['#/additionalProperties: ADDITIONAL_PROPERTIES_REMOVED'],
    ],
    [
      'a oneOf branch changed',
      { oneOf: [{ type: 'null' }, { type: 'string' }] },
      { oneOf: [{ type: 'null' }, { type: 'boolean' }] },
      ['#: COMBINED_TYPE_SUBSCHEMAS_CHANGED'],
    ],
    [
      'array items narrowed',
      { type: 'array', items: { type: 'number' } },
      { type: 'array', items: { type: 'integer' } },
      ['#/items: TYPE_NARROWED'],
    ],
  ])('finds %s incompatible', (_, original, update, differences) => {
    expect(check(original, update)).toEqual(differences);
  });

  it('follows local $refs, a recursive one included, to an answer', () => {
    const tree = (leaf: string) => ({
      definitions: {
        node: {
          type: 'object',
          properties: { value: { type: leaf }, next: { $ref: '#/definitions/node' } },
        },
      },
      $ref: '#/definitions/node',
    });

    expect(check(tree('integer'), tree('number'))).toEqual([]);
    expect(check(tree('number'), tree('string'))).toEqual(['#/properties/value: TYPE_CHANGED']);
  });
});
