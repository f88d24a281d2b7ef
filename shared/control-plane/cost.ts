/**
 * `GET /connectors/{c}/cost` and `GET /connectors?expand=cost`: what a connector cost, from the
 * metering's hourly sums (cost-report.ts does the arithmetic). Our own extension of the REST
 * API, not Apache Kafka Connect's.
 */
import type { ConnectorRecord } from '../ports/config-store.js';
import type { HourlyUsage } from '../ports/metering.js';
import type { PriceTable } from '../runtime/metering/prices.js';
import { type ConnectorCostDto, connectorCostReport, hoursToRead } from './cost-report.js';
import { requireConnector, type ServiceContext } from './service-context.js';

/** What every connector's report of one request shares: the time, the shared line, the count. */
export interface CostContext {
  readonly now: number;
  readonly shared: readonly HourlyUsage[];
  readonly connectors: number;
}

export class CostApi {
  readonly #ctx: ServiceContext;
  readonly #prices: PriceTable;
  readonly #names: () => Promise<readonly string[]>;

  /** `names`: every connector's name (the shared line is divided among them). */
  constructor(ctx: ServiceContext, prices: PriceTable, names: () => Promise<readonly string[]>) {
    this.#ctx = ctx;
    this.#prices = prices;
    this.#names = names;
  }

  /** The prices reports are computed with. */
  get prices(): PriceTable {
    return this.#prices;
  }

  /** `GET /connectors/{c}/cost`; 404 for an unknown connector. */
  async report(name: string): Promise<ConnectorCostDto> {
    const record = await requireConnector(this.#ctx, name);
    return this.reportFor(record, await this.context());
  }

  /** The time, the shared line's hours and the number of connectors, read once per request. */
  async context(): Promise<CostContext> {
    const now = this.#ctx.clock.now();
    const [shared, names] = await Promise.all([
      this.#ctx.store.usage.readUsage(undefined, hoursToRead(now)),
      this.#names(),
    ]);
    return { now, shared, connectors: names.length };
  }

  /** The report of `record` within the request's `context`. */
  async reportFor(record: ConnectorRecord, context: CostContext): Promise<ConnectorCostDto> {
    const own = await this.#ctx.store.usage.readUsage(record.name, hoursToRead(context.now));
    return connectorCostReport({
      name: record.name,
      createdAt: record.createdAt,
      now: context.now,
      own,
      shared: context.shared,
      connectors: context.connectors,
      prices: this.#prices,
    });
  }
}
