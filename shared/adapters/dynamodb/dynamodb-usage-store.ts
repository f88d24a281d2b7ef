import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { StateFormatError } from '../../ports/errors.js';
import {
  type HourlyUsage,
  type HourRange,
  USAGE_COUNTERS,
  type Usage,
  type UsageOwner,
  type UsageStore,
} from '../../ports/metering.js';
import { type Item, num, optN, reqN } from './attributes.js';
import { formatVersion, keyOf, versionAttr } from './codec.js';
import type { DynamoTable } from './table.js';
import {
  ATTR,
  COST_RETENTION_DAYS,
  COST_SHARDS,
  ITEM_FORMAT_VERSION,
  KEYS,
} from './table-schema.js';

/** Decimals kept of a fractional counter (a share of an invocation split between connectors). */
const DECIMALS = 6;

/** `yyyy-mm-ddThh` of the UTC hour starting at `hour`. */
export function hourKey(hour: number): string {
  return new Date(hour).toISOString().slice(0, 13);
}

/** A counter as a DynamoDB number: integers as they are, fractions to {@link DECIMALS} places. */
function counterValue(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return value.toFixed(DECIMALS).replace(/\.?0+$/, '');
}

function describeOwner(owner: UsageOwner): string {
  return owner === undefined ? 'the shared line' : owner;
}

/**
 * UsageStore over `H#<hour>#<shard>` items of the `COST#<connector>` (or shared `COST`)
 * partition (table-schema.ts): a container adds to its own shard of the hour with one
 * UpdateItem `ADD` (conditional only on the item's format), and a read sums the shards of each
 * hour from one Query (paged).
 */
export class DynamoDbUsageStore implements UsageStore {
  readonly #table: DynamoTable;
  readonly #shard: number;

  /** `random`: uniform in [0, 1), picks this container's shard. */
  constructor(table: DynamoTable, random: () => number) {
    this.#table = table;
    this.#shard = Math.min(COST_SHARDS - 1, Math.floor(random() * COST_SHARDS));
  }

  async addUsage(owner: UsageOwner, hour: number, usage: Usage): Promise<void> {
    const counters = USAGE_COUNTERS.map(
      (name) => [name, counterValue(usage[name])] as const,
    ).filter(([, value]) => value !== '0');
    if (counters.length === 0) return;
    const values: Record<string, AttributeValue> = {
      ':v': versionAttr(),
      ':hour': num(hour),
      ':ttl': num(Math.floor(hour / 1000) + COST_RETENTION_DAYS * 86_400),
    };
    for (const [name, value] of counters) values[`:${name}`] = { N: value };
    const subject = `usage of ${describeOwner(owner)} at ${hourKey(hour)}`;
    const result = await this.#table.update(
      keyOf(KEYS.costPk(owner), KEYS.costSk(hourKey(hour), this.#shard)),
      {
        update: `SET #${ATTR.formatVersion} = :v, #${ATTR.hour} = :hour, #${ATTR.ttl} = :ttl ADD ${counters
          .map(([name]) => `#${name} :${name}`)
          .join(', ')}`,
        condition: `attribute_not_exists(#${ATTR.formatVersion}) OR #${ATTR.formatVersion} <= :v`,
        values,
      },
      `add the ${subject}`,
      { returnValues: 'NONE' },
    );
    if (!result.ok) {
      const found = result.old === undefined ? undefined : optN(result.old, ATTR.formatVersion);
      throw new StateFormatError(subject, found ?? ITEM_FORMAT_VERSION + 1, ITEM_FORMAT_VERSION);
    }
  }

  async readUsage(owner: UsageOwner, range: HourRange): Promise<HourlyUsage[]> {
    const items = await this.#table.queryBetween(
      KEYS.costPk(owner),
      {
        from: `${KEYS.costHourPrefix}${hourKey(range.fromHour)}`,
        to: `${KEYS.costHourPrefix}${hourKey(range.toHour)}#~`,
      },
      `read the usage of ${describeOwner(owner)}`,
    );
    const byHour = new Map<number, Record<string, number>>();
    for (const item of items) {
      formatVersion(item);
      const hour = reqN(item, ATTR.hour);
      const sums = byHour.get(hour) ?? {};
      for (const name of USAGE_COUNTERS) sums[name] = (sums[name] ?? 0) + counterOf(item, name);
      byHour.set(hour, sums);
    }
    return [...byHour]
      .sort(([a], [b]) => a - b)
      .map(([hour, sums]) => ({ hour, usage: sums as unknown as Usage }));
  }
}

function counterOf(item: Item, name: string): number {
  return optN(item, name) ?? 0;
}
