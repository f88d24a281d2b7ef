/**
 * The Kafka sink under test, on the broker: it mirrors the input topic byte for byte into
 * `<input>.out` (same partition), and the output is read read_committed.
 */
import { Kafka, logLevel } from 'kafkajs';
import { KAFKA_SINK_CLASS } from '../../../shared/plugins/connectors/kafka-sink/descriptor.js';
import type {
  KafkaClientFactory,
  ProducerTransaction,
  TransactionalProducer,
} from '../../../shared/ports/kafka.js';
import { TransactionOutcomeUnknownError } from '../../../shared/ports/kafka-errors.js';
import { checkDelivery } from '../eos-checker.js';
import type { Faults } from './faults.js';
import type { CampaignServices, SinkTarget } from './target.js';

const BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter';

/** A lost commit answer, injected after the transaction committed. */
class InjectedLostCommit extends TransactionOutcomeUnknownError {
  readonly injected = true;
}

/**
 * `inner`, its transactional producers crashing where `faults` says: at the producer's
 * initialisation, before a transaction's send, sendOffsets or commit, or after a commit whose
 * answer is then lost (TransactionOutcomeUnknownError although the transaction committed).
 */
function faultyFactory(inner: KafkaClientFactory, faults: Faults): KafkaClientFactory {
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
    idempotentProducer: (options) => inner.idempotentProducer(options),
    admin: (options) => inner.admin(options),
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
  /** Whether the producers cross the crash points. @default true */
  readonly instrumented?: boolean;
}

/**
 * The Kafka sink target mirroring `options.inputTopic`: the engine's own Kafka sink, over Kafka
 * clients whose transactional producers crash.
 */
export function createKafkaTarget(
  services: CampaignServices,
  options: KafkaTargetOptions,
): SinkTarget & { readonly outputTopic: string } {
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
    config: {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder
      'topic.rename.format': '${topic}.out',
      'key.converter': BYTES,
      'value.converter': BYTES,
      'header.converter': BYTES,
    },
    container: (faults, kafka) => ({
      kafka: instrumented ? faultyFactory(kafka, faults) : kafka,
      plugins: [],
      sinkClass: KAFKA_SINK_CLASS,
    }),
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
    async close() {},
  };
}
