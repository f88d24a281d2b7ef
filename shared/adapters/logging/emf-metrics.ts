import type { MetricsSink } from '../../ports/metrics.js';

/** The dimension every task metric is published under, whatever the options. */
const CONNECTOR_DIMENSION = 'Connector';

export interface EmfMetricsOptions {
  /**
   * Also publish each metric under all the dimensions it comes with: per partition for sinks
   * (`{Connector, Topic, Partition}`), per task for sources (`{Connector, Task}`). Off, only
   * under `{Connector}`, and the other dimensions stay on the line as plain fields (Logs
   * Insights still sees them; CloudWatch bills no metric for them).
   * @default false
   */
  readonly perPartition?: boolean;
  /** @default stdout */
  readonly write?: (line: string) => void;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * CloudWatch embedded metric format: one JSON line per publication on stdout, which Lambda's
 * log stream turns into metrics under `namespace` (`ServerlessConnect/<stack>`), with the
 * dimension sets {@link EmfMetricsOptions.perPartition} chooses.
 */
export function emfMetrics(namespace: string, options: EmfMetricsOptions = {}): MetricsSink {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  return {
    publish(dimensions, values) {
      try {
        const names = Object.keys(values);
        const all = Object.keys(dimensions);
        const coarse = all.includes(CONNECTOR_DIMENSION) ? [CONNECTOR_DIMENSION] : all;
        const sets =
          options.perPartition === true && all.length > coarse.length ? [coarse, all] : [coarse];
        write(
          JSON.stringify({
            _aws: {
              Timestamp: now(),
              CloudWatchMetrics: [
                {
                  Namespace: namespace,
                  Dimensions: sets,
                  Metrics: names.map((name) => ({
                    Name: name,
                    Unit: values[name]?.unit ?? 'None',
                  })),
                },
              ],
            },
            ...dimensions,
            ...Object.fromEntries(names.map((name) => [name, values[name]?.value ?? 0])),
          }),
        );
      } catch {
        // Metrics never break the caller.
      }
    },
  };
}
