import { ConfigDef } from '../../shared/connect/config-def.js';
import type { SourceTaskContext } from '../../shared/connect/context.js';
import type { AnyPluginDescriptor } from '../../shared/connect/plugin.js';
import { SourceRecord } from '../../shared/connect/records.js';
import { SourceConnector, SourceTask } from '../../shared/connect/source.js';

/**
 * A minimal test source: `partitions` source partitions, each emitting seq 1..`total` in
 * batches of `batch`, offsets `{seq}`. Values are `{"p":<partition>,"seq":<n>}` strings, so an
 * exactly-once checker can read them back. Used by the runtime's integration tests, which must
 * not depend on the built-in connectors they are testing alongside.
 */
export class SequenceSourceTask extends SourceTask {
  #next = new Map<number, number>();
  #partitions: number[] = [];
  #total = 0;
  #batch = 0;
  #topic = '';
  #turn = 0;
  #delayMs = 0;

  override version(): string {
    return 'test';
  }

  override async start(props: Readonly<Record<string, string>>, context: SourceTaskContext) {
    this.#partitions = (props.partitions ?? '0').split(',').map(Number);
    this.#total = Number(props.total ?? '100');
    this.#batch = Number(props.batch ?? '10');
    this.#topic = props.topic ?? 'sequence';
    this.#delayMs = Number(props['poll.delay.ms'] ?? '0');
    const stored = await context.offsetStorageReader.offsets(this.#partitions.map((p) => ({ p })));
    for (const p of this.#partitions) {
      const found = stored.find((s) => s.partition.p === p)?.offset?.seq;
      this.#next.set(p, typeof found === 'number' ? found + 1 : 1);
    }
  }

  override async poll(): Promise<SourceRecord[] | null> {
    if (this.#delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#delayMs));
    const p = this.#partitions[this.#turn++ % this.#partitions.length] ?? 0;
    const first = this.#next.get(p) ?? 1;
    const out: SourceRecord[] = [];
    for (let seq = first; seq <= this.#total && out.length < this.#batch; seq += 1) {
      out.push(
        new SourceRecord({
          sourcePartition: { p },
          sourceOffset: { seq },
          topic: this.#topic,
          kafkaPartition: null,
          keySchema: null,
          key: `p${p}`,
          valueSchema: null,
          value: JSON.stringify({ p, seq }),
        }),
      );
    }
    this.#next.set(p, first + out.length);
    return out.length === 0 ? null : out;
  }

  override async stop(): Promise<void> {}
}

export class SequenceSourceConnector extends SourceConnector {
  #props: Readonly<Record<string, string>> = {};
  override version(): string {
    return 'test';
  }
  override config(): ConfigDef {
    return new ConfigDef();
  }
  override async start(props: Readonly<Record<string, string>>): Promise<void> {
    this.#props = props;
  }
  /** The source partitions dealt round-robin over at most `maxTasks` tasks. */
  override async taskConfigs(maxTasks = 1): Promise<Record<string, string>[]> {
    const partitions = (this.#props.partitions ?? '0').split(',');
    const count = Math.max(1, Math.min(maxTasks, partitions.length));
    return Array.from({ length: count }, (_, task) => ({
      ...this.#props,
      partitions: partitions.filter((_, i) => i % count === task).join(','),
    }));
  }
  override async stop(): Promise<void> {}
  override createTask(): SourceTask {
    return new SequenceSourceTask();
  }
  override exactlyOnceSupport() {
    return 'SUPPORTED' as const;
  }
}

export const SEQUENCE_SOURCE_CLASS = 'test.SequenceSourceConnector';

/** The sequence source, as a plugin (an engine's extra plugin). */
export const sequenceSourceDescriptor: AnyPluginDescriptor = {
  className: SEQUENCE_SOURCE_CLASS,
  aliases: [],
  type: 'source',
  version: 'test',
  create: () => new SequenceSourceConnector(),
};

/**
 * The converters that write the sequence source's records as the plain text of their keys and
 * values (its values are JSON text already), for the connector configs of runtime tests.
 */
export const SEQUENCE_CONVERTERS = {
  'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
  'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
} as const;
