/**
 * The config keys of a peer connector (Confluent's S3 sink, Confluent's datagen) that a
 * built-in connector registered under the peer's class name does not support. A config pasted
 * from an existing deployment gets a validation error on each such key, naming it and saying
 * what to use instead, rather than having it ignored silently; keys nobody defines stay
 * accepted, as in Kafka Connect.
 */
import type { ConfigValue } from 'serverless-connect/connect';

/** One key of the peer's that the connector does not support. */
export interface UnsupportedKey {
  readonly name: string;
  /**
   * Values that ask for nothing the connector lacks (usually the peer's default, e.g. `false`
   * or `NONE`), accepted without an error. Compared trimmed and ignoring case.
   * @default none: any value is an error
   */
  readonly accepted?: readonly string[];
  /** What to do instead (or why there is nothing to do), ending the message. */
  readonly instead: string;
  /** The value is a secret: it is never echoed (shown as `[hidden]`). @default false */
  readonly secret?: boolean;
}

/** A peer connector and its keys the built-in connector does not support. */
export interface PeerConnector {
  /** How messages name the peer, e.g. `Confluent's S3 sink`. */
  readonly name: string;
  readonly unsupportedKeys: readonly UnsupportedKey[];
}

/** The message for `key`, set in a config of the connector that stands in for `peer`. */
export function unsupportedKeyMessage(peer: PeerConnector, key: UnsupportedKey): string {
  const only =
    key.accepted === undefined || key.accepted.length === 0
      ? ''
      : ` (only ${key.accepted.map((v) => (v === '' ? 'an empty value' : v)).join(' or ')})`;
  return `${key.name} (a configuration of ${peer.name}) is not supported by this connector${only}: ${key.instead}`;
}

function isAccepted(key: UnsupportedKey, value: string): boolean {
  const trimmed = value.trim().toLowerCase();
  return (key.accepted ?? []).some((a) => a.toLowerCase() === trimmed);
}

/**
 * One {@link ConfigValue} with its error for every unsupported key of `peer` set in `props`
 * (with a value it does not accept), in `peer`'s order. Append them to a connector's
 * `validate` result: the validate endpoint shows each on its own key, and create or update
 * answers 400.
 */
export function unsupportedKeyErrors(
  peer: PeerConnector,
  props: Readonly<Record<string, string>>,
): ConfigValue[] {
  const values: ConfigValue[] = [];
  for (const key of peer.unsupportedKeys) {
    const value = props[key.name];
    if (typeof value !== 'string' || isAccepted(key, value)) continue;
    values.push({
      name: key.name,
      value: key.secret === true ? '[hidden]' : value,
      recommendedValues: [...(key.accepted ?? [])],
      errors: [unsupportedKeyMessage(peer, key)],
      visible: true,
    });
  }
  return values;
}
