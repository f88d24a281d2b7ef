/**
 * The Connect tools' credentials secret (AWS Secrets Manager, a JSON object): one entry per
 * principal, its name the Basic user name, its value the secret it presents (Basic password or
 * Bearer token), or a list of secrets while one is being rotated:
 *
 * ```json
 * { "connect": "generated-40-characters", "kafka-ui": ["new-secret…", "old-secret…"] }
 * ```
 *
 * The construct's generated secret is `{"connect": "<40 random letters and digits>"}`.
 */
import { Principals } from './credentials.js';

/** The shortest secret accepted: shorter ones are left out (with a problem reported). */
export const MIN_SECRET_LENGTH = 16;

/** The secret is unusable as a whole: not a JSON object, or no usable principal. */
export class CredentialsSecretError extends Error {
  override readonly name = 'CredentialsSecretError';
}

/** The parsed secret and what was left out of it (principal names and reasons, no values). */
export interface ParsedCredentialsSecret {
  readonly principals: Principals;
  readonly problems: readonly string[];
}

/** Why an entry cannot be used, or `undefined` when it can. */
function entryProblem(name: string, secrets: readonly unknown[]): string | undefined {
  if (name.length === 0 || name.includes(':') || /\p{Cc}/u.test(name)) {
    return `principal name '${name.replace(/\p{Cc}/gu, '?')}' is empty or holds a colon or a control character`;
  }
  if (secrets.length === 0) return `principal '${name}' has no secret`;
  if (secrets.some((s) => typeof s !== 'string')) {
    return `principal '${name}' has a secret that is not a string`;
  }
  if (secrets.some((s) => (s as string).length < MIN_SECRET_LENGTH)) {
    return `principal '${name}' has a secret shorter than ${MIN_SECRET_LENGTH} characters`;
  }
  return undefined;
}

/**
 * Parses the secret's string. Unusable entries are left out and reported in `problems`; throws
 * {@link CredentialsSecretError} (never quoting the secret) when nothing usable is left.
 */
export function parseCredentialsSecret(text: string): ParsedCredentialsSecret {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the input: never surface it.
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CredentialsSecretError(
      'The credentials secret is not a JSON object of principal names to secrets',
    );
  }
  const usable = new Map<string, string[]>();
  const problems: string[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    const secrets: unknown[] = Array.isArray(value) ? value : [value];
    const problem = entryProblem(name, secrets);
    if (problem === undefined) usable.set(name, secrets as string[]);
    else problems.push(problem);
  }
  if (usable.size === 0) {
    throw new CredentialsSecretError(
      `The credentials secret has no usable principal${problems.length === 0 ? '' : `: ${problems.join('; ')}`}`,
    );
  }
  return { principals: new Principals(usable), problems };
}
