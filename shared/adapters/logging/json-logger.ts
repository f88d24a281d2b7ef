import type { LogFields, Logger } from '../../ports/logger.js';
import { currentLogContext } from './log-context.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const rank: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** Causes kept of an error's chain (a cycle or a very deep chain stops there). */
const MAX_CAUSES = 8;

/** An error as a JSON object: name, message, stack, and its causes (name and message each). */
function serialiseError(error: Error): Record<string, unknown> {
  const causes: { name: string; message: string }[] = [];
  const seen = new Set<unknown>([error]);
  let cause = error.cause;
  while (cause !== undefined && !seen.has(cause) && causes.length < MAX_CAUSES) {
    seen.add(cause);
    causes.push(
      cause instanceof Error
        ? { name: cause.name, message: cause.message }
        : { name: typeof cause, message: String(cause) },
    );
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    ...(causes.length === 0 ? {} : { causes }),
  };
}

function serialise(fields: LogFields | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields ?? {})) {
    out[key] = value instanceof Error ? serialiseError(value) : value;
  }
  return out;
}

/**
 * One JSON object per line on stdout (CloudWatch Logs in Lambda, the terminal locally), with the
 * invocation's context (function, request id: log-context.ts) and a fixed context (connector,
 * task) on every line. Never throws.
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
          ...serialise(currentLogContext()),
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
