import { describe, expect, it } from 'vitest';
import { jsonLogger } from '../../../../../shared/adapters/logging/json-logger.js';

describe('jsonLogger', () => {
  it('writes an error field with its causes, so a wrapped failure names what caused it', () => {
    // Prepare
    const lines: string[] = [];
    const logger = jsonLogger('info', { connector: 'orders-s3' }, (line) => lines.push(line));
    const cause = new Error('We encountered an internal error. Please try again.');
    cause.name = 'InternalError';
    const error = new Error('Task orders-s3-0 failed in preCommit', {
      cause: new Error('S3 answered 500', { cause }),
    });
    // Act
    logger.warn('sink batch failed', { error });
    // Assess
    const line = JSON.parse(lines[0] ?? '{}');
    expect(line).toMatchObject({
      level: 'warn',
      message: 'sink batch failed',
      connector: 'orders-s3',
      error: {
        name: 'Error',
        message: 'Task orders-s3-0 failed in preCommit',
        causes: [
          { name: 'Error', message: 'S3 answered 500' },
          { name: 'InternalError', message: 'We encountered an internal error. Please try again.' },
        ],
      },
    });
    expect(line.error.stack).toContain('failed in preCommit');
  });

  it('writes an error without a cause as before, and survives a cause cycle', () => {
    // Prepare
    const lines: string[] = [];
    const logger = jsonLogger('info', {}, (line) => lines.push(line));
    const looped = new Error('a');
    looped.cause = new Error('b', { cause: looped });
    // Act
    logger.error('x', { plain: new Error('plain'), looped });
    // Assess
    const line = JSON.parse(lines[0] ?? '{}');
    expect(line.plain).not.toHaveProperty('causes');
    expect(line.looped.causes).toEqual([{ name: 'Error', message: 'b' }]);
  });
});
