import { type Admin, Kafka, logLevel } from 'kafkajs';
import { registerKafkaJsCodecs } from '../../shared/adapters/kafkajs/codecs/kafkajs-codecs.js';
import type { SinkMapping } from '../../shared/ports/dispatch.js';
import type { Logger } from '../../shared/ports/logger.js';
import { errorSummary } from '../../shared/runtime/pipeline/error-reporter.js';
import { type BackoffSettings, DEFAULT_BACKOFF, retryDelayMs } from './backoff.js';
import { kafkaJsLogCreator } from './kafkajs-log.js';
import {
  type EsmHandler,
  type GroupMembers,
  MappingConsumer,
  type MappingConsumerSettings,
} from './mapping-consumer.js';
import { consumerSettingsKey, planMappingChanges, type RunningMapping } from './mapping-plan.js';
import { MappingStats, type MappingStatus } from './mapping-stats.js';

/** Where the mappings come from: `MemorySinkMappings` (its `onChange` sends every mapping). */
export interface MappingSource {
  onChange(listener: (mappings: readonly SinkMapping[]) => void): () => void;
  list(): Promise<SinkMapping[]>;
}

export interface LocalEventSourceMappingsDeps {
  readonly mappings: MappingSource;
  /** Bootstrap servers: the events' `bootstrapServers`, and the consumers' brokers. */
  readonly brokers: readonly string[];
  /**
   * The kafkajs client to build consumers from (for TLS/SASL settings). @default a client on
   * `brokers` whose kafkajs log goes to `logger`
   */
  readonly kafka?: Kafka;
  /** The sink-task function (its middy handler); a rejection redelivers the batch. */
  readonly handler: EsmHandler;
  /** The Lambda alias a connector's invocations go through (the ARN's last segment). */
  readonly aliasFor: (connector: string) => string;
  readonly logger: Logger;
}

export interface LocalEventSourceMappingsOptions {
  /** Redelivery backoff after a failed invocation. @default 200 ms doubling to 10 s */
  readonly retryInitialMs?: number;
  readonly retryMaxMs?: number;
  /** The sink-task function timeout, for `getRemainingTimeInMillis`. @default 300000 */
  readonly invocationTimeoutMs?: number;
  /** Fetch wait when a mapping's batching window is 0 s. @default 100 */
  readonly idleFetchWaitMs?: number;
  /**
   * Cap on the fetch wait: it bounds how long a stop waits, and the consumers heartbeat between
   * fetches, so it stays well below the session timeout. @default 2000
   */
  readonly maxFetchWaitMs?: number;
  /** Heartbeat period (between fetches, during an invocation or a backoff). @default 1000 */
  readonly heartbeatEveryMs?: number;
  /**
   * Group session timeout of the consumers. After a kill, the next start's consumer of a group
   * waits that long for the broker to drop the dead one (a graceful stop leaves the group, so
   * nothing waits). Invocations and backoffs heartbeat, so it need not cover the function
   * timeout. @default {@link LOCAL_SESSION_TIMEOUT_MS}
   */
  readonly sessionTimeoutMs?: number;
  /** Jitter source in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/**
 * The stand-in's group session timeout: the broker's smallest by default
 * (`group.min.session.timeout.ms`), so a start after a kill waits at most about this long for
 * the dead process's consumers to be dropped (kafkajs' default is 30 s).
 */
export const LOCAL_SESSION_TIMEOUT_MS = 6_000;

interface Entry {
  readonly consumer: MappingConsumer;
  readonly settingsKey: string;
}

/**
 * The local stand-in for Lambda's Kafka event source mappings: it follows the sink mappings
 * the enumerator manages and runs one kafkajs consumer per enabled mapping, which invokes the
 * sink-task handler with self-managed-Kafka ESM events (see `MappingConsumer` for delivery).
 *
 * Changes are applied one at a time in arrival order, coalescing a burst into its last state,
 * so a mapping never has two consumers. Disabling or deleting a mapping stops its consumer;
 * enabling it again resumes from the group's committed offsets; a new batch size or window
 * restarts it. A consumer that fails to start or crashes is restarted after a backoff.
 *
 * As Lambda's mapping, each partition is invoked on its own, concurrently with the others
 * (see `MappingConsumer`). Differences from AWS: one event carries one partition; the batching
 * window only bounds the fetch wait (the broker answers as soon as records exist); the timeout
 * is not enforced.
 *
 * @example
 * ```ts
 * const esm = new LocalEventSourceMappings({ mappings, brokers, handler, aliasFor, logger });
 * await esm.start();
 * // ... enumerator creates/updates mappings ...
 * await esm.close();
 * ```
 */
export class LocalEventSourceMappings {
  readonly #deps: LocalEventSourceMappingsDeps;
  readonly #kafka: Kafka;
  readonly #settings: MappingConsumerSettings;
  readonly #random: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #stats = new Map<string, MappingStats>();
  #admin: Promise<Admin> | undefined;
  #desired: readonly SinkMapping[] = [];
  #version = 0;
  #dirty = false;
  #loop: Promise<void> | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #started = false;
  #closed: Promise<void> | undefined;

  constructor(deps: LocalEventSourceMappingsDeps, options: LocalEventSourceMappingsOptions = {}) {
    this.#deps = deps;
    const backoff: BackoffSettings = {
      initialMs: options.retryInitialMs ?? DEFAULT_BACKOFF.initialMs,
      maxMs: options.retryMaxMs ?? DEFAULT_BACKOFF.maxMs,
    };
    this.#settings = {
      backoff,
      invocationTimeoutMs: options.invocationTimeoutMs ?? 300_000,
      idleFetchWaitMs: options.idleFetchWaitMs ?? 100,
      maxFetchWaitMs: options.maxFetchWaitMs ?? 2_000,
      heartbeatEveryMs: options.heartbeatEveryMs ?? 1_000,
      sessionTimeoutMs: options.sessionTimeoutMs ?? LOCAL_SESSION_TIMEOUT_MS,
    };
    this.#random = options.random ?? Math.random;
    this.#kafka = deps.kafka ?? defaultKafka(deps.brokers, deps.logger);
  }

  /**
   * Follows the mappings from now on, and resolves once the mappings that exist now are
   * applied (their consumers have joined their groups). Call once.
   */
  async start(): Promise<void> {
    if (this.#started) throw new Error('LocalEventSourceMappings.start() was already called');
    this.#started = true;
    this.#unsubscribe = this.#deps.mappings.onChange((mappings) => this.#want(mappings));
    const version = this.#version;
    const current = await this.#deps.mappings.list();
    // A change that arrived while listing is newer than the list.
    if (this.#version === version) this.#want(current);
    await this.whenIdle();
  }

  /** Resolves once every change received so far is applied. */
  async whenIdle(): Promise<void> {
    while (this.#loop !== undefined) await this.#loop;
  }

  /** Per mapping that exists: its consumer's state and delivery counters. */
  status(): MappingStatus[] {
    return this.#desired.map((mapping) => {
      const entry = this.#entries.get(mapping.id);
      const stats = this.#statsOf(mapping.id);
      return {
        id: mapping.id,
        connector: mapping.connector,
        topic: mapping.topic,
        groupId: mapping.groupId,
        enabled: mapping.enabled,
        state: this.#stateOf(mapping, entry, stats),
        ...stats.snapshot(),
      };
    });
  }

  #stateOf(
    mapping: SinkMapping,
    entry: Entry | undefined,
    stats: MappingStats,
  ): MappingStatus['state'] {
    if (entry !== undefined) return entry.consumer.healthy ? 'running' : 'failed';
    if (!mapping.enabled || this.#closed !== undefined) return 'stopped';
    return stats.consumerFailures > 0 ? 'failed' : 'starting';
  }

  /**
   * Stops following changes and stops every consumer (each waits for its invocation in flight
   * to end; nothing more is committed). Idempotent.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#unsubscribe?.();
      clearTimeout(this.#retryTimer);
      await this.whenIdle();
      const entries = [...this.#entries.values()];
      this.#entries.clear();
      await Promise.all(entries.map((entry) => entry.consumer.stop()));
      const admin = await this.#admin?.catch(() => undefined);
      await admin?.disconnect().catch(() => undefined);
    })();
    return this.#closed;
  }

  #want(mappings: readonly SinkMapping[]): void {
    if (this.#closed !== undefined) return;
    this.#version += 1;
    this.#desired = mappings.map((m) => ({ ...m }));
    this.#dirty = true;
    this.#kick();
  }

  #kick(): void {
    if (this.#loop !== undefined) return;
    this.#loop = this.#drain().finally(() => {
      this.#loop = undefined;
      if (this.#dirty && this.#closed === undefined) this.#kick();
    });
  }

  async #drain(): Promise<void> {
    while (this.#dirty && this.#closed === undefined) {
      this.#dirty = false;
      await this.#apply(this.#desired);
    }
  }

  async #apply(desired: readonly SinkMapping[]): Promise<void> {
    const running = new Map<string, RunningMapping>(
      [...this.#entries].map(([id, entry]) => [
        id,
        { settingsKey: entry.settingsKey, healthy: entry.consumer.healthy },
      ]),
    );
    const known = new Set(desired.map((m) => m.id));
    for (const id of this.#stats.keys()) if (!known.has(id)) this.#stats.delete(id);
    // One action per mapping: stops first (a group is free before anything joins it again),
    // then the mappings' (re)starts side by side, since a join may wait for a session timeout.
    const actions = planMappingChanges(desired, running);
    await Promise.all(
      actions.flatMap((a) => (a.kind === 'stop' ? [this.#stop(a.id, a.reason)] : [])),
    );
    await Promise.all(
      actions.flatMap((a) =>
        a.kind === 'stop'
          ? []
          : [
              (async () => {
                if (a.kind === 'restart') await this.#stop(a.mapping.id, a.reason);
                await this.#start(a.mapping);
              })(),
            ],
      ),
    );
  }

  async #stop(id: string, reason: string): Promise<void> {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    await entry.consumer.stop();
    this.#deps.logger.info('event source mapping consumer stopped', {
      ...fieldsOf(entry.consumer.mapping),
      reason,
    });
  }

  async #start(mapping: SinkMapping): Promise<void> {
    const began = Date.now();
    const stats = this.#statsOf(mapping.id);
    const consumer = new MappingConsumer(mapping, {
      kafka: this.#kafka,
      bootstrapServers: this.#deps.brokers.join(','),
      handler: this.#deps.handler,
      alias: this.#deps.aliasFor(mapping.connector),
      logger: this.#deps.logger,
      settings: this.#settings,
      stats,
      random: this.#random,
      describeGroup: (groupId) => this.#describeGroup(groupId),
      onFailed: (error) => {
        stats.consumerFailed(error);
        this.#deps.logger.error('event source mapping consumer crashed', {
          ...fieldsOf(mapping),
          error: errorSummary(error),
        });
        this.#retryLater(stats.consumerFailures);
      },
    });
    try {
      await consumer.start();
    } catch (error) {
      stats.consumerFailed(error);
      this.#deps.logger.error('event source mapping consumer did not start', {
        ...fieldsOf(mapping),
        error: errorSummary(error),
      });
      this.#retryLater(stats.consumerFailures);
      return;
    }
    if (consumer.healthy) stats.consumerFailures = 0;
    this.#entries.set(mapping.id, { consumer, settingsKey: consumerSettingsKey(mapping) });
    this.#deps.logger.info('event source mapping consumer started', {
      ...fieldsOf(mapping),
      joinMs: Date.now() - began,
    });
  }

  /** The group as the broker lists it (one admin client, connected on first use). */
  async #describeGroup(groupId: string): Promise<GroupMembers> {
    this.#admin ??= (async () => {
      const admin = this.#kafka.admin();
      await admin.connect();
      return admin;
    })();
    const admin = await this.#admin.catch((error: unknown) => {
      this.#admin = undefined;
      throw error;
    });
    const [group] = (await admin.describeGroups([groupId])).groups;
    return { state: group?.state ?? 'Dead', members: group?.members.length ?? 0 };
  }

  /** Applies the mappings again after a backoff (a consumer failed to start or crashed). */
  #retryLater(failures: number): void {
    if (this.#closed !== undefined) return;
    clearTimeout(this.#retryTimer);
    const delay = retryDelayMs(Math.max(0, failures - 1), this.#settings.backoff, this.#random);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (this.#closed !== undefined) return;
      this.#dirty = true;
      this.#kick();
    }, delay);
    this.#retryTimer.unref();
  }

  #statsOf(id: string): MappingStats {
    let stats = this.#stats.get(id);
    if (stats === undefined) {
      stats = new MappingStats();
      this.#stats.set(id, stats);
    }
    return stats;
  }
}

function fieldsOf(mapping: SinkMapping) {
  return {
    connector: mapping.connector,
    mapping: mapping.id,
    topic: mapping.topic,
    groupId: mapping.groupId,
  };
}

function defaultKafka(brokers: readonly string[], logger: Logger): Kafka {
  registerKafkaJsCodecs();
  return new Kafka({
    clientId: 'sink-esm-standin',
    brokers: [...brokers],
    logLevel: logLevel.WARN,
    logCreator: kafkaJsLogCreator(logger),
  });
}
