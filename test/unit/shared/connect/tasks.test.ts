import { describe, expect, it } from 'vitest';
import { ConfigDef } from '../../../../shared/connect/config-def.js';
import type { Task } from '../../../../shared/connect/connector.js';
import { ConfigError } from '../../../../shared/connect/errors.js';
import type { SinkRecord } from '../../../../shared/connect/records.js';
import {
  SinkConnector,
  SinkTask,
  type TopicPartitionOffsets,
} from '../../../../shared/connect/sink.js';
import { parseTransactionBoundary, SourceConnector } from '../../../../shared/connect/source.js';

class RecordingSinkTask extends SinkTask {
  readonly flushed: TopicPartitionOffsets[] = [];
  version(): string {
    return '1';
  }
  async start(): Promise<void> {}
  async put(_records: readonly SinkRecord[]): Promise<void> {}
  override async flush(currentOffsets: TopicPartitionOffsets): Promise<void> {
    this.flushed.push(currentOffsets);
  }
  async stop(): Promise<void> {}
}

const def = new ConfigDef().define({
  name: 'batch.size',
  type: 'INT',
  importance: 'HIGH',
  documentation: 'records per batch',
});

class MinimalSource extends SourceConnector {
  version(): string {
    return '1';
  }
  config(): ConfigDef {
    return def;
  }
  async start(): Promise<void> {}
  async taskConfigs(): Promise<Record<string, string>[]> {
    return [{}];
  }
  async stop(): Promise<void> {}
  createTask(): never {
    throw new Error('not needed');
  }
}

class MinimalSink extends SinkConnector {
  version(): string {
    return '1';
  }
  config(): ConfigDef {
    return def;
  }
  async start(): Promise<void> {}
  async taskConfigs(): Promise<Record<string, string>[]> {
    return [{}];
  }
  async stop(): Promise<void> {}
  createTask(): Task & SinkTask {
    return new RecordingSinkTask();
  }
}

describe('SinkTask', () => {
  it('flushes and returns the current offsets from the default preCommit', async () => {
    // Prepare
    const task = new RecordingSinkTask();
    const offsets = new Map([['orders-0', 42]]);

    // Act
    const committed = await task.preCommit(offsets);

    // Assess
    expect(task.flushed).toEqual([offsets]);
    expect(committed).toEqual(new Map([['orders-0', 42]]));
  });
});

describe('Connector', () => {
  it('validates against its ConfigDef by default', () => {
    // Act
    const values = new MinimalSource().validate({ 'batch.size': 'abc' });

    // Assess
    const batch = values.find((v) => v.name === 'batch.size');
    expect(batch?.errors.length).toBeGreaterThan(0);
  });

  it('defaults exactly-once answers to unknown and unsupported', async () => {
    // Prepare
    const connector = new MinimalSource();

    // Act + Assess
    expect(connector.exactlyOnceSupport({})).toBeNull();
    expect(connector.canDefineTransactionBoundaries({})).toBe('UNSUPPORTED');
    expect(await connector.alterOffsets({}, [])).toBe(false);
    expect(await new MinimalSink().alterOffsets({}, new Map())).toBe(false);
  });
});

describe('parseTransactionBoundary', () => {
  it('parses case-insensitively and defaults to poll', () => {
    // Act + Assess
    expect(parseTransactionBoundary(' Interval ')).toBe('interval');
    expect(parseTransactionBoundary(undefined)).toBe('poll');
    expect(parseTransactionBoundary('')).toBe('poll');
  });

  it('rejects an unknown boundary with a ConfigError naming the key', () => {
    // Act + Assess
    expect(() => parseTransactionBoundary('batch')).toThrow(ConfigError);
    expect(() => parseTransactionBoundary('batch')).toThrow(/transaction.boundary/);
  });
});
