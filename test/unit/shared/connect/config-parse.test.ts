import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  type ConfigType,
  convertToString,
  formatValue,
  invalidValue,
  javaDoubleToString,
  javaTrim,
  missingRequired,
  Password,
  parseType,
} from '../../../../shared/connect/config-parse.js';
import { ConfigError } from '../../../../shared/connect/errors.js';

function parseError(value: unknown, type: ConfigType, name = 'k'): string {
  try {
    parseType(name, value, type);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe(name);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('parseType', () => {
  it.each([
    ['true', true],
    [' TRUE ', true],
    ['False', false],
  ])('parses BOOLEAN %j case-insensitively', (raw, expected) => {
    expect(parseType('k', raw, 'BOOLEAN')).toBe(expected);
  });

  it('rejects a BOOLEAN that is neither true nor false with Kafka message', () => {
    expect(parseError('yes', 'BOOLEAN')).toBe(
      'Invalid value yes for configuration k: Expected value to be either true or false',
    );
  });

  it.each([
    ['42', 42],
    [' -7 ', -7],
    ['+5', 5],
    ['007', 7],
    ['2147483647', 2147483647],
    ['-2147483648', -2147483648],
  ])('parses INT %j', (raw, expected) => {
    expect(parseType('k', raw, 'INT')).toBe(expected);
  });

  it.each(['abc', '1.5', '', '2147483648', '-2147483649', '1e3', '0x10'])(
    'rejects INT %j as not a number of type INT',
    (raw) => {
      expect(parseError(raw, 'INT', 'tasks.max')).toBe(
        `Invalid value ${raw} for configuration tasks.max: Not a number of type INT`,
      );
    },
  );

  it('parses SHORT within Java short range and rejects beyond it', () => {
    expect(parseType('k', '32767', 'SHORT')).toBe(32767);
    expect(parseType('k', '-32768', 'SHORT')).toBe(-32768);
    expect(parseError('32768', 'SHORT')).toBe(
      'Invalid value 32768 for configuration k: Not a number of type SHORT',
    );
  });

  it('parses LONG as a number when safe and a bigint beyond 2^53', () => {
    expect(parseType('k', '60000', 'LONG')).toBe(60000);
    expect(parseType('k', '-1', 'LONG')).toBe(-1);
    expect(parseType('k', '9007199254740991', 'LONG')).toBe(9007199254740991);
    expect(parseType('k', '9223372036854775807', 'LONG')).toBe(9223372036854775807n);
    expect(parseType('k', '-9223372036854775808', 'LONG')).toBe(-9223372036854775808n);
  });

  it('rejects LONG beyond 64 bits', () => {
    expect(parseError('9223372036854775808', 'LONG')).toBe(
      'Invalid value 9223372036854775808 for configuration k: Not a number of type LONG',
    );
  });

  it.each([
    ['1.5', 1.5],
    ['1', 1],
    ['.5', 0.5],
    ['1e3', 1000],
    ['-2.5E-1', -0.25],
    ['3d', 3],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('parses DOUBLE %j as Java does', (raw, expected) => {
    expect(parseType('k', raw, 'DOUBLE')).toBe(expected);
  });

  it('parses DOUBLE NaN and rejects text that is not a double', () => {
    expect(parseType('k', 'NaN', 'DOUBLE')).toBeNaN();
    expect(parseError('1,5', 'DOUBLE')).toBe(
      'Invalid value 1,5 for configuration k: Not a number of type DOUBLE',
    );
    expect(parseError('', 'DOUBLE')).toContain('Not a number of type DOUBLE');
  });

  it('trims STRING with Java semantics (chars up to U+0020, not non-breaking spaces)', () => {
    expect(parseType('k', '\t hello \n', 'STRING')).toBe('hello');
    expect(parseType('k', '\u00a0x\u00a0', 'STRING')).toBe('\u00a0x\u00a0');
  });

  it.each([
    ['a, b ,c', ['a', 'b', 'c']],
    ['  ', []],
    ['', []],
    ['a,,b', ['a', '', 'b']],
    ['a,', ['a', '']],
  ])('parses LIST %j into trimmed items, keeping empty ones like Java split', (raw, expected) => {
    expect(parseType('k', raw, 'LIST')).toEqual(expected);
  });

  it('parses CLASS as a trimmed name and rejects an empty one as not found', () => {
    expect(parseType('k', ' com.acme.Sink ', 'CLASS')).toBe('com.acme.Sink');
    expect(parseError('  ', 'CLASS')).toBe(
      'Invalid value    for configuration k: Class    could not be found.',
    );
  });

  it('parses PASSWORD into a Password holding the trimmed secret', () => {
    const parsed = parseType('k', ' s3cret ', 'PASSWORD');
    expect(parsed).toBeInstanceOf(Password);
    expect((parsed as Password).value()).toBe('s3cret');
  });

  it('parses null and undefined to null for every type', () => {
    for (const type of ['BOOLEAN', 'INT', 'LIST', 'PASSWORD'] as const) {
      expect(parseType('k', null, type)).toBeNull();
      expect(parseType('k', undefined, type)).toBeNull();
    }
  });

  it('accepts already-typed values like Kafka does for defaults', () => {
    expect(parseType('k', 3, 'INT')).toBe(3);
    expect(parseType('k', true, 'BOOLEAN')).toBe(true);
    expect(parseType('k', ['a'], 'LIST')).toEqual(['a']);
    expect(parseType('k', 10n, 'LONG')).toBe(10);
    expect(parseType('k', 0.5, 'DOUBLE')).toBe(0.5);
  });

  it('coerces JSON numbers and booleans for string-like types as Connect REST does', () => {
    expect(parseType('k', 2, 'STRING')).toBe('2');
    expect(parseType('k', true, 'LIST')).toEqual(['true']);
  });

  it('rejects values of the wrong kind with Kafka messages', () => {
    expect(parseError(1.5, 'INT')).toBe(
      'Invalid value 1.5 for configuration k: Expected value to be a 32-bit integer, but it was a number',
    );
    expect(parseError({}, 'STRING')).toContain(
      'Expected value to be a string, but it was a object',
    );
    expect(parseError({}, 'LIST')).toContain('Expected a comma separated list.');
    expect(parseError(7, 'BOOLEAN')).toContain('Expected value to be either true or false');
  });

  it('never shows a PASSWORD value in a parse error', () => {
    expect(parseError({ secret: 'x' }, 'PASSWORD')).toBe(
      'Invalid value [hidden] for configuration k: Expected value to be a string, but it was a object',
    );
  });
});

describe('Password', () => {
  it('prints [hidden] through toString, JSON, template literals and util.inspect', () => {
    // Prepare
    const password = new Password('hunter2');

    // Act
    const renderings = [
      String(password),
      `${password}`,
      JSON.stringify({ password }),
      inspect({ password }),
      formatValue(password),
    ];

    // Assess
    for (const text of renderings) {
      expect(text).toContain('[hidden]');
      expect(text).not.toContain('hunter2');
    }
    expect(password.value()).toBe('hunter2');
  });

  it('compares by secret', () => {
    expect(new Password('a').equals(new Password('a'))).toBe(true);
    expect(new Password('a').equals(new Password('b'))).toBe(false);
  });
});

describe('convertToString', () => {
  it('renders values as Connect REST does', () => {
    expect(convertToString(['a', 'b'], 'LIST')).toBe('a,b');
    expect(convertToString([], 'LIST')).toBe('');
    expect(convertToString(true, 'BOOLEAN')).toBe('true');
    expect(convertToString(60000, 'LONG')).toBe('60000');
    expect(convertToString(9223372036854775807n, 'LONG')).toBe('9223372036854775807');
    expect(convertToString(1, 'DOUBLE')).toBe('1.0');
    expect(convertToString(new Password('x'), 'PASSWORD')).toBe('[hidden]');
    expect(convertToString('plain', 'PASSWORD')).toBe('[hidden]');
    expect(convertToString(null, 'STRING')).toBeNull();
    expect(convertToString('x', null)).toBe('x');
  });
});

describe('javaDoubleToString', () => {
  it.each([
    [1, '1.0'],
    [0.5, '0.5'],
    [0.001, '0.001'],
    [0.0001, '1.0E-4'],
    [1e7, '1.0E7'],
    [1.5e10, '1.5E10'],
    [-0, '-0.0'],
    [Number.NaN, 'NaN'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
  ])('prints %d as %s', (n, expected) => {
    expect(javaDoubleToString(n)).toBe(expected);
  });
});

describe('error helpers', () => {
  it('build Kafka ConfigException messages carrying the key', () => {
    expect(invalidValue('a', ['x', 'y'], 'bad').message).toBe(
      'Invalid value [x, y] for configuration a: bad',
    );
    expect(invalidValue('a', null).message).toBe('Invalid value null for configuration a');
    const missing = missingRequired('x');
    expect(missing.message).toBe('Missing required configuration "x" which has no default value.');
    expect(missing.key).toBe('x');
  });

  it('trims like Java String.trim', () => {
    expect(javaTrim('\u0001 a \u0000')).toBe('a');
  });
});
