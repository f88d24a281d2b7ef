import type { PluginMetrics, PluginMetricUnit } from '../../connect/context.js';
import type { MetricValue } from '../../ports/metrics.js';

/** CloudWatch takes longer names; ours stay short and plain. */
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,127}$/;

/**
 * The gauges a task set through its `PluginMetrics` during one invocation (the last value of
 * each), for the runtime to publish with its own metrics. Bad names and non-finite values are
 * dropped: a plugin's metric never fails its task.
 */
export class PluginGauges implements PluginMetrics {
  readonly #values = new Map<string, MetricValue>();

  gauge(name: string, value: number, unit: PluginMetricUnit = 'None'): void {
    if (!NAME.test(name) || !Number.isFinite(value)) return;
    this.#values.set(name, { value, unit });
  }

  /** The gauges set so far. */
  values(): Readonly<Record<string, MetricValue>> {
    return Object.fromEntries(this.#values);
  }
}
