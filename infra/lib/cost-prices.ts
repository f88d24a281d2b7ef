/**
 * The deployment's override of the metering's price table (`COST_PRICES`, read by every
 * function: shared/runtime/metering/prices.ts). Infra imports nothing of the runtime, so the
 * price names are listed here; a unit test keeps them equal to the runtime's.
 */

/** The prices a deployment may override, in USD per unit (`lambdaMbPerVcpu` in MB). */
export const COST_PRICE_NAMES = [
  'lambdaArmPerGbSecond',
  'lambdaPerRequest',
  'lambdaMbPerVcpu',
  'dynamoPerWriteUnit',
  'dynamoPerReadUnit',
  's3PerTier1Request',
  's3PerTier2Request',
  'apiGatewayPerCall',
  'mskConnectPerMcuHour',
] as const;

/** The price table's labels: which list the prices come from. */
export const COST_PRICE_LABELS = ['region', 'readOn'] as const;

/** Overrides of the price table: any of its prices, and its labels. */
export type CostPrices = Partial<
  Record<(typeof COST_PRICE_NAMES)[number], number> &
    Record<(typeof COST_PRICE_LABELS)[number], string>
>;

/**
 * `COST_PRICES` for `prices` (none without overrides).
 * @throws Error naming the price when it is unknown, or not a finite number ≥ 0 (a label: a string)
 */
export function costPricesEnvironment(prices: CostPrices | undefined): Record<string, string> {
  if (prices === undefined || Object.keys(prices).length === 0) return {};
  for (const [name, value] of Object.entries(prices)) {
    if ((COST_PRICE_LABELS as readonly string[]).includes(name)) {
      if (typeof value !== 'string') throw new Error(`costPrices: ${name} must be a string`);
    } else if (!(COST_PRICE_NAMES as readonly string[]).includes(name)) {
      throw new Error(
        `costPrices: unknown price ${name}; known: ${[...COST_PRICE_NAMES, ...COST_PRICE_LABELS].join(', ')}`,
      );
    } else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`costPrices: ${name} must be a finite number ≥ 0 (got ${String(value)})`);
    }
  }
  return { COST_PRICES: JSON.stringify(prices) };
}
