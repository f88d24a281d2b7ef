import { ResourceNotFoundException } from '@aws-sdk/client-secrets-manager';
import { ParameterNotFound } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import {
  sdkParameterStoreReader,
  sdkSecretsManagerReader,
} from '../../../../../shared/adapters/config-providers/aws-sdk-readers.js';
import { ConnectError, RetriableError } from '../../../../../shared/connect/errors.js';

/** A client whose `send` answers with `answer(command input)`: no AWS account in unit tests. */
function client(answer: (input: Record<string, unknown>) => unknown) {
  const seen: Record<string, unknown>[] = [];
  return {
    seen,
    send: async (command: { input: Record<string, unknown> }) => {
      seen.push(command.input);
      return answer(command.input);
    },
  };
}

// The SDK's `send` is overloaded per command; the fakes answer the one command each reader sends.
const asSecretsClient = (fake: unknown) => fake as Parameters<typeof sdkSecretsManagerReader>[0];
const asSsmClient = (fake: unknown) => fake as Parameters<typeof sdkParameterStoreReader>[0];

describe('AWS SDK readers for config providers', () => {
  it('reads a secret string, and undefined for a secret that does not exist', async () => {
    const fake = client((input) => {
      if (input.SecretId === 'db') return { SecretString: '{"password":"s3cr3t"}' };
      throw new ResourceNotFoundException({ message: 'no such secret', $metadata: {} });
    });
    const reader = sdkSecretsManagerReader(asSecretsClient(fake));
    expect(await reader.getSecretString('db')).toBe('{"password":"s3cr3t"}');
    expect(await reader.getSecretString('missing')).toBeUndefined();
  });

  it('reads a decrypted parameter, and undefined for a parameter that does not exist', async () => {
    const fake = client((input) => {
      if (input.Name === '/app/key') return { Parameter: { Value: 'v' } };
      throw new ParameterNotFound({ message: 'no such parameter', $metadata: {} });
    });
    const reader = sdkParameterStoreReader(asSsmClient(fake));
    expect(await reader.getParameter('/app/key')).toBe('v');
    expect(fake.seen[0]).toEqual({ Name: '/app/key', WithDecryption: true });
    expect(await reader.getParameter('/nope')).toBeUndefined();
  });

  it('makes throttling retriable and other failures non-retriable, naming the secret only', async () => {
    const throttled = client(() => {
      throw Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    });
    const denied = client(() => {
      throw Object.assign(new Error('denied'), { name: 'AccessDeniedException' });
    });
    await expect(
      sdkSecretsManagerReader(asSecretsClient(throttled)).getSecretString('db'),
    ).rejects.toBeInstanceOf(RetriableError);
    const failure = sdkSecretsManagerReader(asSecretsClient(denied)).getSecretString('db');
    await expect(failure).rejects.toBeInstanceOf(ConnectError);
    await expect(failure).rejects.toThrow('reading secret db: AccessDeniedException');
  });
});
