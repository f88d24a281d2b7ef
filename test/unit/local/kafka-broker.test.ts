import { describe, expect, it } from 'vitest';
import { brokersFromEnv } from '../../../local/services/kafka-broker.js';

describe('brokersFromEnv', () => {
  it('splits KAFKA_BROKERS on commas and trims blanks', () => {
    expect(brokersFromEnv({ KAFKA_BROKERS: ' b1:9092, b2:9092 ,' })).toEqual([
      'b1:9092',
      'b2:9092',
    ]);
  });

  it('is undefined when KAFKA_BROKERS is unset or blank, so the local broker is used', () => {
    expect(brokersFromEnv({})).toBeUndefined();
    expect(brokersFromEnv({ KAFKA_BROKERS: ' , ' })).toBeUndefined();
  });
});
