import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { authorizerHandler } from '../../../functions/authorizer/handler.js';
import { Unauthorized } from '../../../shared/adapters/http-auth/request-authorizer.js';
import { MOTO_CREDENTIALS, uniqueName } from '../../support/services.js';

/**
 * The authorizer function's handler (functions/authorizer) against moto's Secrets Manager: the
 * real SDK call, the secret's JSON as Secrets Manager returns it, and a rotation by
 * PutSecretValue taking effect after the cache TTL.
 */
const METHOD_ARN = 'arn:aws:execute-api:us-east-1:123456789012:abc123/v1/GET/connectors';
const FIRST = 'first-secret-0123456789abcdef';
const SECOND = 'second-secret-0123456789abcdef';

const secretsManager = new SecretsManagerClient({
  endpoint: inject('motoEndpoint'),
  region: 'us-east-1',
  credentials: MOTO_CREDENTIALS,
});
afterAll(() => secretsManager.destroy());

const request = (authorization?: string): APIGatewayRequestAuthorizerEvent =>
  ({
    type: 'REQUEST',
    methodArn: METHOD_ARN,
    headers: authorization === undefined ? {} : { Authorization: authorization },
  }) as unknown as APIGatewayRequestAuthorizerEvent;
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function createSecret(value: Record<string, unknown>): Promise<string> {
  const { ARN } = await secretsManager.send(
    new CreateSecretCommand({
      Name: uniqueName('connect-tools'),
      SecretString: JSON.stringify(value),
    }),
  );
  if (ARN === undefined) throw new Error('moto returned no ARN');
  return ARN;
}

const handlerFor = (arn: string, cacheTtlSeconds = 60) =>
  authorizerHandler(
    { credentialsSecretArn: arn, credentialSchemes: 'both', cacheTtlSeconds, logLevel: 'error' },
    secretsManager,
  );

const effect = async (handler: ReturnType<typeof handlerFor>, authorization: string) =>
  (await handler(request(authorization))).policyDocument.Statement[0]?.Effect;

describe('authorizer handler with Secrets Manager (moto)', () => {
  it('allows Basic and Bearer with the secret, denies wrong ones, and refuses missing ones', async () => {
    // Prepare
    const handler = handlerFor(await createSecret({ connect: FIRST, 'kafka-ui': SECOND }));
    // Act
    const allowed = await handler(request(basic('connect', FIRST)));
    const bearer = await handler(request(`Bearer ${SECOND}`));
    const wrong = await effect(handler, basic('connect', SECOND));
    const missing = handler(request());
    // Assess
    expect(allowed).toMatchObject({
      principalId: 'connect',
      policyDocument: {
        Statement: [
          {
            Effect: 'Allow',
            Resource: 'arn:aws:execute-api:us-east-1:123456789012:abc123/v1/*',
          },
        ],
      },
    });
    expect(bearer.principalId).toBe('kafka-ui');
    expect(wrong).toBe('Deny');
    await expect(missing).rejects.toThrow(Unauthorized);
  });

  it('takes a rotated secret (PutSecretValue) once the cache TTL has passed', async () => {
    // Prepare
    const arn = await createSecret({ connect: FIRST });
    const handler = handlerFor(arn, 1);
    expect(await effect(handler, basic('connect', FIRST))).toBe('Allow');
    // Act
    await secretsManager.send(
      new PutSecretValueCommand({
        SecretId: arn,
        SecretString: JSON.stringify({ connect: SECOND }),
      }),
    );
    const cached = await effect(handler, basic('connect', FIRST));
    await sleep(1_100);
    const afterTtl = {
      first: await effect(handler, basic('connect', FIRST)),
      second: await effect(handler, basic('connect', SECOND)),
    };
    // Assess
    expect(cached).toBe('Allow');
    expect(afterTtl).toEqual({ first: 'Deny', second: 'Allow' });
  });

  it('fails closed when the secret does not exist', async () => {
    // Prepare
    const handler = handlerFor(
      'arn:aws:secretsmanager:us-east-1:123456789012:secret:no-such-secret-AbCdEf',
    );
    // Act
    const decided = handler(request(basic('connect', FIRST)));
    // Assess
    await expect(decided).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
