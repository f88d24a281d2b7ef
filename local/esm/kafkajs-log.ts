import { type logCreator, logLevel } from 'kafkajs';
import type { Logger } from '../../shared/ports/logger.js';

/**
 * A kafkajs `logCreator` that writes kafkajs' own lines through the project's logger, tagged
 * with `component` and kafkajs' namespace, so that consumer trouble (crashes, rebalances)
 * shows up in the local runtime's log next to the stand-in's lines.
 */
export function kafkaJsLogCreator(logger: Logger, component = 'esm-standin'): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _name, ...extra } = log;
      const fields = { component, namespace, ...extra };
      switch (level) {
        case logLevel.ERROR:
          logger.error(message, fields);
          break;
        case logLevel.WARN:
          logger.warn(message, fields);
          break;
        case logLevel.INFO:
          logger.info(message, fields);
          break;
        default:
          logger.debug(message, fields);
      }
    };
}
