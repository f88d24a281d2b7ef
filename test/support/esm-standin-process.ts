/**
 * The event-source-mapping stand-in in a process of its own, for tests that kill it (SIGKILL)
 * as a crash of `npm start` would: the mapping `ESM_MAPPING` (a `SinkMappingSpec` as JSON) on
 * `ESM_BROKERS`, with the stand-in's default settings, whose handler prints one JSON line per
 * invocation (`{"delivered":[{"partition":0,"offset":3},...]}`) on stdout. Prints `{"ready":true}`
 * once the stand-in follows the mapping.
 *
 * Run: `node --import tsx test/support/esm-standin-process.ts` with both variables set.
 */
import { LocalEventSourceMappings } from '../../local/esm/local-event-source-mappings.js';
import type { KafkaEsmEvent } from '../../shared/adapters/lambda/esm-event.js';
import { MemorySinkMappings } from '../../shared/adapters/memory/memory-sink-mappings.js';
import type { SinkMappingSpec } from '../../shared/ports/dispatch.js';
import { silentLogger } from '../../shared/ports/logger.js';

const required = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
};

const brokers = required('ESM_BROKERS').split(',');
const spec = JSON.parse(required('ESM_MAPPING')) as SinkMappingSpec;

const mappings = new MemorySinkMappings();
const esm = new LocalEventSourceMappings({
  mappings,
  brokers,
  handler: async (event: KafkaEsmEvent) => {
    const delivered = Object.values(event.records)
      .flat()
      .map((r) => ({ partition: r.partition, offset: r.offset }));
    process.stdout.write(`${JSON.stringify({ delivered })}\n`);
  },
  aliasFor: (connector) => `${connector}-live`,
  logger: silentLogger,
});
await esm.start();
await mappings.create(spec);
await esm.whenIdle();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
