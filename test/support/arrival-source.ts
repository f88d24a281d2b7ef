import { ConfigDef } from '../../shared/connect/config-def.js';
import type { SourceTaskContext } from '../../shared/connect/context.js';
import type { AnyPluginDescriptor } from '../../shared/connect/plugin.js';
import { SourceRecord } from '../../shared/connect/records.js';
import { SourceConnector, SourceTask } from '../../shared/connect/source.js';

/** How many records have arrived at the source by time `now` (ms, the engine's clock). */
export type Arrivals = (now: number) => number;

/**
 * A test source whose data arrives over time: one source partition, records seq 1..
 * `arrivals(now)` (offsets `{seq}`, values `{"seq":n}`), at most `batch` a poll; a poll with
 * nothing new returns null at once. With a simulated clock it stands for a source that is idle
 * between bursts (the idle back-off's test and `bench/idle-floor.ts`).
 */
class ArrivalSourceTask extends SourceTask {
  #next = 1;
  #batch = 500;
  #topic = '';

  constructor(
    private readonly arrivals: Arrivals,
    private readonly now: () => number,
  ) {
    super();
  }

  override version(): string {
    return 'test';
  }

  override async start(props: Readonly<Record<string, string>>, context: SourceTaskContext) {
    this.#batch = Number(props.batch ?? '500');
    this.#topic = props.topic ?? 'arrivals';
    const [stored] = await context.offsetStorageReader.offsets([{ p: 0 }]);
    const seq = stored?.offset?.seq;
    this.#next = typeof seq === 'number' ? seq + 1 : 1;
  }

  override async poll(): Promise<SourceRecord[] | null> {
    const last = Math.min(this.arrivals(this.now()), this.#next + this.#batch - 1);
    const out: SourceRecord[] = [];
    for (let seq = this.#next; seq <= last; seq += 1) {
      out.push(
        new SourceRecord({
          sourcePartition: { p: 0 },
          sourceOffset: { seq },
          topic: this.#topic,
          kafkaPartition: null,
          keySchema: null,
          key: null,
          valueSchema: null,
          value: JSON.stringify({ seq }),
        }),
      );
    }
    this.#next = Math.max(last + 1, this.#next);
    return out.length === 0 ? null : out;
  }

  override async stop(): Promise<void> {}
}

class ArrivalSourceConnector extends SourceConnector {
  #props: Readonly<Record<string, string>> = {};

  constructor(
    private readonly arrivals: Arrivals,
    private readonly now: () => number,
  ) {
    super();
  }

  override version(): string {
    return 'test';
  }
  override config(): ConfigDef {
    return new ConfigDef();
  }
  override async start(props: Readonly<Record<string, string>>): Promise<void> {
    this.#props = props;
  }
  override async taskConfigs(): Promise<Record<string, string>[]> {
    return [{ ...this.#props }];
  }
  override async stop(): Promise<void> {}
  override createTask(): SourceTask {
    return new ArrivalSourceTask(this.arrivals, this.now);
  }
  override exactlyOnceSupport() {
    return 'SUPPORTED' as const;
  }
}

export const ARRIVAL_SOURCE_CLASS = 'test.ArrivalSourceConnector';

/** The arrival source as a plugin, its data arriving by `arrivals` on `now`'s clock. */
export function arrivalSourceDescriptor(
  arrivals: Arrivals,
  now: () => number,
): AnyPluginDescriptor {
  return {
    className: ARRIVAL_SOURCE_CLASS,
    aliases: [],
    type: 'source',
    version: 'test',
    create: () => new ArrivalSourceConnector(arrivals, now),
  };
}
