import { defineConfig } from 'vitest/config';

// Two projects: `unit` needs no services; `integration` gets a real Kafka broker, dynalite and
// s3rver from test/support/global-setup.ts (KAFKA_BROKERS points at an existing broker).
export default defineConfig({
  test: {
    env: {
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    reporters: ['verbose', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
          sequence: { groupOrder: 0 },
          environment: 'node',
          // A ceiling for hangs, not a speed check: the property tests (fast-check, up to 1,500
          // runs) take seconds and more on two busy cores.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.int.test.ts'],
          // Runs after the unit project, with its own worker limit.
          sequence: { groupOrder: 1 },
          environment: 'node',
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          // Two cores: files run two at a time against the one broker.
          maxWorkers: 2,
        },
      },
    ],
  },
});
