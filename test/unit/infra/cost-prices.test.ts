import { describe, expect, it } from 'vitest';
import { COST_PRICE_LABELS, COST_PRICE_NAMES } from '../../../infra/lib/cost-prices.js';
import { DEFAULT_PRICES } from '../../../shared/runtime/metering/prices.js';

describe('costPrices (infra)', () => {
  it('names exactly the prices and labels of the runtime’s price table', () => {
    expect([...COST_PRICE_NAMES, ...COST_PRICE_LABELS].sort()).toEqual(
      Object.keys(DEFAULT_PRICES).sort(),
    );
  });
});
