import { describe, expect, it } from 'vitest';
import {
  CredentialsSecretError,
  MIN_SECRET_LENGTH,
  parseCredentialsSecret,
} from '../../../../../shared/adapters/http-auth/credentials-secret.js';

const GOOD = 'a-good-secret-0123456789';

describe('parseCredentialsSecret', () => {
  it('reads principals with one secret or a list of them', () => {
    // Act
    const { principals, problems } = parseCredentialsSecret(
      JSON.stringify({ connect: GOOD, 'kafka-ui': [`${GOOD}-new`, `${GOOD}-old`] }),
    );
    // Assess
    expect(problems).toEqual([]);
    expect(principals.size).toBe(2);
    expect(principals.authenticate({ scheme: 'bearer', token: `${GOOD}-old` })).toBe('kafka-ui');
  });

  it('leaves out unusable entries, naming them but never quoting a secret', () => {
    // Act
    const { principals, problems } = parseCredentialsSecret(
      JSON.stringify({
        connect: GOOD,
        short: 'tiny-secret',
        'with:colon': GOOD,
        numeric: 1234567890123456,
        empty: [],
      }),
    );
    // Assess
    expect(principals.size).toBe(1);
    expect(problems).toEqual([
      `principal 'short' has a secret shorter than ${MIN_SECRET_LENGTH} characters`,
      "principal name 'with:colon' is empty or holds a colon or a control character",
      "principal 'numeric' has a secret that is not a string",
      "principal 'empty' has no secret",
    ]);
    expect(problems.join(' ')).not.toContain('tiny-secret');
    expect(problems.join(' ')).not.toContain(GOOD);
  });

  it.each([
    ['not JSON', `{"connect": "${GOOD}"`],
    ['a JSON array', JSON.stringify([GOOD])],
    ['a JSON string', JSON.stringify(GOOD)],
    ['an object without a usable entry', JSON.stringify({ connect: 'tiny-secret' })],
    ['an empty object', '{}'],
  ])('refuses a secret that is %s, without quoting it', (_, text) => {
    // Act
    const parse = () => parseCredentialsSecret(text);
    // Assess
    expect(parse).toThrow(CredentialsSecretError);
    try {
      parse();
    } catch (error) {
      expect((error as Error).message).not.toContain(GOOD);
      expect((error as Error).message).not.toContain('tiny-secret');
    }
  });
});
