import { describe, it } from 'vitest';
import { DatagenSourceConnector } from '../../../shared/plugins/connectors/datagen/datagen-source-connector.js';
import {
  type SourceConnectorSubject,
  sourceConnectorChecks,
} from '../../../shared/testkit/index.js';
import { FakeClock } from '../shared/plugins/connectors/datagen/fakes.js';

// Every check of the kit applies to datagen; its "external system" cannot fail, so the
// injected failure is a corrupt stored offset, which the task must refuse with a DataError.
const subject: SourceConnectorSubject = {
  validConfig: {
    'kafka.topic': 'orders',
    quickstart: 'orders',
    'source.partitions': '3',
    'records.per.poll': '4',
    iterations: '9',
  },
  invalidConfigs: [
    { config: { quickstart: 'orders' }, field: 'kafka.topic' },
    { config: { 'kafka.topic': 'orders', quickstart: 'nope' }, field: 'quickstart' },
    { config: { 'kafka.topic': 'orders', 'source.partitions': '0' }, field: 'source.partitions' },
    { config: { 'kafka.topic': 'orders', 'records.per.poll': 'many' }, field: 'records.per.poll' },
  ],
  setUp: () => ({ connector: () => new DatagenSourceConnector({ clock: new FakeClock() }) }),
  identity: (record) => String(record.sourceOffset?.seq),
  exactlyOnceSupport: 'SUPPORTED',
  transactionBoundaries: 'SUPPORTED',
  transactionBoundaryConfig: { 'transaction.records': '3' },
  injectFailure: () => ({
    cause: 'Invalid datagen source offset',
    storedOffsets: [{ partition: { 'datagen.partition': 0 }, offset: { seq: 'corrupt' } }],
  }),
};

describe('datagen source connector (connector test kit)', () => {
  for (const check of sourceConnectorChecks(subject)) it(check.name, () => check.run());
});
