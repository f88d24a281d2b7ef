/**
 * HTTP Basic and Bearer credentials, as Kafka Connect tools send them (Apache Kafka's
 * `BasicAuthSecurityRestExtension` clients, kcctl, Kafka UI, AKHQ, Lenses, Conduktor): parsing
 * the `Authorization` header and checking it against the known principals in constant time.
 * Shared by the API Gateway REQUEST authorizer (functions/authorizer) and the local REST server.
 *
 * Never put a presented or stored credential in an error, a log line or a return value: only
 * principal names leave this module.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** An `Authorization` scheme the API accepts. */
export type CredentialScheme = 'basic' | 'bearer';

/** Which schemes a deployment accepts (the construct's `connectTools.credentials`). */
export type CredentialSchemes = 'basic' | 'bearer' | 'both';

/** The schemes of each {@link CredentialSchemes} choice. */
export const SCHEMES_OF: Readonly<Record<CredentialSchemes, readonly CredentialScheme[]>> = {
  basic: ['basic'],
  bearer: ['bearer'],
  both: ['basic', 'bearer'],
};

/** What a request presented, decoded. */
export type PresentedCredentials =
  | { readonly scheme: 'basic'; readonly username: string; readonly password: string }
  | { readonly scheme: 'bearer'; readonly token: string };

/** RFC 7617's base64 token (padding optional, as some clients send it). */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/**
 * A Bearer token: visible ASCII. Wider than RFC 6750's b64token, so a secret with punctuation
 * works as a token too; it is compared, never interpreted.
 */
const TOKEN = /^[\x21-\x7e]+$/;

/**
 * The credentials of an `Authorization` header in one of `schemes` (scheme names are
 * case-insensitive); `undefined` when the header is missing, malformed, or of another scheme:
 * the request is unauthenticated (401).
 */
export function parseAuthorization(
  header: string | undefined,
  schemes: readonly CredentialScheme[],
): PresentedCredentials | undefined {
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(header ?? '');
  if (match === null) return undefined;
  const scheme = (match[1] ?? '').toLowerCase();
  const value = match[2] ?? '';
  if (scheme === 'bearer' && schemes.includes('bearer')) {
    return TOKEN.test(value) ? { scheme: 'bearer', token: value } : undefined;
  }
  if (scheme === 'basic' && schemes.includes('basic')) {
    if (!BASE64.test(value)) return undefined;
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // RFC 7617: the user-id cannot contain a colon; the password can.
    if (colon <= 0) return undefined;
    return {
      scheme: 'basic',
      username: decoded.slice(0, colon),
      password: decoded.slice(colon + 1),
    };
  }
  return undefined;
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * The principals a deployment knows, each with the secrets it may present (more than one while
 * a secret is being rotated). A principal's secret is its Basic password (with its name as the
 * user name) and its Bearer token. Only SHA-256 digests are kept, so every comparison is between
 * equal-length values and the secrets' lengths do not leak.
 */
export class Principals {
  readonly #entries: readonly { readonly name: Buffer; readonly secrets: readonly Buffer[] }[];
  readonly #names: readonly string[];

  constructor(principals: ReadonlyMap<string, readonly string[]>) {
    this.#names = [...principals.keys()];
    this.#entries = [...principals].map(([name, secrets]) => ({
      name: digest(name),
      secrets: secrets.map(digest),
    }));
  }

  /** How many principals there are. */
  get size(): number {
    return this.#names.length;
  }

  /**
   * The name of the principal `presented` authenticates, or `undefined`. Every principal and
   * every secret is compared (no early exit), each with `timingSafeEqual` over digests.
   */
  authenticate(presented: PresentedCredentials): string | undefined {
    const name = presented.scheme === 'basic' ? digest(presented.username) : undefined;
    const secret = digest(presented.scheme === 'basic' ? presented.password : presented.token);
    let found: string | undefined;
    this.#entries.forEach((entry, i) => {
      const nameMatches = name === undefined || timingSafeEqual(name, entry.name);
      let secretMatches = false;
      for (const candidate of entry.secrets) {
        secretMatches = timingSafeEqual(secret, candidate) || secretMatches;
      }
      if (nameMatches && secretMatches && found === undefined) found = this.#names[i];
    });
    return found;
  }
}
