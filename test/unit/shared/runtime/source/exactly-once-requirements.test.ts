import { describe, expect, it } from 'vitest';
import { parseConnectorConfig } from '../../../../../shared/config/connector-config.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';
import { checkExactlyOnceRequirements } from '../../../../../shared/runtime/source/source-task-runner.js';
import { SequenceSourceConnector } from '../../../../support/sequence-source.js';

/** A connector that says nothing about exactly-once support (Connect's default: null). */
class SilentConnector extends SequenceSourceConnector {
  override exactlyOnceSupport() {
    return null as unknown as 'SUPPORTED';
  }
}

const config = (extra: Record<string, string>) =>
  parseConnectorConfig({ name: 'c', 'connector.class': 'x', ...extra }, 'source');

describe('checkExactlyOnceRequirements', () => {
  it('refuses exactly.once.support=required for a connector that does not declare support', () => {
    expect(() =>
      checkExactlyOnceRequirements(
        new SilentConnector(),
        config({ 'exactly.once.support': 'required' }),
      ),
    ).toThrow(ConfigError);
  });

  it('accepts required for a connector that declares support, and requested for any connector', () => {
    expect(() =>
      checkExactlyOnceRequirements(
        new SequenceSourceConnector(),
        config({ 'exactly.once.support': 'required' }),
      ),
    ).not.toThrow();
    expect(() => checkExactlyOnceRequirements(new SilentConnector(), config({}))).not.toThrow();
  });

  it('refuses connector-defined transaction boundaries the connector cannot define', () => {
    expect(() =>
      checkExactlyOnceRequirements(
        new SequenceSourceConnector(),
        config({ 'transaction.boundary': 'connector' }),
      ),
    ).toThrow(/transaction boundar/);
  });
});
