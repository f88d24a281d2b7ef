import { describe, it } from 'vitest';
import { VerifiableSourceConnector } from '../../../shared/plugins/connectors/verifiable-source/verifiable-source-connector.js';
import {
  type SourceConnectorSubject,
  sourceConnectorChecks,
} from '../../../shared/testkit/index.js';
import { FakeClock } from '../shared/plugins/connectors/datagen/fakes.js';

// Apache's verifiable source runs forever; `max.records` (ours) makes each task's source run
// dry, so the kit's resume checks can end. Its only "external system" is the stored offset, so
// the injected failure is a corrupt one, which the task must refuse with a DataError.
const subject: SourceConnectorSubject = {
  validConfig: {
    name: 'soak',
    topic: 'soak',
    throughput: '-1',
    'records.per.poll': '4',
    'max.records': '15',
  },
  invalidConfigs: [
    { config: { throughput: '-1' }, field: 'topic' },
    { config: { topic: 'soak' }, field: 'throughput' },
    { config: { topic: 'soak', throughput: 'fast' }, field: 'throughput' },
    {
      config: { topic: 'soak', throughput: '-1', 'records.per.poll': '0' },
      field: 'records.per.poll',
    },
  ],
  setUp: () => {
    const clock = new FakeClock();
    return {
      connector: () =>
        new VerifiableSourceConnector({
          clock,
          sleep: async (ms) => clock.advance(ms),
        }),
    };
  },
  identity: (record) => String(record.sourceOffset?.seqno),
  exactlyOnceSupport: 'SUPPORTED',
  transactionBoundaries: 'UNSUPPORTED',
  injectFailure: () => ({
    cause: 'Invalid verifiable source offset',
    storedOffsets: [{ partition: { id: 0 }, offset: { seqno: 'corrupt' } }],
  }),
};

describe('verifiable source connector (connector test kit)', () => {
  for (const check of sourceConnectorChecks(subject)) it(check.name, () => check.run());
});
