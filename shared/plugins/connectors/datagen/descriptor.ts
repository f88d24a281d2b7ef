/**
 * The datagen connector's plugin descriptor, and the only place it reads the wall clock and
 * the timer (through `globalThis`): everything else gets them injected.
 */
import type { PluginDescriptor } from 'serverless-connect/connect';
import { DATAGEN_VERSION } from './datagen-config.js';
import { DatagenSourceConnector } from './datagen-source-connector.js';
import type { DatagenDeps } from './datagen-source-task.js';

/** The wall clock and a timer-based sleep, for production use. */
export function systemDatagenDeps(): DatagenDeps {
  return {
    clock: { now: () => globalThis.Date.now() },
    sleep: (ms) => new Promise((resolve) => globalThis.setTimeout(resolve, ms)),
  };
}

/**
 * Registers as `datagen`, `DatagenSource`, `DatagenConnector`, the full class name and
 * Confluent's datagen class name, whose configs it takes (unsupported keys: `confluent-keys.ts`).
 */
export const datagenDescriptor: PluginDescriptor<'source'> = {
  className: 'dev.serverlessconnect.connectors.DatagenSourceConnector',
  aliases: [
    'datagen',
    'DatagenSource',
    'DatagenConnector',
    'io.confluent.kafka.connect.datagen.DatagenConnector',
  ],
  type: 'source',
  version: DATAGEN_VERSION,
  create: () => new DatagenSourceConnector(systemDatagenDeps()),
};
