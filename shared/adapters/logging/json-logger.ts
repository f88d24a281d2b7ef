import type { LogFields, Logger } from '../../ports/logger.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const rank: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

function serialise(fields: LogFields | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields ?? {})) {
    out[key] =
      value instanceof Error
        ? { name: value.name, message: value.message, stack: value.stack }
        : value;
  }
  return out;
}

/**
 * One JSON object per line on stdout (CloudWatch Logs in Lambda, the terminal locally), with a
 * fixed context (connector, task, request id) on every line. Never throws.
 */
export function jsonLogger(
  level: LogLevel = 'info',
  context: LogFields = {},
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const log = (at: LogLevel) => (message: string, fields?: LogFields) => {
    if (rank[at] > rank[level]) return;
    try {
      write(
        JSON.stringify({
          level: at,
          time: new Date().toISOString(),
          message,
          ...serialise(context),
          ...serialise(fields),
        }),
      );
    } catch {
      // A field that cannot be serialised must not break the caller.
    }
  };
  return { error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug') };
}
