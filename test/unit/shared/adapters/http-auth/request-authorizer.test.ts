import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { CredentialsSecretError } from '../../../../../shared/adapters/http-auth/credentials-secret.js';
import {
  RequestAuthorizer,
  type RequestAuthorizerOptions,
  stageResource,
  Unauthorized,
} from '../../../../../shared/adapters/http-auth/request-authorizer.js';

const METHOD_ARN =
  'arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/GET/connectors/orders/status';
const STAGE = 'arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/*';
const OLD = 'old-secret-0123456789abcdef';
const NEW = 'new-secret-0123456789abcdef';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function event(
  authorization?: string,
  headerName = 'Authorization',
): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: METHOD_ARN,
    headers: authorization === undefined ? {} : { [headerName]: authorization },
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

/** An authorizer over a secret the test can change, on a clock it moves. */
function fixture(options: Partial<RequestAuthorizerOptions> = {}) {
  const state = {
    secret: JSON.stringify({ connect: OLD }) as string | undefined,
    now: 0,
    reads: 0,
  };
  const warnings: string[] = [];
  const authorizer = new RequestAuthorizer({
    schemes: ['basic', 'bearer'],
    loadSecret: async () => {
      state.reads += 1;
      return state.secret;
    },
    cacheTtlMs: 60_000,
    now: () => state.now,
    logger: {
      error: () => {},
      warn: (message) => warnings.push(message),
      info: () => {},
      debug: () => {},
    },
    ...options,
  });
  return { authorizer, state, warnings };
}

const effectOf = async (authorizer: RequestAuthorizer, header: string) =>
  (await authorizer.authorize(event(header))).policyDocument.Statement[0]?.Effect;

describe('RequestAuthorizer', () => {
  it('allows Basic credentials on the whole stage, under the principal name', async () => {
    // Prepare
    const { authorizer } = fixture();
    // Act
    const result = await authorizer.authorize(event(basic('connect', OLD)));
    // Assess
    expect(result).toEqual({
      principalId: 'connect',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: STAGE }],
      },
    });
  });

  it('allows a Bearer token, whatever the header name case', async () => {
    const { authorizer } = fixture();
    const result = await authorizer.authorize(event(`Bearer ${OLD}`, 'authorization'));
    expect(result.principalId).toBe('connect');
    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow', Resource: STAGE });
  });

  it('denies (403) a wrong password or token, naming no one', async () => {
    // Prepare
    const { authorizer } = fixture();
    // Act
    const wrongPassword = await authorizer.authorize(event(basic('connect', NEW)));
    const wrongToken = await authorizer.authorize(event(`Bearer ${NEW}`));
    // Assess
    for (const result of [wrongPassword, wrongToken]) {
      expect(result.principalId).toBe('unauthenticated');
      expect(result.policyDocument.Statement).toEqual([
        { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: STAGE },
      ]);
    }
  });

  it.each([
    ['missing', undefined],
    ['malformed', 'Basic not-base64!'],
    ['of another scheme', 'Digest username="connect"'],
  ])(
    'answers 401 (Unauthorized) to credentials %s, without reading the secret',
    async (_, header) => {
      // Prepare
      const { authorizer, state } = fixture();
      // Act
      const decided = authorizer.authorize(event(header));
      // Assess
      await expect(decided).rejects.toThrow(Unauthorized);
      await expect(decided).rejects.toThrow(/^Unauthorized$/);
      expect(state.reads).toBe(0);
    },
  );

  it('answers 401 to a Bearer token when only Basic is accepted', async () => {
    const { authorizer } = fixture({ schemes: ['basic'] });
    await expect(authorizer.authorize(event(`Bearer ${OLD}`))).rejects.toThrow(Unauthorized);
    expect(await effectOf(authorizer, basic('connect', OLD))).toBe('Allow');
  });

  it('takes a rotated secret once the cache TTL has passed, reading it once per TTL', async () => {
    // Prepare
    const { authorizer, state } = fixture();
    expect(await effectOf(authorizer, basic('connect', OLD))).toBe('Allow');
    // Act: rotate
    state.secret = JSON.stringify({ connect: NEW });
    state.now = 59_999;
    const beforeTtl = {
      old: await effectOf(authorizer, basic('connect', OLD)),
      new: await effectOf(authorizer, basic('connect', NEW)),
    };
    state.now = 60_000;
    const afterTtl = {
      old: await effectOf(authorizer, basic('connect', OLD)),
      new: await effectOf(authorizer, basic('connect', NEW)),
    };
    // Assess
    expect(beforeTtl).toEqual({ old: 'Allow', new: 'Deny' });
    expect(afterTtl).toEqual({ old: 'Deny', new: 'Allow' });
    expect(state.reads).toBe(2);
  });

  it('fails closed (500, not an Allow) when the secret cannot be read or used', async () => {
    // Prepare
    const unreadable = fixture({
      loadSecret: () => Promise.reject(new Error('AccessDeniedException')),
    });
    const empty = fixture();
    empty.state.secret = undefined;
    const broken = fixture();
    broken.state.secret = '{"connect": ';
    // Act, Assess
    await expect(unreadable.authorizer.authorize(event(basic('connect', OLD)))).rejects.toThrow(
      'AccessDeniedException',
    );
    await expect(empty.authorizer.authorize(event(basic('connect', OLD)))).rejects.toThrow(
      CredentialsSecretError,
    );
    await expect(broken.authorizer.authorize(event(basic('connect', OLD)))).rejects.toThrow(
      CredentialsSecretError,
    );
  });

  it('reads the secret again after a failed read', async () => {
    // Prepare
    const { authorizer, state } = fixture();
    state.secret = undefined;
    await expect(authorizer.authorize(event(basic('connect', OLD)))).rejects.toThrow();
    // Act
    state.secret = JSON.stringify({ connect: OLD });
    // Assess
    expect(await effectOf(authorizer, basic('connect', OLD))).toBe('Allow');
  });

  it('logs the entries it leaves out by principal name, never a secret value', async () => {
    // Prepare
    const { authorizer, state, warnings } = fixture();
    state.secret = JSON.stringify({ connect: OLD, weak: 'short-one' });
    // Act
    const effect = await effectOf(authorizer, basic('connect', OLD));
    // Assess
    expect(effect).toBe('Allow');
    expect(warnings).toEqual([
      "Credentials secret entry left out: principal 'weak' has a secret shorter than 16 characters",
    ]);
  });
});

describe('stageResource', () => {
  it('covers every method and path of the stage', () => {
    expect(stageResource(METHOD_ARN)).toBe(STAGE);
    expect(stageResource('arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/ANY/')).toBe(STAGE);
  });

  it('refuses what is not a method ARN', () => {
    expect(() => stageResource('arn:aws:lambda:eu-west-1:111122223333:function:x')).toThrow(
      /Not an API Gateway method ARN/,
    );
  });
});
