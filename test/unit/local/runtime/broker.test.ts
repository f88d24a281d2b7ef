import { describe, expect, it } from 'vitest';
import { brokerStartFailure } from '../../../../local/runtime/broker.js';
import { BrokerStartError } from '../../../../local/services/kafka-broker.js';

describe('brokerStartFailure', () => {
  it('says Java is missing and names both ways out when the scripts found no Java 17+', () => {
    // Prepare
    const error = new BrokerStartError(
      'java-missing',
      ['Java 17 or newer is required to run the local Kafka broker (found: none).'],
      '/p/.kafka',
    );
    // Act
    const message = brokerStartFailure(error);
    // Assess
    expect(message).toContain('Java 17 or newer is missing');
    expect(message).toContain('install a JDK 17+');
    expect(message).toContain('KAFKA_BROKERS=host:9092 npm start');
    expect(message).toContain('  Java 17 or newer is required');
  });

  it('says Maven is missing when there is no mvn', () => {
    // Prepare
    const error = new BrokerStartError('maven-missing', [], '/p/.kafka');
    // Act
    const message = brokerStartFailure(error);
    // Assess
    expect(message).toContain('Maven is missing');
    expect(message).not.toContain('JDK');
  });

  it('does not tell a user with Java and Maven to install them when Maven Central is unreachable', () => {
    // Prepare
    const error = new BrokerStartError(
      'fetch-failed',
      ['Maven could not fetch org.apache.kafka:kafka_2.13:4.4.0', '    [ERROR] Could not transfer'],
      '/p/.kafka',
    );
    // Act
    const message = brokerStartFailure(error);
    // Assess
    expect(message).toContain('Maven could not fetch the broker from Maven Central');
    expect(message).toContain('[ERROR] Could not transfer');
    expect(message).not.toMatch(/install (a JDK|Java|Maven)/);
  });

  it('names the port way out when the port is taken, and the logs when the broker died', () => {
    // Prepare
    const taken = new BrokerStartError('port-taken', ['port 9092 is taken'], '/p/.kafka');
    const died = new BrokerStartError('broker-exited', ['the broker exited'], '/p/.kafka');
    // Act
    const takenMessage = brokerStartFailure(taken);
    const diedMessage = brokerStartFailure(died);
    // Assess
    expect(takenMessage).toContain('KAFKA_PORT=');
    expect(takenMessage).not.toContain('install');
    expect(diedMessage).toContain('/p/.kafka/logs');
  });

  it('leaves out the scripts lines when they were already shown as progress', () => {
    // Prepare
    const error = new BrokerStartError('broker-exited', ['Exception in thread main'], '/p/.kafka');
    // Act
    const message = brokerStartFailure(error, true);
    // Assess
    expect(message).not.toContain('Exception in thread main');
    expect(message).toContain('the broker exited during start-up');
  });
});
