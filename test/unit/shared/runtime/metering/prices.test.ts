import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../shared/connect/errors.js';
import { DEFAULT_PRICES, priceTableOf } from '../../../../../shared/runtime/metering/prices.js';

describe('priceTableOf', () => {
  it('gives the us-east-1 defaults without overrides', () => {
    expect(priceTableOf(undefined, 'COST_PRICES')).toBe(DEFAULT_PRICES);
    expect(priceTableOf('  ', 'COST_PRICES')).toBe(DEFAULT_PRICES);
  });

  it('overrides the prices named, keeping the others', () => {
    // Act
    const table = priceTableOf(
      '{"region":"eu-west-1","lambdaArmPerGbSecond":0.0000134,"mskConnectPerMcuHour":0.12}',
      'COST_PRICES',
    );
    // Assess
    expect(table).toEqual({
      ...DEFAULT_PRICES,
      region: 'eu-west-1',
      lambdaArmPerGbSecond: 0.0000134,
      mskConnectPerMcuHour: 0.12,
    });
  });

  it.each([
    ['not json', 'not JSON'],
    ['[1]', 'must be a JSON object of prices'],
    ['{"lambdaPerGbSecond":1}', 'unknown price lambdaPerGbSecond'],
    ['{"dynamoPerReadUnit":-1}', 'dynamoPerReadUnit must be a finite number ≥ 0'],
    ['{"dynamoPerReadUnit":"0.1"}', 'dynamoPerReadUnit must be a finite number ≥ 0'],
    ['{"region":1}', 'region must be a string'],
    ['{"lambdaMbPerVcpu":0}', 'lambdaMbPerVcpu must be above 0'],
  ])('refuses %s on the key that held it, in Kafka’s words', (json, why) => {
    // Act
    const attempt = () => priceTableOf(json, 'COST_PRICES');
    // Assess
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(`Invalid value ${json} for configuration COST_PRICES: ${why}`);
    try {
      attempt();
    } catch (error) {
      expect((error as ConfigError).key).toBe('COST_PRICES');
    }
  });
});
