import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { ConnectError, RetriableError } from '../../connect/errors.js';
import type { ParameterStoreReader, SecretsManagerReader } from './aws-provider.js';

const throttling = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'ThrottledException',
  'InternalServiceError',
  'InternalServerError',
]);

function mapAwsError(error: unknown, what: string): ConnectError {
  const name = (error as { name?: string }).name ?? 'Error';
  // The message names the secret or parameter, never a value.
  if (throttling.has(name) || (error as { $retryable?: unknown }).$retryable !== undefined) {
    return new RetriableError(`${what}: ${name}`, { cause: error });
  }
  return new ConnectError(`${what}: ${name}`, { cause: error });
}

/** Secrets Manager through the AWS SDK: the secret's string, `undefined` when there is none. */
export function sdkSecretsManagerReader(
  client: Pick<SecretsManagerClient, 'send'> = new SecretsManagerClient({}),
): SecretsManagerReader {
  return {
    async getSecretString(secretId) {
      try {
        const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
        return out.SecretString;
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return undefined;
        throw mapAwsError(error, `reading secret ${secretId}`);
      }
    },
  };
}

/** SSM Parameter Store through the AWS SDK (decrypted), `undefined` when there is none. */
export function sdkParameterStoreReader(
  client: Pick<SSMClient, 'send'> = new SSMClient({}),
): ParameterStoreReader {
  return {
    async getParameter(name) {
      try {
        const out = await client.send(
          new GetParameterCommand({ Name: name, WithDecryption: true }),
        );
        return out.Parameter?.Value;
      } catch (error) {
        if (error instanceof ParameterNotFound) return undefined;
        throw mapAwsError(error, `reading parameter ${name}`);
      }
    },
  };
}
