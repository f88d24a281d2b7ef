import { describe, expect, it } from 'vitest';
import {
  effectiveLevel,
  fromLog4jLevel,
  LoggerLevels,
} from '../../../../../shared/adapters/logging/logger-levels.js';
import { createMemoryStateStore } from '../../../../../shared/adapters/memory/memory-state-store.js';

describe('fromLog4jLevel', () => {
  it('maps every level /admin/loggers accepts onto the JSON logger levels', () => {
    // Prepare
    const names = ['OFF', 'FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL', 'warn'];
    // Act
    const levels = names.map(fromLog4jLevel);
    // Assess
    expect(levels).toEqual([
      'off',
      'error',
      'error',
      'warn',
      'info',
      'debug',
      'debug',
      'debug',
      'warn',
    ]);
    expect(fromLog4jLevel('LOUD')).toBeUndefined();
  });
});

describe('effectiveLevel', () => {
  it('takes the level of the name, else of its nearest dotted ancestor, else root, else the fallback', () => {
    // Prepare
    const stored = new Map([
      ['serverless-connect', 'WARN'],
      ['serverless-connect.sink', 'DEBUG'],
      ['root', 'ERROR'],
    ]);
    // Act + Assess
    expect(effectiveLevel('serverless-connect.sink', stored, 'info')).toBe('debug');
    expect(effectiveLevel('serverless-connect.source', stored, 'info')).toBe('warn');
    expect(effectiveLevel('other', stored, 'info')).toBe('error');
    expect(effectiveLevel('other', new Map(), 'info')).toBe('info');
  });
});

describe('LoggerLevels', () => {
  it('writes JSON lines at or above the level set through the logger level store', async () => {
    // Prepare
    const store = createMemoryStateStore();
    const lines: string[] = [];
    const levels = new LoggerLevels(store.loggers, {
      fallback: 'info',
      write: (l) => lines.push(l),
    });
    const logger = levels.logger('serverless-connect.source', { connector: 'orders' });
    // Act
    logger.debug('hidden at info');
    await store.loggers.setLoggerLevel('root', 'DEBUG');
    await levels.refresh();
    logger.debug('shown at debug', { task: 0 });
    await store.loggers.setLoggerLevel('serverless-connect', 'ERROR');
    await levels.refresh();
    logger.warn('hidden at error');
    // Assess
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        level: 'debug',
        message: 'shown at debug',
        logger: 'serverless-connect.source',
        connector: 'orders',
        task: 0,
      }),
    ]);
  });
});

describe('LoggerLevels.refreshIfDue', () => {
  /** Levels over a memory store whose reads are counted and can be made to fail, on a fake clock. */
  function counted() {
    const store = createMemoryStateStore();
    const clock = { now: 0 };
    const reads = { count: 0, fail: false };
    const lines: string[] = [];
    const levels = new LoggerLevels(
      {
        listLoggerLevels: async () => {
          reads.count += 1;
          if (reads.fail) throw new Error('DynamoDB unavailable');
          return store.loggers.listLoggerLevels();
        },
      },
      {
        fallback: 'info',
        refreshEveryMs: 30_000,
        now: () => clock.now,
        write: (l) => lines.push(l),
      },
    );
    return { store, clock, reads, levels, lines };
  }

  it('reads at the first call, then only once the interval has passed', async () => {
    // Prepare
    const { store, clock, reads, levels } = counted();
    await store.loggers.setLoggerLevel('root', 'DEBUG');
    // Act + Assess
    await levels.refreshIfDue();
    expect([reads.count, levels.levelOf('serverless-connect.sink')]).toEqual([1, 'debug']);
    await store.loggers.setLoggerLevel('root', 'WARN');
    clock.now = 29_999;
    await levels.refreshIfDue();
    expect([reads.count, levels.levelOf('serverless-connect.sink')]).toEqual([1, 'debug']);
    clock.now = 30_000;
    await levels.refreshIfDue();
    expect([reads.count, levels.levelOf('serverless-connect.sink')]).toEqual([2, 'warn']);
  });

  it('keeps the last levels and does not throw when a read fails, and waits an interval to retry', async () => {
    // Prepare
    const { store, clock, reads, levels } = counted();
    await store.loggers.setLoggerLevel('root', 'DEBUG');
    await levels.refreshIfDue();
    reads.fail = true;
    clock.now = 30_000;
    // Act
    await levels.refreshIfDue();
    clock.now = 40_000;
    await levels.refreshIfDue();
    // Assess
    expect(reads.count).toBe(2);
    expect(levels.levelOf('serverless-connect.source')).toBe('debug');
  });

  it('shares one read between calls that arrive while it is under way', async () => {
    // Prepare
    const { reads, levels } = counted();
    // Act
    await Promise.all([levels.refreshIfDue(), levels.refreshIfDue(), levels.refreshIfDue()]);
    // Assess
    expect(reads.count).toBe(1);
  });

  it('is the refresh of the logger factory it hands to the engine', async () => {
    // Prepare
    const { store, levels, lines } = counted();
    const loggers = levels.factory();
    const logger = loggers('serverless-connect.rest', { connector: 'orders' });
    await store.loggers.setLoggerLevel('serverless-connect.rest', 'DEBUG');
    // Act
    logger.debug('before the refresh');
    await loggers.refresh?.();
    logger.debug('after the refresh');
    // Assess
    expect(lines.map((l) => JSON.parse(l).message)).toEqual(['after the refresh']);
  });
});
