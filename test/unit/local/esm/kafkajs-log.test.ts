import { logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaJsLogCreator } from '../../../../local/esm/kafkajs-log.js';
import type { LogFields, Logger } from '../../../../shared/ports/logger.js';

function recordingLogger() {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, ...(fields === undefined ? {} : { fields }) });
    };
  const logger: Logger = {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
  };
  return { logger, lines };
}

describe('kafkaJsLogCreator', () => {
  it('writes kafkajs lines at their level with namespace and extra fields', () => {
    // Prepare
    const { logger, lines } = recordingLogger();
    const log = kafkaJsLogCreator(logger)(logLevel.INFO);

    // Act
    log({
      namespace: 'Consumer',
      level: logLevel.ERROR,
      label: 'ERROR',
      log: { message: 'Crash: boom', timestamp: 'now', logger: 'kafkajs', groupId: 'g1' },
    });
    log({
      namespace: 'Runner',
      level: logLevel.WARN,
      label: 'WARN',
      log: { message: 'rejoining', timestamp: 'now', logger: 'kafkajs' },
    });

    // Assess
    expect(lines).toEqual([
      {
        level: 'error',
        message: 'Crash: boom',
        fields: { component: 'esm-standin', namespace: 'Consumer', groupId: 'g1' },
      },
      {
        level: 'warn',
        message: 'rejoining',
        fields: { component: 'esm-standin', namespace: 'Runner' },
      },
    ]);
  });
});
