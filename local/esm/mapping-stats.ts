import { errorSummary } from '../../shared/runtime/pipeline/error-reporter.js';

/** What the stand-in reports about one mapping (the local runtime shows it). */
export interface MappingStatus {
  readonly id: string;
  readonly connector: string;
  readonly topic: string;
  readonly groupId: string;
  readonly enabled: boolean;
  /**
   * `running`: a consumer is up; `starting`: enabled, its consumer not up yet; `stopped`: the
   * mapping is disabled (or the stand-in closed); `failed`: the consumer could not start or
   * crashed for good, and a restart is scheduled.
   */
  readonly state: 'starting' | 'running' | 'stopped' | 'failed';
  /** Invocations that succeeded (their records are committed). */
  readonly deliveredBatches: number;
  readonly deliveredRecords: number;
  /** Invocations that threw (their records were redelivered). */
  readonly failedInvocations: number;
  /** The last invocation or consumer error, if any. */
  readonly lastError?: string;
  /** Epoch ms of the last successful invocation. */
  readonly lastDeliveryAt?: number;
}

/** Running counters of one mapping; they survive restarts of its consumer. */
export class MappingStats {
  deliveredBatches = 0;
  deliveredRecords = 0;
  failedInvocations = 0;
  /** Consecutive failed starts or crashes, reset by a successful start. */
  consumerFailures = 0;
  lastError: string | undefined;
  lastDeliveryAt: number | undefined;

  delivered(records: number, at: number): void {
    this.deliveredBatches += 1;
    this.deliveredRecords += records;
    this.lastDeliveryAt = at;
  }

  failed(error: unknown): void {
    this.failedInvocations += 1;
    this.lastError = errorSummary(error);
  }

  consumerFailed(error: unknown): void {
    this.consumerFailures += 1;
    this.lastError = errorSummary(error);
  }

  /** The optional fields of a status, present only when set. */
  snapshot(): Pick<
    MappingStatus,
    'deliveredBatches' | 'deliveredRecords' | 'failedInvocations' | 'lastError' | 'lastDeliveryAt'
  > {
    return {
      deliveredBatches: this.deliveredBatches,
      deliveredRecords: this.deliveredRecords,
      failedInvocations: this.failedInvocations,
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
      ...(this.lastDeliveryAt === undefined ? {} : { lastDeliveryAt: this.lastDeliveryAt }),
    };
  }
}
