import type { MetricsSink } from '../../ports/metrics.js';

/**
 * CloudWatch embedded metric format: one JSON line per publication on stdout, which Lambda's
 * log stream turns into metrics under `namespace` with the given dimensions.
 */
export function emfMetrics(
  namespace: string,
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  now: () => number = () => Date.now(),
): MetricsSink {
  return {
    publish(dimensions, values) {
      try {
        const names = Object.keys(values);
        write(
          JSON.stringify({
            _aws: {
              Timestamp: now(),
              CloudWatchMetrics: [
                {
                  Namespace: namespace,
                  Dimensions: [Object.keys(dimensions)],
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
