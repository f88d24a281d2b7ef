import { type RunningDynamo, startDynalite } from '../local/services/dynalite.js';
import { ensureKafkaBroker, type KafkaBrokerHandle } from '../local/services/kafka-broker.js';
import { type RunningS3, startS3rver } from '../local/services/s3rver.js';

/**
 * The services a benchmark needs, started on first use exactly as the integration tests start
 * them (KAFKA_BROKERS, or the pinned local broker), and stopped by `close()`.
 */
export class BenchServices {
  #kafka: Promise<KafkaBrokerHandle> | undefined;
  #dynamo: Promise<RunningDynamo> | undefined;
  #s3: Promise<RunningS3> | undefined;

  kafka(): Promise<KafkaBrokerHandle> {
    this.#kafka ??= ensureKafkaBroker();
    return this.#kafka;
  }

  dynamo(): Promise<RunningDynamo> {
    this.#dynamo ??= startDynalite();
    return this.#dynamo;
  }

  s3(): Promise<RunningS3> {
    this.#s3 ??= startS3rver();
    return this.#s3;
  }

  async close(): Promise<void> {
    await Promise.allSettled([
      this.#kafka?.then((kafka) => kafka.stop()),
      this.#dynamo?.then((dynamo) => dynamo.close()),
      this.#s3?.then((s3) => s3.close()),
    ]);
  }
}
