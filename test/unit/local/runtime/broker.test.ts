import { describe, expect, it } from 'vitest';
import { brokerStartFailure } from '../../../../local/runtime/broker.js';

describe('brokerStartFailure', () => {
  it('says Java is missing and names both ways out when the scripts found no Java 17+', () => {
    // Prepare
    const detail = [
      'could not start the local Kafka broker:',
      '[kafka] Java 17 or newer is required to run the local Kafka broker (found: none).',
      '[kafka] or point the project at an existing broker with KAFKA_BROKERS=host:port.',
    ].join('\n');
    // Act
    const message = brokerStartFailure(detail);
    // Assess
    expect(message).toContain('Java 17 or newer is missing');
    expect(message).toContain('install Java 17+ and Maven');
    expect(message).toContain('KAFKA_BROKERS=host:9092 npm start');
    expect(message).not.toContain('[kafka]');
  });

  it('says Maven is missing when the scripts could not fetch the broker', () => {
    // Prepare
    const detail =
      '[kafka] Maven (mvn) is required to fetch the Kafka broker 4.4.0 from Maven Central.';
    // Act
    const message = brokerStartFailure(detail);
    // Assess
    expect(message).toContain('Maven is missing');
    expect(message).toContain('KAFKA_BROKERS=host:9092 npm start');
  });
});
