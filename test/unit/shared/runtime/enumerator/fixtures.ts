import { MemorySinkMappings } from '../../../../../shared/adapters/memory/memory-sink-mappings.js';
import { createMemoryStateStore } from '../../../../../shared/adapters/memory/memory-state-store.js';
import { RetriableError } from '../../../../../shared/connect/errors.js';
import type { PluginRegistry } from '../../../../../shared/connect/plugin.js';
import { builtinRegistry } from '../../../../../shared/plugins/registry.js';
import type { SourceTaskInvocation } from '../../../../../shared/ports/dispatch.js';
import type { KafkaAdminPort, TopicPartitionOffset } from '../../../../../shared/ports/kafka.js';
import { silentLogger } from '../../../../../shared/ports/logger.js';
import {
  DEFAULT_ENUMERATOR_SETTINGS,
  Enumerator,
  type EnumeratorDeps,
} from '../../../../../shared/runtime/enumerator/enumerator.js';
import { PartitionDiscovery } from '../../../../../shared/runtime/enumerator/partition-discovery.js';
import { testSinkDescriptor } from '../../../../support/test-sink.js';

/** A cluster of topics with partition counts and end offsets, as the admin port shows it. */
export class FakeCluster implements Partial<KafkaAdminPort> {
  readonly topics = new Map<string, { partitions: number; end: number }>();
  /** Committed offsets per group and `topic-partition`. */
  readonly groups = new Map<string, Map<string, number>>();
  /** Groups that still have live members (moving their offsets is refused). */
  readonly busy = new Set<string>();

  async committedOffsets(groupId: string, topic: string): Promise<TopicPartitionOffset[]> {
    return [...(this.groups.get(groupId) ?? [])].flatMap(([id, offset]) => {
      const dash = id.lastIndexOf('-');
      return id.slice(0, dash) === topic
        ? [{ topic, partition: Number(id.slice(dash + 1)), offset }]
        : [];
    });
  }

  async setGroupOffsets(groupId: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    if (this.busy.has(groupId)) throw new RetriableError(`group ${groupId} still has members`);
    const committed = this.groups.get(groupId) ?? new Map<string, number>();
    for (const o of offsets) committed.set(`${o.topic}-${o.partition}`, o.offset);
    this.groups.set(groupId, committed);
  }

  add(topic: string, partitions: number, end = 0): this {
    this.topics.set(topic, { partitions, end });
    return this;
  }

  async listTopics(): Promise<string[]> {
    return [...this.topics.keys()];
  }

  async partitionCounts(topics: readonly string[]): Promise<Map<string, number>> {
    return new Map(
      topics.flatMap((t) => {
        const found = this.topics.get(t);
        return found === undefined ? [] : [[t, found.partitions] as const];
      }),
    );
  }

  async endOffsets(topic: string): Promise<TopicPartitionOffset[]> {
    const found = this.topics.get(topic);
    return Array.from({ length: found?.partitions ?? 0 }, (_, partition) => ({
      topic,
      partition,
      offset: found?.end ?? 0,
    }));
  }

  async offsetsForTimestamp(topic: string, timestampMs: number): Promise<TopicPartitionOffset[]> {
    // One record per millisecond from offset 0 at time 0, up to the end.
    return (await this.endOffsets(topic)).map((p) => ({
      ...p,
      offset: Math.min(p.offset, timestampMs),
    }));
  }
}

export interface Harness {
  readonly enumerator: Enumerator;
  readonly deps: EnumeratorDeps;
  readonly store: ReturnType<typeof createMemoryStateStore>;
  readonly cluster: FakeCluster;
  readonly invocations: SourceTaskInvocation[];
  readonly mappings: MemorySinkMappings;
  /** Transactional ids whose producers the enumerator fenced, in order. */
  readonly fenced: string[];
  readonly clock: { now: () => number; advance: (ms: number) => void };
  /** A second enumerator over the same state (a concurrent run). */
  another(): Enumerator;
}

export function harness(
  options: { plugins?: PluginRegistry; providers?: EnumeratorDeps['configProviders'] } = {},
): Harness {
  let now = 1_000_000;
  const clock = {
    now: () => now,
    advance: (ms: number): void => {
      now += ms;
    },
  };
  const store = createMemoryStateStore({ clock });
  const cluster = new FakeCluster();
  const invocations: SourceTaskInvocation[] = [];
  const mappings = new MemorySinkMappings();
  const fenced: string[] = [];
  const kafka: EnumeratorDeps['kafka'] = {
    transactionalProducer: (transactionalId) => ({
      transactionalId,
      connect: async () => {
        fenced.push(transactionalId);
      },
      begin: async () => {
        throw new Error('fencing producers never begin transactions');
      },
      close: async () => {},
    }),
  };
  const deps: EnumeratorDeps = {
    kafka,
    store,
    admin: cluster as unknown as KafkaAdminPort,
    plugins: options.plugins ?? builtinRegistry([testSinkDescriptor]),
    invoker: {
      invoke: async (invocation) => {
        invocations.push(invocation);
      },
    },
    mappings,
    clock,
    logger: silentLogger,
    discovery: new PartitionDiscovery(),
    settings: DEFAULT_ENUMERATOR_SETTINGS,
    ...(options.providers === undefined ? {} : { configProviders: options.providers }),
  };
  return {
    enumerator: new Enumerator(deps),
    deps,
    store,
    cluster,
    invocations,
    mappings,
    fenced,
    clock,
    another: () => new Enumerator({ ...deps, discovery: new PartitionDiscovery() }),
  };
}

export function datagenConfig(name: string, extra: Record<string, string> = {}) {
  return {
    name,
    'connector.class': 'datagen',
    'kafka.topic': `${name}-out`,
    'source.partitions': '6',
    'tasks.max': '3',
    ...extra,
  };
}

export function sinkConfig(name: string, extra: Record<string, string> = {}) {
  return { name, 'connector.class': 'test-sink', 'tasks.max': '2', topics: 'orders', ...extra };
}
