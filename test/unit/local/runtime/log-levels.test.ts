import { describe, expect, it } from 'vitest';
import {
  effectiveLevel,
  fromLog4jLevel,
  LoggerLevels,
} from '../../../../local/runtime/log-levels.js';
import { createMemoryStateStore } from '../../../../shared/adapters/memory/memory-state-store.js';

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
