/**
 * Which sink connector an invocation is for. The Kafka event does not say, so each sink
 * connector's event source mappings invoke the sink function through a Lambda alias derived from
 * the connector's name, and the handler reads the alias back from `invokedFunctionArn`.
 */
import { createHash } from 'node:crypto';
import type { ConfigStore } from '../../ports/config-store.js';
import { UnknownSinkAliasError } from './errors.js';

/** Lambda's alias limits: `[a-zA-Z0-9-_]+`, not only digits, 1..128 characters. */
const ALIAS_MAX = 128;
const HASH_CHARS = 8;
const PREFIX = 'c-';

/**
 * The Lambda alias through which `connector`'s mappings invoke the sink function:
 * `c-<name>-<hash>`, where `<name>` is the connector name with every character Lambda refuses
 * replaced by `_` (cut so the whole alias fits in 128 characters) and `<hash>` is 8 hex
 * characters of the SHA-256 of the exact name, so names that differ only in replaced characters
 * (`a.b` and `a_b`) get different aliases. Always a valid alias (it starts with a letter).
 *
 * @example
 * sinkFunctionAlias('orders.s3'); // 'c-orders_s3-1a2b3c4d'
 */
export function sinkFunctionAlias(connector: string): string {
  const hash = createHash('sha256').update(connector, 'utf8').digest('hex').slice(0, HASH_CHARS);
  const room = ALIAS_MAX - PREFIX.length - 1 - HASH_CHARS;
  const safe = connector.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, room);
  return `${PREFIX}${safe}-${hash}`;
}

/**
 * The alias of a qualified function ARN (`arn:aws:lambda:<region>:<account>:function:<name>:<alias>`,
 * the 8th field), or `undefined` when the ARN is unqualified or names a version (`$LATEST`, `7`).
 */
export function aliasOfFunctionArn(arn: string): string | undefined {
  const qualifier = arn.split(':')[7];
  if (qualifier === undefined || qualifier === '' || qualifier === '$LATEST') return undefined;
  return /^\d+$/.test(qualifier) ? undefined : qualifier;
}

/**
 * Maps a function alias back to its sink connector by computing the alias of every connector in
 * the config store. The map is kept per container and rebuilt when an alias is not in it (a
 * connector created since), at most one rebuild at a time.
 */
export class ConnectorAliasResolver {
  #byAlias = new Map<string, string>();
  #refreshing: Promise<void> | undefined;

  constructor(private readonly configs: Pick<ConfigStore, 'listConnectors'>) {}

  /**
   * The connector the invocation of `invokedFunctionArn` is for.
   * @throws UnknownSinkAliasError when the ARN names no alias, or one no connector uses.
   */
  async connectorOfArn(invokedFunctionArn: string): Promise<string> {
    const alias = aliasOfFunctionArn(invokedFunctionArn);
    if (alias === undefined) {
      throw new UnknownSinkAliasError(
        undefined,
        `The sink-task function was invoked as ${invokedFunctionArn}, without a connector alias: ` +
          'sink connectors invoke it through the alias of their name (sinkFunctionAlias); ' +
          'invoke it through that alias, never unqualified or by version',
      );
    }
    return this.connectorOf(alias);
  }

  /**
   * The connector whose alias is `alias`.
   * @throws UnknownSinkAliasError when no connector in the store has that alias.
   */
  async connectorOf(alias: string): Promise<string> {
    const cached = this.#byAlias.get(alias);
    if (cached !== undefined) return cached;
    await this.refresh();
    const found = this.#byAlias.get(alias);
    if (found === undefined) {
      throw new UnknownSinkAliasError(
        alias,
        `No connector uses the sink function alias ${alias}: the connector was deleted, or ` +
          'the mapping invoking this alias belongs to another deployment',
      );
    }
    return found;
  }

  /** Rebuilds the map from the config store (joins a rebuild already running). */
  async refresh(): Promise<void> {
    this.#refreshing ??= this.#load().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #load(): Promise<void> {
    const next = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const page = await this.configs.listConnectors(cursor === undefined ? {} : { cursor });
      for (const name of page.names) next.set(sinkFunctionAlias(name), name);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.#byAlias = next;
  }
}
