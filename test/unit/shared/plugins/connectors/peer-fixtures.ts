/** Shared by the tests of the connectors that answer to a peer's class name. */
import { readFileSync } from 'node:fs';
import type { ConfigValue } from '../../../../../shared/connect/config-def.js';
import type { PeerConnector } from '../../../../../shared/plugins/connectors/peer-keys.js';

/** The keys of `values` that have errors, each with its messages, in order. */
export function configErrors(values: readonly ConfigValue[]): [string, string[]][] {
  return values.filter((v) => v.errors.length > 0).map((v) => [v.name, v.errors]);
}

/**
 * The unsupported keys of `peer` that `shared/plugins/connectors/<dir>/README.md` does not
 * mention in backticks (its compatibility table must list them all).
 */
export function keysMissingFromReadme(peer: PeerConnector, dir: string): string[] {
  const readme = readFileSync(
    new URL(`../../../../../shared/plugins/connectors/${dir}/README.md`, import.meta.url),
    'utf8',
  );
  return peer.unsupportedKeys.map((k) => k.name).filter((name) => !readme.includes(`\`${name}\``));
}
