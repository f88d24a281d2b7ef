import { describe, expect, it } from 'vitest';
import {
  parseArrayLiteral,
  parseBytea,
} from '../../../../../../shared/plugins/connectors/postgres-source/pg-text.js';

describe('parseBytea', () => {
  it('reads the hex and the escape formats of bytea_output', () => {
    expect(parseBytea('\\x00ff07')).toEqual(new Uint8Array([0, 255, 7]));
    expect(parseBytea('\\x')).toEqual(new Uint8Array([]));
    expect(parseBytea('a\\\\b\\000\\377')).toEqual(new Uint8Array([97, 92, 98, 0, 255]));
    expect(() => parseBytea('\\x0')).toThrow(/bad hex/);
    expect(() => parseBytea('a\\9')).toThrow(/bad escape/);
  });
});

describe('parseArrayLiteral', () => {
  it('reads one-dimensional arrays with quoted, escaped and NULL elements', () => {
    expect(parseArrayLiteral('{1,NULL,3}')).toEqual(['1', null, '3']);
    expect(parseArrayLiteral('{"x,y","q\\"uote","NULL",""}')).toEqual([
      'x,y',
      'q"uote',
      'NULL',
      '',
    ]);
    expect(parseArrayLiteral('{}')).toEqual([]);
    expect(parseArrayLiteral('{"\\\\x00ff"}')).toEqual(['\\x00ff']);
  });

  it('gives up on what is not a one-dimensional array', () => {
    expect(parseArrayLiteral('{{1,2},{3,4}}')).toBeUndefined();
    expect(parseArrayLiteral('[0:1]={1,2}')).toBeUndefined();
    expect(parseArrayLiteral('{"open')).toBeUndefined();
  });
});
