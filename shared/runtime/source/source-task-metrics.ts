import type { MetricsSink, MetricValue } from '../../ports/metrics.js';

/** Flink/Connect-style counters of one source task invocation, published once when it ends. */
export class SourceTaskMetrics {
  polled = 0;
  written = 0;
  skipped = 0;
  deadLettered = 0;
  aborted = 0;
  emitLagMs = 0;
  /** Records sent to Kafka and their bytes, whatever became of their transactions (metering). */
  producedRecords = 0;
  producedBytes = 0;

  publish(
    sink: MetricsSink | undefined,
    dimensions: { readonly Connector: string; readonly Task: string },
    run: { readonly transactions: number; readonly commitMs: readonly number[]; failed: boolean },
    /** The task's own gauges (`PluginMetrics`); a runtime metric of the same name wins. */
    plugin: Readonly<Record<string, MetricValue>> = {},
  ): void {
    const commits = run.commitMs;
    sink?.publish(dimensions, {
      ...plugin,
      RecordsPolled: { value: this.polled, unit: 'Count' },
      RecordsWritten: { value: this.written, unit: 'Count' },
      RecordsSkipped: { value: this.skipped, unit: 'Count' },
      RecordsDeadLettered: { value: this.deadLettered, unit: 'Count' },
      TransactionsCommitted: { value: run.transactions, unit: 'Count' },
      TransactionsAborted: { value: this.aborted, unit: 'Count' },
      CommitLatencyAvg: {
        value: commits.length === 0 ? 0 : commits.reduce((a, b) => a + b, 0) / commits.length,
        unit: 'Milliseconds',
      },
      CommitLatencyMax: { value: Math.max(0, ...commits), unit: 'Milliseconds' },
      EmitLagMax: { value: this.emitLagMs, unit: 'Milliseconds' },
      InvocationFailed: { value: run.failed ? 1 : 0, unit: 'Count' },
    });
  }
}
