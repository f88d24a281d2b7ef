import * as crypto from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type CredentialScheme,
  Principals,
  parseAuthorization,
} from '../../../../../shared/adapters/http-auth/credentials.js';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const BOTH: CredentialScheme[] = ['basic', 'bearer'];
const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

const ALICE = 'alice-password-0123456789';
const BOB_NEW = 'bob-new-secret-0123456789';
const BOB_OLD = 'bob-old-secret-0123456789';
const principals = () =>
  new Principals(
    new Map([
      ['alice', [ALICE]],
      ['bob', [BOB_NEW, BOB_OLD]],
    ]),
  );

describe('parseAuthorization', () => {
  it('decodes Basic credentials, keeping colons in the password, whatever the scheme case', () => {
    expect(parseAuthorization(basic('alice:pa:ss'), BOTH)).toEqual({
      scheme: 'basic',
      username: 'alice',
      password: 'pa:ss',
    });
    expect(parseAuthorization(basic('alice:x').replace('Basic', 'bAsIc'), ['basic'])).toEqual({
      scheme: 'basic',
      username: 'alice',
      password: 'x',
    });
  });

  it('takes a Bearer token', () => {
    expect(parseAuthorization('Bearer abc-DEF_123.~+/==', BOTH)).toEqual({
      scheme: 'bearer',
      token: 'abc-DEF_123.~+/==',
    });
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['a scheme without credentials', 'Basic'],
    ['Basic that is not base64', 'Basic !!!notbase64'],
    ['Basic without a colon', basic('alice')],
    ['Basic with an empty user name', basic(':password')],
    ['an unknown scheme', 'Digest username="alice"'],
    ['extra words', 'Bearer abc def'],
    ['a token with a character outside visible ASCII', 'Bearer abc\u00e9def'],
  ])('finds no credentials in %s', (_, header) => {
    expect(parseAuthorization(header, BOTH)).toBeUndefined();
  });

  it('ignores a scheme the deployment does not accept', () => {
    expect(parseAuthorization('Bearer abcdef', ['basic'])).toBeUndefined();
    expect(parseAuthorization(basic('alice:x'), ['bearer'])).toBeUndefined();
  });
});

describe('Principals.authenticate', () => {
  beforeEach(() => {
    vi.mocked(crypto.timingSafeEqual).mockClear();
  });

  it('accepts a Basic user with its password, and no one with a wrong name or password', () => {
    // Prepare
    const known = principals();
    // Act, Assess
    expect(known.authenticate({ scheme: 'basic', username: 'alice', password: ALICE })).toBe(
      'alice',
    );
    expect(
      known.authenticate({ scheme: 'basic', username: 'alice', password: `${ALICE}x` }),
    ).toBeUndefined();
    expect(
      known.authenticate({ scheme: 'basic', username: 'bob', password: ALICE }),
    ).toBeUndefined();
    expect(
      known.authenticate({ scheme: 'basic', username: 'carol', password: ALICE }),
    ).toBeUndefined();
  });

  it("accepts any principal's secret as a Bearer token, naming that principal", () => {
    expect(principals().authenticate({ scheme: 'bearer', token: BOB_NEW })).toBe('bob');
    expect(principals().authenticate({ scheme: 'bearer', token: 'unknown-token' })).toBeUndefined();
  });

  it('accepts both secrets of a principal being rotated', () => {
    const known = principals();
    expect(known.authenticate({ scheme: 'basic', username: 'bob', password: BOB_OLD })).toBe('bob');
    expect(known.authenticate({ scheme: 'basic', username: 'bob', password: BOB_NEW })).toBe('bob');
  });

  it('compares with timingSafeEqual over equal-length digests, every secret, no early exit', () => {
    // Prepare
    const known = principals();
    const compare = vi.mocked(crypto.timingSafeEqual);
    // Act: a short wrong password, and a right one for the first principal
    known.authenticate({ scheme: 'basic', username: 'alice', password: 'x' });
    const wrong = compare.mock.calls.length;
    compare.mockClear();
    known.authenticate({ scheme: 'basic', username: 'alice', password: ALICE });
    // Assess: 2 name and 3 secret comparisons either way, each of two SHA-256 digests
    expect(wrong).toBe(5);
    expect(compare.mock.calls).toHaveLength(5);
    for (const [a, b] of compare.mock.calls) {
      expect((a as Buffer).length).toBe(32);
      expect((b as Buffer).length).toBe(32);
    }
  });
});
