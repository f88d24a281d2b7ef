import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { SCHEMES_OF } from '../../shared/adapters/http-auth/credentials.js';
import { RequestAuthorizer } from '../../shared/adapters/http-auth/request-authorizer.js';
import { jsonLogger } from '../../shared/adapters/logging/json-logger.js';
import { type AuthorizerEnv, readAuthorizerEnv } from '../_env.js';

/**
 * The REST API's Lambda REQUEST authorizer for Connect tools (Basic and/or Bearer), over the
 * credentials secret in Secrets Manager. Deliberately tiny: no engine, no Kafka client.
 */
export function authorizerHandler(
  env: AuthorizerEnv,
  secretsManager: Pick<SecretsManagerClient, 'send'>,
): (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult> {
  const authorizer = new RequestAuthorizer({
    schemes: SCHEMES_OF[env.credentialSchemes],
    // An SDK error (names the secret, never a value) fails the invocation: API Gateway answers 500.
    loadSecret: async () =>
      (await secretsManager.send(new GetSecretValueCommand({ SecretId: env.credentialsSecretArn })))
        .SecretString,
    cacheTtlMs: env.cacheTtlSeconds * 1000,
    logger: jsonLogger(env.logLevel, { logger: 'serverless-connect.authorizer' }),
  });
  return (event) => authorizer.authorize(event);
}

let built: ReturnType<typeof authorizerHandler> | undefined;

export const handler = (event: APIGatewayRequestAuthorizerEvent) => {
  built ??= authorizerHandler(readAuthorizerEnv(), new SecretsManagerClient({}));
  return built(event);
};
