import { MemorySinkMappings } from '../../../../../shared/adapters/memory/memory-sink-mappings.js';
import { createMemoryStateStore } from '../../../../../shared/adapters/memory/memory-state-store.js';
import type { ConfigProviderResolver } from '../../../../../shared/config/config-providers.js';
import { RetriableError } from '../../../../../shared/connect/errors.js';
import {
  createEngine,
  DEFAULT_ENGINE_SETTINGS,
  type Engine,
  type EnginePorts,
  type EngineSettings,
} from '../../../../../shared/engine/engine.js';
import type { SourceTaskInvocation } from '../../../../../shared/ports/dispatch.js';
import type {
  IdempotentProducer,
  KafkaAdminPort,
  KafkaClientFactory,
  OutgoingRecord,
  TopicPartitionOffset,
  TopicSpec,
  TransactionalProducer,
} from '../../../../../shared/ports/kafka.js';
import type { Enumerator } from '../../../../../shared/runtime/enumerator/enumerator.js';
import { testPlugins } from '../../../../support/plugin-modules.js';
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

  /** Creates the topics not there yet (one partition each unless the spec says otherwise). */
  async createTopics(specs: readonly TopicSpec[]): Promise<string[]> {
    const created = specs.filter((spec) => !this.topics.has(spec.topic));
    for (const spec of created) this.add(spec.topic, spec.partitions ?? 1);
    return created.map((spec) => spec.topic);
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

/**
 * The Kafka clients of a {@link FakeCluster}, as the enumerator and the REST API use them: the
 * admin is the cluster, and transactional producers only fence (each initialisation is recorded,
 * then `onConnect` runs, to stall, fail or race it).
 */
export class FakeKafkaClients implements KafkaClientFactory {
  /** Transactional ids whose producers were initialised (fenced), in order. */
  readonly fenced: string[] = [];
  /** What idempotent producers sent (the REST API's offset records), in order. */
  readonly sent: OutgoingRecord[] = [];
  /** Runs after each producer initialisation is recorded. */
  onConnect: (transactionalId: string) => Promise<void> = async () => {};

  constructor(readonly cluster: FakeCluster = new FakeCluster()) {}

  transactionalProducer(transactionalId: string): TransactionalProducer {
    return {
      transactionalId,
      connect: async () => {
        this.fenced.push(transactionalId);
        await this.onConnect(transactionalId);
      },
      begin: async () => {
        throw new Error('fencing producers never begin transactions');
      },
      close: async () => {},
    };
  }

  /** Only the REST API's offset records are produced so: kept in {@link sent}. */
  idempotentProducer(): IdempotentProducer {
    return {
      connect: async () => {},
      send: async (records) => {
        this.sent.push(...records);
        return records.map((r) => ({ topic: r.topic, partition: 0, offset: this.sent.length }));
      },
      close: async () => {},
    };
  }

  admin(): KafkaAdminPort {
    return this.cluster as unknown as KafkaAdminPort;
  }
}

export interface Harness {
  /** The enumerator of the container's engine. */
  readonly enumerator: Enumerator;
  readonly engine: Engine;
  readonly store: ReturnType<typeof createMemoryStateStore>;
  readonly cluster: FakeCluster;
  readonly kafka: FakeKafkaClients;
  readonly invocations: SourceTaskInvocation[];
  readonly mappings: MemorySinkMappings;
  /** Transactional ids whose producers the enumerator fenced, in order. */
  readonly fenced: string[];
  readonly clock: { now: () => number; advance: (ms: number) => void };
  /**
   * The enumerator of another container over the same state (a concurrent run), built with
   * `ports` instead of this one's.
   */
  another(ports?: Partial<EnginePorts>): Enumerator;
}

/**
 * An engine over the memory state store, a fake cluster and the test sink, on a manual clock;
 * its invoker records each source-task invocation.
 */
export function harness(
  options: {
    providers?: Readonly<Record<string, ConfigProviderResolver>>;
    cluster?: FakeCluster;
    /** Engine settings over the defaults. */
    settings?: Partial<EngineSettings>;
  } & Pick<EnginePorts, 'loggers'> = {},
): Harness {
  let now = 1_000_000;
  const clock = {
    now: () => now,
    advance: (ms: number): void => {
      now += ms;
    },
  };
  const store = createMemoryStateStore({ clock });
  const kafka = new FakeKafkaClients(options.cluster);
  const invocations: SourceTaskInvocation[] = [];
  const mappings = new MemorySinkMappings();
  const ports: EnginePorts = {
    store,
    kafka,
    clock,
    pluginModules: testPlugins(testSinkDescriptor),
    invoker: {
      invoke: async (invocation) => {
        invocations.push(invocation);
      },
    },
    mappings,
    ...(options.loggers === undefined ? {} : { loggers: options.loggers }),
    ...(options.providers === undefined ? {} : { configProviders: options.providers }),
  };
  const settings = { ...DEFAULT_ENGINE_SETTINGS, ...options.settings };
  const engine = createEngine(ports, settings);
  return {
    enumerator: engine.enumerator,
    engine,
    store,
    cluster: kafka.cluster,
    kafka,
    invocations,
    mappings,
    fenced: kafka.fenced,
    clock,
    another: (changed = {}) => createEngine({ ...ports, ...changed }, settings).enumerator,
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
