/**
 * The metrics port: named values with dimensions, published by an adapter (CloudWatch embedded
 * metric format in AWS, the terminal locally). Fire-and-forget: it never throws.
 */
export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds' | 'Bytes' | 'Count/Second' | 'None';

export interface MetricValue {
  readonly value: number;
  readonly unit: MetricUnit;
}

export interface MetricsSink {
  publish(
    dimensions: Readonly<Record<string, string>>,
    values: Readonly<Record<string, MetricValue>>,
  ): void;
}

/** A sink that drops everything. */
export const noMetrics: MetricsSink = { publish: () => {} };
