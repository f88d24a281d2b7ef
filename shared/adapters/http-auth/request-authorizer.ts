/**
 * API Gateway's Lambda REQUEST authorizer for the Connect tools: Basic and/or Bearer credentials
 * checked against the credentials secret ({@link parseCredentialsSecret}), read through an
 * injected loader and kept for a short TTL, so a rotated secret takes effect within that TTL.
 *
 * - Missing, malformed or other-scheme `Authorization` → throws {@link Unauthorized}: API Gateway
 *   answers 401.
 * - Wrong credentials → a Deny policy: 403.
 * - Right credentials → an Allow policy on every method and path of the API's stage, so a result
 *   API Gateway caches (per `Authorization` header) is right for every later request, whatever
 *   its path. The principal's name is the policy's `principalId` (in the access logs).
 * - The secret cannot be read or used → throws that error: API Gateway answers 500 and the
 *   request is refused (fail closed).
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { type Logger, silentLogger } from '../../ports/logger.js';
import { type CredentialScheme, type Principals, parseAuthorization } from './credentials.js';
import { CredentialsSecretError, parseCredentialsSecret } from './credentials-secret.js';

/**
 * The error API Gateway turns into 401: a Lambda authorizer signals "unauthenticated" by
 * failing with exactly this message.
 */
export class Unauthorized extends Error {
  override readonly name = 'Unauthorized';
  constructor() {
    super('Unauthorized');
  }
}

export interface RequestAuthorizerOptions {
  /** The schemes accepted (others are answered 401). */
  readonly schemes: readonly CredentialScheme[];
  /** Reads the credentials secret's string; `undefined` when it has none. */
  readonly loadSecret: () => Promise<string | undefined>;
  /** How long a read secret is used before it is read again (rotation delay), in ms. */
  readonly cacheTtlMs: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** Where the secret's problems go (principal names, never values). @default silentLogger */
  readonly logger?: Logger;
}

/** The principal of a denied request (no presented name is ever echoed). */
const DENIED_PRINCIPAL = 'unauthenticated';

/**
 * `arn:aws:execute-api:<region>:<account>:<api>/<stage>/*` from a method ARN
 * (`…:<api>/<stage>/<METHOD>/<path>`): every method and path of the stage.
 */
export function stageResource(methodArn: string): string {
  const [api, stage] = methodArn.split('/');
  if (api === undefined || stage === undefined || stage === '' || !api.includes(':execute-api:')) {
    throw new Error(`Not an API Gateway method ARN: ${methodArn}`);
  }
  return `${api}/${stage}/*`;
}

function policy(
  effect: 'Allow' | 'Deny',
  principalId: string,
  methodArn: string,
): APIGatewayAuthorizerResult {
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [
        { Action: 'execute-api:Invoke', Effect: effect, Resource: stageResource(methodArn) },
      ],
    },
  };
}

/** The `Authorization` header, whatever its case (REST APIs pass header names as sent). */
function authorizationHeader(event: APIGatewayRequestAuthorizerEvent): string | undefined {
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (name.toLowerCase() === 'authorization') return value ?? undefined;
  }
  return undefined;
}

/** The authorizer: one instance per container (it holds the cached secret). */
export class RequestAuthorizer {
  readonly #options: RequestAuthorizerOptions;
  readonly #now: () => number;
  readonly #logger: Logger;
  #cached: { readonly principals: Principals; readonly expiresAt: number } | undefined;

  constructor(options: RequestAuthorizerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Decides one request (see the module's documentation). */
  async authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
    const presented = parseAuthorization(authorizationHeader(event), this.#options.schemes);
    if (presented === undefined) throw new Unauthorized();
    const principal = (await this.#principals()).authenticate(presented);
    return principal === undefined
      ? policy('Deny', DENIED_PRINCIPAL, event.methodArn)
      : policy('Allow', principal, event.methodArn);
  }

  /** The principals, read again once the TTL has passed. */
  async #principals(): Promise<Principals> {
    const now = this.#now();
    if (this.#cached !== undefined && this.#cached.expiresAt > now) return this.#cached.principals;
    const text = await this.#options.loadSecret();
    if (text === undefined) {
      throw new CredentialsSecretError('The credentials secret has no string value');
    }
    const { principals, problems } = parseCredentialsSecret(text);
    for (const problem of problems) {
      this.#logger.warn(`Credentials secret entry left out: ${problem}`);
    }
    this.#cached = { principals, expiresAt: now + this.#options.cacheTtlMs };
    return principals;
  }
}
