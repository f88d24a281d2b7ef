import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import type {
  AuthenticationProviderArgs,
  KafkaConfig,
  Logger,
  Mechanism,
  SaslAuthenticateArgs,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  IAM_TOKEN_REFRESH_MARGIN_MS,
  type KafkaAuthDeps,
  kafkaSasl,
  type MskIamToken,
  parseScramSecret,
} from '../../../../../shared/adapters/kafkajs/auth.js';
import { ConfigError, RetriableError } from '../../../../../shared/connect/errors.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_connect-AbCdEf';

const silent: Logger = {
  info: () => {},
  error: () => {},
  warn: () => {},
  debug: () => {},
  namespace: () => silent,
  setLogLevel: () => {},
};

/** A secret reader that counts its reads and serves whatever `value` holds at the time. */
function fakeSecrets(initial: string | undefined) {
  const state = { value: initial, reads: [] as string[] };
  const readSecret = async (secretId: string) => {
    state.reads.push(secretId);
    return state.value;
  };
  return { state, readSecret };
}

const noIamToken = async (): Promise<MskIamToken> => {
  throw new Error('not used');
};

function deps(overrides: Partial<KafkaAuthDeps>): KafkaAuthDeps {
  return { readSecret: async () => undefined, iamToken: noIamToken, ...overrides };
}

/**
 * The broker side of SCRAM (RFC 5802) for one user, over kafkajs' `saslAuthenticate`: it checks
 * the client's proof against the password it knows, as a broker does.
 */
function scramBroker(digest: 'sha256' | 'sha512', username: string, password: string) {
  const salt = randomBytes(16);
  const iterations = 4096;
  const hmac = (key: Buffer, data: string) => createHmac(digest, key).update(data).digest();
  const salted = pbkdf2Sync(password, salt, iterations, digest === 'sha512' ? 64 : 32, digest);
  const seen = { users: [] as string[], outcome: 'none' as 'none' | 'accepted' | 'rejected' };
  let clientFirstBare = '';
  let serverFirst = '';
  const saslAuthenticate = async <T>(args: SaslAuthenticateArgs<T>): Promise<T | undefined> => {
    // kafkajs encodes the message as Kafka BYTES: an int32 length, then the bytes.
    const message = Buffer.from(await args.request.encode())
      .subarray(4)
      .toString();
    if (message.startsWith('n,,')) {
      clientFirstBare = message.slice(3);
      const fields = new Map(clientFirstBare.split(',').map((f) => [f[0], f.slice(2)]));
      seen.users.push(fields.get('n') ?? '');
      serverFirst = `r=${fields.get('r')}server,s=${salt.toString('base64')},i=${iterations}`;
      return {
        original: serverFirst,
        r: `${fields.get('r')}server`,
        s: salt.toString('base64'),
        i: String(iterations),
      } as T;
    }
    const [withoutProof, proof] = message.split(',p=');
    const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
    const clientKey = hmac(salted, 'Client Key');
    const storedKey = createHash(digest).update(clientKey).digest();
    const signature = hmac(storedKey, authMessage);
    const expected = Buffer.from(clientKey.map((b, i) => b ^ (signature[i] ?? 0))).toString(
      'base64',
    );
    const ok = seen.users.at(-1) === username && proof === expected;
    seen.outcome = ok ? 'accepted' : 'rejected';
    return (
      ok
        ? { v: hmac(hmac(salted, 'Server Key'), authMessage).toString('base64') }
        : { e: 'invalid-proof' }
    ) as T;
  };
  const args: AuthenticationProviderArgs = {
    host: 'b-1',
    port: 9096,
    logger: silent,
    saslAuthenticate,
  };
  return { args, seen };
}

function asMechanism(sasl: KafkaConfig['sasl']): Mechanism {
  if (sasl === undefined || !('authenticationProvider' in sasl)) {
    throw new Error('expected a kafkajs Mechanism with an authenticationProvider');
  }
  return sasl;
}

function oauthProvider(sasl: KafkaConfig['sasl']) {
  if (sasl?.mechanism !== 'oauthbearer' || !('oauthBearerProvider' in sasl)) {
    throw new Error('expected the oauthbearer mechanism');
  }
  return sasl.oauthBearerProvider;
}

describe('kafkaSasl', () => {
  it('gives no SASL option without authentication', () => {
    expect(kafkaSasl({ mode: 'none' }, deps({}))).toBeUndefined();
  });

  it('logs in with SCRAM-SHA-512 using the username and password of the secret', async () => {
    // Prepare
    const secrets = fakeSecrets('{"username":"connect","password":"s3cr=t,pw"}');
    const sasl = asMechanism(
      kafkaSasl(
        { mode: 'scram', mechanism: 'scram-sha-512', secretArn: SECRET_ARN },
        deps({ readSecret: secrets.readSecret }),
      ),
    );
    const broker = scramBroker('sha512', 'connect', 's3cr=t,pw');

    // Act
    await sasl.authenticationProvider(broker.args).authenticate();

    // Assess
    expect(sasl.mechanism).toBe('scram-sha-512');
    expect(broker.seen).toEqual({ users: ['connect'], outcome: 'accepted' });
    expect(secrets.state.reads).toEqual([SECRET_ARN]);
  });

  it('logs in with SCRAM-SHA-256 when that is the mechanism', async () => {
    const secrets = fakeSecrets('{"username":"connect","password":"pw"}');
    const sasl = asMechanism(
      kafkaSasl(
        { mode: 'scram', mechanism: 'scram-sha-256', secretArn: SECRET_ARN },
        deps({ readSecret: secrets.readSecret }),
      ),
    );
    const broker = scramBroker('sha256', 'connect', 'pw');

    await sasl.authenticationProvider(broker.args).authenticate();

    expect(sasl.mechanism).toBe('scram-sha-256');
    expect(broker.seen.outcome).toBe('accepted');
  });

  it('reads the secret once for every connection of the container', async () => {
    // Prepare
    const secrets = fakeSecrets('{"username":"connect","password":"pw"}');
    const sasl = asMechanism(
      kafkaSasl(
        { mode: 'scram', mechanism: 'scram-sha-512', secretArn: SECRET_ARN },
        deps({ readSecret: secrets.readSecret }),
      ),
    );

    // Act
    for (let i = 0; i < 3; i++) {
      await sasl.authenticationProvider(scramBroker('sha512', 'connect', 'pw').args).authenticate();
    }

    // Assess
    expect(secrets.state.reads).toHaveLength(1);
  });

  it('reads the secret again after the broker rejected its credentials (rotation)', async () => {
    // Prepare
    const secrets = fakeSecrets('{"username":"connect","password":"old"}');
    const sasl = asMechanism(
      kafkaSasl(
        { mode: 'scram', mechanism: 'scram-sha-512', secretArn: SECRET_ARN },
        deps({ readSecret: secrets.readSecret }),
      ),
    );

    // Act
    const rejected = sasl.authenticationProvider(scramBroker('sha512', 'connect', 'new').args);
    await expect(rejected.authenticate()).rejects.toMatchObject({
      name: 'KafkaJSSASLAuthenticationError',
    });
    secrets.state.value = '{"username":"connect","password":"new"}';
    const broker = scramBroker('sha512', 'connect', 'new');
    await sasl.authenticationProvider(broker.args).authenticate();

    // Assess
    expect(broker.seen.outcome).toBe('accepted');
    expect(secrets.state.reads).toHaveLength(2);
  });

  it('fails with a non-retriable ConfigError naming the secret when it is missing, and reads again next time', async () => {
    // Prepare
    const secrets = fakeSecrets(undefined);
    const sasl = asMechanism(
      kafkaSasl(
        { mode: 'scram', mechanism: 'scram-sha-512', secretArn: SECRET_ARN },
        deps({ readSecret: secrets.readSecret }),
      ),
    );
    const broker = scramBroker('sha512', 'connect', 'pw');

    // Act
    const first = sasl.authenticationProvider(broker.args).authenticate();
    await expect(first).rejects.toBeInstanceOf(ConfigError);
    await expect(first).rejects.toMatchObject({
      retriable: false,
      key: 'KAFKA_SASL_SECRET_ARN',
      message: expect.stringContaining(SECRET_ARN),
    });
    secrets.state.value = '{"username":"connect","password":"pw"}';
    await sasl.authenticationProvider(broker.args).authenticate();

    // Assess
    expect(broker.seen.users).toEqual(['connect']);
    expect(secrets.state.reads).toHaveLength(2);
  });

  it('signs an MSK IAM token and reuses it until a minute before it expires', async () => {
    // Prepare
    let now = 1_000_000;
    const signed: MskIamToken[] = [];
    const iamToken = async () => {
      const token = { token: `token-${signed.length + 1}`, expiryTime: now + 15 * 60_000 };
      signed.push(token);
      return token;
    };
    const provide = oauthProvider(kafkaSasl({ mode: 'iam' }, deps({ iamToken, now: () => now })));

    // Act
    const first = await provide();
    now += 14 * 60_000 - IAM_TOKEN_REFRESH_MARGIN_MS / 2;
    const reused = await provide();
    now += IAM_TOKEN_REFRESH_MARGIN_MS;
    const refreshed = await provide();

    // Assess
    expect([first, reused, refreshed]).toEqual([
      { value: 'token-1' },
      { value: 'token-1' },
      { value: 'token-2' },
    ]);
    expect(signed).toHaveLength(2);
  });

  it('reports a failed token signing as retriable', async () => {
    const iamToken = async (): Promise<MskIamToken> => {
      throw new Error('Could not load credentials from any providers');
    };
    const provide = oauthProvider(kafkaSasl({ mode: 'iam' }, deps({ iamToken })));

    const failed = provide();

    await expect(failed).rejects.toBeInstanceOf(RetriableError);
    await expect(failed).rejects.toThrow(/MSK IAM.*Could not load credentials/);
  });
});

describe('parseScramSecret', () => {
  it('reads username and password from the JSON MSK requires', () => {
    expect(parseScramSecret(SECRET_ARN, '{"username":"u","password":"p","extra":1}')).toEqual({
      username: 'u',
      password: 'p',
    });
  });

  it.each([
    ['not JSON', 'user:password'],
    ['no password', '{"username":"u"}'],
    ['an empty username', '{"username":"","password":"p"}'],
    ['a number for a username', '{"username":1,"password":"p"}'],
    ['an array', '["u","p"]'],
  ])('refuses a secret with %s, without echoing its value', (_, value) => {
    const parse = () => parseScramSecret(SECRET_ARN, value);

    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(/must hold JSON \{"username": "...", "password": "..."\}/);
    try {
      parse();
    } catch (error) {
      expect((error as Error).message).not.toContain(value);
    }
  });
});
