import { describe, expect, it } from 'vitest';
import { PluginRegistry } from '../../../../../../shared/connect/plugin.js';
import { CONFLUENT_DATAGEN } from '../../../../../../shared/plugins/connectors/datagen/confluent-keys.js';
import { DatagenSourceConnector } from '../../../../../../shared/plugins/connectors/datagen/datagen-source-connector.js';
import { datagenDescriptor } from '../../../../../../shared/plugins/connectors/datagen/descriptor.js';
import { configErrors, keysMissingFromReadme } from '../peer-fixtures.js';
import { FakeClock } from './fakes.js';

/** Confluent's users example (`connector_users.config`), its connector keys. */
const confluentUsers = {
  'kafka.topic': 'users',
  quickstart: 'users',
  'max.interval': '1000',
  iterations: '10000000',
};

function errorsOf(props: Record<string, string>): [string, string[]][] {
  return configErrors(new DatagenSourceConnector({ clock: new FakeClock() }).validate(props));
}

describe("datagen under Confluent's class name", () => {
  it('resolves io.confluent.kafka.connect.datagen.DatagenConnector', () => {
    // Prepare
    const registry = new PluginRegistry().register(datagenDescriptor);

    // Act
    const descriptor = registry.resolve('io.confluent.kafka.connect.datagen.DatagenConnector');

    // Assess
    expect(descriptor).toBe(datagenDescriptor);
  });

  it("validates Confluent's users example with no errors", () => {
    // Act
    const errors = errorsOf(confluentUsers);

    // Assess
    expect(errors).toEqual([]);
  });

  it.each(CONFLUENT_DATAGEN.unsupportedKeys.map((k) => [k.name]))(
    'reports %s on that key',
    (name) => {
      // Act
      const errors = errorsOf({ ...confluentUsers, [name]: '/schemas/datagen-logintime.avsc' });

      // Assess
      expect(errors.map(([key]) => key)).toEqual([name]);
      expect(errors[0]?.[1]).toEqual([
        expect.stringMatching(
          new RegExp(
            `^${name.replaceAll('.', '\\.')} \\(a configuration of Confluent's datagen\\) is not supported by this connector`,
          ),
        ),
      ]);
    },
  );

  it('accepts the empty schema keys Confluent defaults to', () => {
    // Act
    const errors = errorsOf({ ...confluentUsers, 'schema.filename': '', 'schema.keyfield': '' });

    // Assess
    expect(errors).toEqual([]);
  });

  it('reports a quickstart of Confluent’s it does not have as not supported', () => {
    // Act
    const errors = errorsOf({ ...confluentUsers, quickstart: 'clickstream' });

    // Assess
    expect(errors).toEqual([
      [
        'quickstart',
        [
          "Invalid value clickstream for configuration quickstart: not supported by this datagen, which has only the quickstarts orders, users, pageviews, sequence (Confluent's other quickstarts, schema.filename and schema.string are not supported)",
        ],
      ],
    ]);
  });

  it('accepts keys that are nobody’s, as Kafka Connect does', () => {
    // Act
    const errors = errorsOf({ ...confluentUsers, 'owner.team': 'data' });

    // Assess
    expect(errors).toEqual([]);
  });

  it('lists every unsupported key in the compatibility table of its README', () => {
    // Act
    const missing = keysMissingFromReadme(CONFLUENT_DATAGEN, 'datagen');

    // Assess
    expect(missing).toEqual([]);
  });
});
