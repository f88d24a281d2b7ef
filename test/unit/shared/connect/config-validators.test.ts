import { describe, expect, it } from 'vitest';
import type { Validator } from '../../../../shared/connect/config-def.js';
import {
  CaseInsensitiveValidString,
  CompositeValidator,
  compileFullMatch,
  LambdaValidator,
  ListSize,
  NonEmptyString,
  NonEmptyStringWithoutControlChars,
  NonNullValidator,
  PatternValidator,
  Range,
  RegexListValidator,
  RegexValidator,
  uniqueAliases,
  ValidList,
  ValidString,
} from '../../../../shared/connect/config-validators.js';
import { ConfigError } from '../../../../shared/connect/errors.js';

function failure(validator: Validator, value: unknown, name = 'k'): string | undefined {
  try {
    validator.ensureValid(name, value);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

describe('Range', () => {
  it('accepts values within bounds, inclusive', () => {
    expect(failure(Range.between(1, 3), 1)).toBeUndefined();
    expect(failure(Range.between(1, 3), 3)).toBeUndefined();
    expect(failure(Range.atLeast(0), 9223372036854775807n)).toBeUndefined();
  });

  it('rejects values outside bounds and null with Kafka messages', () => {
    expect(failure(Range.atLeast(1), 0, 'tasks.max')).toBe(
      'Invalid value 0 for configuration tasks.max: Value must be at least 1',
    );
    expect(failure(Range.between(1, 3), 4)).toBe(
      'Invalid value 4 for configuration k: Value must be no more than 3',
    );
    expect(failure(Range.atLeast(1), null)).toBe(
      'Invalid value null for configuration k: Value must be non-null',
    );
  });

  it('describes itself as Connect shows it', () => {
    expect(String(Range.atLeast(1))).toBe('[1,...]');
    expect(String(Range.between(0, 10))).toBe('[0,...,10]');
  });
});

describe('ValidString', () => {
  it('accepts only the listed strings, case-sensitively', () => {
    const v = ValidString.in('none', 'all');
    expect(failure(v, 'all')).toBeUndefined();
    expect(failure(v, 'ALL', 'errors.tolerance')).toBe(
      'Invalid value ALL for configuration errors.tolerance: String must be one of: none, all',
    );
    expect(failure(v, null)).toContain('Invalid value null');
    expect(String(v)).toBe('[none, all]');
  });
});

describe('ValidList', () => {
  it('checks every item of a list', () => {
    const v = ValidList.in('a', 'b');
    expect(failure(v, ['a', 'b', 'a'])).toBeUndefined();
    expect(failure(v, ['a', 'c'])).toBe(
      'Invalid value c for configuration k: String must be one of: a, b',
    );
    expect(String(v)).toBe('[a, b]');
  });
});

describe('CaseInsensitiveValidString', () => {
  it('accepts listed strings in any case', () => {
    const v = CaseInsensitiveValidString.in('requested', 'required');
    expect(failure(v, 'REQUIRED')).toBeUndefined();
    expect(failure(v, 'Requested')).toBeUndefined();
    expect(failure(v, 'maybe')).toBe(
      'Invalid value maybe for configuration k: String must be one of (case insensitive): REQUESTED, REQUIRED',
    );
    expect(String(v)).toBe('(case insensitive) [REQUESTED, REQUIRED]');
  });
});

describe('NonNullValidator', () => {
  it('rejects only null', () => {
    expect(failure(new NonNullValidator(), [])).toBeUndefined();
    expect(failure(new NonNullValidator(), null)).toBe(
      'Invalid value null for configuration k: entry must be non null',
    );
    expect(String(new NonNullValidator())).toBe('non-null string');
  });
});

describe('NonEmptyString', () => {
  it('rejects the empty string and lets null through', () => {
    expect(failure(new NonEmptyString(), 'x')).toBeUndefined();
    expect(failure(new NonEmptyString(), null)).toBeUndefined();
    expect(failure(new NonEmptyString(), '')).toBe(
      'Invalid value  for configuration k: String must be non-empty',
    );
    expect(String(new NonEmptyString())).toBe('non-empty string');
  });
});

describe('NonEmptyStringWithoutControlChars', () => {
  it('rejects empty strings and ISO control characters, listing their codes', () => {
    const v = new NonEmptyStringWithoutControlChars();
    expect(failure(v, 'my connector/ü')).toBeUndefined();
    expect(failure(v, '')).toBe('Invalid value  for configuration k: String may not be empty');
    expect(failure(v, 'a\nb\u0085')).toBe(
      'Invalid value a\nb\u0085 for configuration k: String may not contain control sequences but had the following ASCII chars: 10, 133',
    );
    expect(String(v)).toBe('non-empty string without ISO control characters');
  });
});

describe('ListSize', () => {
  it('caps the number of items', () => {
    expect(failure(ListSize.atMostOfSize(2), ['a', 'b'])).toBeUndefined();
    expect(failure(ListSize.atMostOfSize(2), ['a', 'b', 'c'])).toBe(
      'Invalid value [a, b, c] for configuration k: exceeds maximum list size of [2].',
    );
  });
});

describe('CompositeValidator', () => {
  it('runs validators in order and joins their descriptions', () => {
    const v = CompositeValidator.of(new NonNullValidator(), Range.atLeast(1));
    expect(failure(v, null)).toContain('entry must be non null');
    expect(failure(v, 0)).toContain('Value must be at least 1');
    expect(String(v)).toBe('non-null string, [1,...]');
  });
});

describe('LambdaValidator', () => {
  it('delegates checking and describing to functions', () => {
    const v = LambdaValidator.with(
      (name, value) => {
        if (value === 'bad') throw new ConfigError(`${name} is bad`, name);
      },
      () => 'not bad',
    );
    expect(failure(v, 'good')).toBeUndefined();
    expect(failure(v, 'bad')).toBe('k is bad');
    expect(String(v)).toBe('not bad');
  });
});

describe('RegexValidator', () => {
  it('accepts valid regexes and rejects invalid ones', () => {
    expect(failure(new RegexValidator(), 'orders-.*')).toBeUndefined();
    expect(failure(new RegexValidator(), '')).toBeUndefined();
    expect(failure(new RegexValidator(), '(unclosed', 'topics.regex')).toMatch(
      /^Invalid value \(unclosed for configuration topics\.regex: Invalid regex: /,
    );
    expect(String(new RegexValidator())).toBe('valid regex');
  });
});

describe('RegexListValidator', () => {
  it('checks each item is a valid regex', () => {
    expect(failure(new RegexListValidator(), ['a.*', 'b'])).toBeUndefined();
    expect(failure(new RegexListValidator(), ['a', '['])).toContain(
      'Syntax error in regular expression',
    );
  });
});

describe('PatternValidator', () => {
  it('requires the whole string to match', () => {
    const v = PatternValidator.matching('[a-z]+', 'lower-case letters');
    expect(failure(v, 'abc')).toBeUndefined();
    expect(failure(v, null)).toBeUndefined();
    expect(failure(v, 'abc1')).toBe(
      'Invalid value abc1 for configuration k: String must match the pattern [a-z]+',
    );
    expect(String(v)).toBe('lower-case letters');
  });
});

describe('uniqueAliases', () => {
  it('rejects null and duplicate aliases', () => {
    const v = uniqueAliases('transformation aliases');
    expect(failure(v, ['a', 'b'])).toBeUndefined();
    expect(failure(v, ['a', 'a'], 'transforms')).toBe(
      'Invalid value [a, a] for configuration transforms: Duplicate alias provided.',
    );
    expect(failure(v, null)).toContain('entry must be non null');
    expect(String(v)).toBe('non-null string, unique transformation aliases');
  });
});

describe('compileFullMatch', () => {
  it('matches whole inputs like Java Matcher.matches', () => {
    expect(compileFullMatch('orders').test('orders')).toBe(true);
    expect(compileFullMatch('orders').test('orders-dlq')).toBe(false);
    expect(compileFullMatch('a|b').test('ab')).toBe(false);
  });
});
