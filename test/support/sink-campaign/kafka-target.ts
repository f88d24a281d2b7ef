/**
 * The Kafka sink under test, on the broker: it mirrors the input topic byte for byte into
 * `<input>.out` (same partition), and the output is read read_committed.
 */
import { Kafka, logLevel } from 'kafkajs';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import type { PluginDescriptor, PluginRegistry } from '../../../shared/connect/plugin.js';
import type {
  KafkaAdminPort,
  KafkaClientFactory,
  ProducerTransaction,
  TransactionalProducer,
} from '../../../shared/ports/kafka.js';
import { TransactionOutcomeUnknownError } from '../../../shared/ports/kafka-errors.js';
import { kafkaSinkDescriptor } from '../../../shared/runtime/sink/kafka-sink/descriptor.js';
import { checkDelivery } from '../eos-checker.js';
import type { Faults } from './faults.js';
import type { CampaignServices, SinkTarget } from './target.js';

const BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter';

type ProducerFactory = Pick<KafkaClientFactory, 'transactionalProducer'>;

/** A lost commit answer, injected after the transaction committed. */
class InjectedLostCommit extends TransactionOutcomeUnknownError {
  readonly injected = true;
}

/**
 * `inner`, crashing where `faults` says: at the producer's initialisation, before a
 * transaction's send, sendOffsets or commit, or after a commit whose answer is then lost
 * (TransactionOutcomeUnknownError although the transaction committed).
 */
function faultyFactory(inner: ProducerFactory, faults: Faults): ProducerFactory {
  const wrapTx = (tx: ProducerTransaction): ProducerTransaction => ({
    send: async (records) => {
      faults.hit('client', 'before Kafka send');
      return tx.send(records);
    },
    sendOffsets: async (group, offsets) => {
      faults.hit('client', 'before Kafka sendOffsets');
      return tx.sendOffsets(group, offsets);
    },
    commit: async () => {
      faults.hit('client', 'before Kafka commit');
      await tx.commit();
      if (faults.due('client', 'after Kafka commit (answer lost)')) {
        throw new InjectedLostCommit('injected crash: the commit answer was lost');
      }
    },
    abort: () => tx.abort(),
  });
  return {
    transactionalProducer: (id, options): TransactionalProducer => {
      const producer = inner.transactionalProducer(id, options);
      return {
        transactionalId: producer.transactionalId,
        connect: async () => {
          faults.hit('client', 'before Kafka producer init');
          return producer.connect();
        },
        begin: async () => wrapTx(await producer.begin()),
        close: () => producer.close(),
      };
    },
  };
}

export interface KafkaTargetOptions {
  /** The input topic (the output is `<input>.out`). */
  readonly inputTopic: string;
  /** Prefix of the transactional ids. */
  readonly transactionalIdPrefix: string;
  /** Whether the producers cross the crash points. @default true */
  readonly instrumented?: boolean;
}

/** The Kafka sink target mirroring `options.inputTopic`. */
export function createKafkaTarget(
  services: CampaignServices,
  options: KafkaTargetOptions,
): SinkTarget & { readonly outputTopic: string; readonly admin: KafkaAdminPort } {
  const factory = new KafkaJsClientFactory({
    brokers: [...services.brokers],
    logLevel: logLevel.NOTHING,
  });
  const admin = factory.admin();
  const outputTopic = `${options.inputTopic}.out`;
  const instrumented = options.instrumented ?? true;
  return {
    name: 'kafka',
    outputTopic,
    clientSteps: [
      'before Kafka producer init',
      'before Kafka send',
      'before Kafka sendOffsets',
      'before Kafka commit',
      'after Kafka commit (answer lost)',
    ],
    admin,
    config: {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder
      'topic.rename.format': '${topic}.out',
      'key.converter': BYTES,
      'value.converter': BYTES,
      'header.converter': BYTES,
    },
    descriptor(faults: Faults, plugins: PluginRegistry): PluginDescriptor<'sink'> {
      return kafkaSinkDescriptor({
        kafka: instrumented ? faultyFactory(factory, faults) : factory,
        admin,
        plugins,
        transactionalIdPrefix: options.transactionalIdPrefix,
      });
    },
    async readOutput(input) {
      const expected = new Map(input.map((records, p) => [String(p), records.length]));
      const report = await checkDelivery({
        kafka: new Kafka({ brokers: [...services.brokers], logLevel: logLevel.NOTHING }),
        topic: outputTopic,
        expected,
        identify: (value) => {
          const parsed = JSON.parse(value?.toString() ?? 'null') as {
            partition?: unknown;
            seq?: unknown;
          } | null;
          return { partition: String(parsed?.partition), seq: Number(parsed?.seq) };
        },
      });
      return {
        duplicates: report.duplicates,
        losses: report.losses,
        anomalies: report.reordered,
        records: report.records,
      };
    },
    async close() {
      await admin.close();
      await factory.close();
    },
  };
}
