/**
 * Request bodies: JSON parsing and the coercions Connect's Jackson mapping applies (numbers and
 * booleans in a config map become strings), with every failure a 400 instead of Apache's 500
 * (see DEVIATIONS.md). Maps are built with `Object.fromEntries`, never by assignment, so a
 * `__proto__` key is an ordinary key.
 */
import { javaTrim } from '../connect/config-def.js';
import type { TargetState } from '../ports/config-store.js';
import { BadRequestError } from './errors.js';

/** A config map as received: `null` values are kept (an error on create, a removal on PATCH). */
export type ConfigInput = Readonly<Record<string, string | null>>;

/** `POST /connectors`. */
export interface CreateConnectorRequest {
  /** Trimmed (Java's `trim`); `""` when absent or null. */
  readonly name: string;
  readonly config: ConfigInput;
  readonly initialState?: TargetState;
}

const LONE_SURROGATE = /\p{Cs}/u;

export type JsonObject = Readonly<Record<string, unknown>>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Rejects strings (values or keys) that are not well-formed Unicode (lone surrogates). */
function assertWellFormed(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) {
        throw new BadRequestError('The request body contains a string that is not valid Unicode');
      }
    } else if (Array.isArray(value)) {
      stack.push(...value);
    } else if (isJsonObject(value)) {
      for (const [key, item] of Object.entries(value)) stack.push(key, item);
    }
  }
}

/** The parsed JSON body. 400 when it is empty, malformed or not valid Unicode. */
export function parseJsonBody(body: string | undefined): unknown {
  if (body === undefined || body.trim() === '') {
    throw new BadRequestError('The request body is empty; a JSON document is required');
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const detail = error instanceof Error ? `: ${error.message}` : '';
    throw new BadRequestError(`The request body is not valid JSON${detail}`);
  }
  assertWellFormed(value);
  return value;
}

/** A JSON object, or 400 naming what was expected. */
export function requireObject(value: unknown, what: string): JsonObject {
  if (!isJsonObject(value)) {
    throw new BadRequestError(`${what} must be a JSON object, not ${describe(value)}`);
  }
  return value;
}

/** A scalar as Jackson reads it into a String field; `null` stays null; else 400. */
function scalarToString(value: unknown, what: string): string | null {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new BadRequestError(`${what} must be a string, not ${describe(value)}`);
}

/**
 * A flat config map (`string → string`): numbers and booleans become strings, `null` is kept,
 * objects and arrays are a 400.
 */
export function toConfigInput(value: unknown, what = 'The connector config'): ConfigInput {
  const object = requireObject(value, what);
  return Object.fromEntries(
    Object.entries(object).map(([key, item]) => [
      key,
      scalarToString(item, `The value of config key '${key}'`),
    ]),
  );
}

const CREATE_FIELDS = ['name', 'config', 'initial_state'];
const TARGET_STATES: readonly TargetState[] = ['RUNNING', 'PAUSED', 'STOPPED'];

/** Parses `{"name", "config", "initial_state"}`; unknown fields and a missing config are 400. */
export function parseCreateRequest(value: unknown): CreateConnectorRequest {
  const body = requireObject(value, 'The create request');
  const unknown = Object.keys(body).filter((key) => !CREATE_FIELDS.includes(key));
  if (unknown.length > 0) {
    throw new BadRequestError(
      `Unrecognized field "${unknown[0]}" in the create request (known fields: "name", "config", "initial_state")`,
    );
  }
  if (body.config === undefined || body.config === null) {
    throw new BadRequestError('The create request has no "config"; it is required');
  }
  const name = scalarToString(body.name ?? null, 'The connector "name"');
  const config = toConfigInput(body.config);
  const state = scalarToString(body.initial_state ?? null, '"initial_state"');
  if (state === null) return { name: javaTrim(name ?? ''), config };
  const initialState = TARGET_STATES.find((s) => s === state.toUpperCase());
  if (initialState === undefined) {
    throw new BadRequestError(
      `Invalid "initial_state" '${state}'; expected one of RUNNING, PAUSED, STOPPED`,
    );
  }
  return { name: javaTrim(name ?? ''), config, initialState };
}

/** The `level` of `PUT /admin/loggers/{l}`, or `undefined` when absent or null. */
export function parseLevelRequest(value: unknown): string | undefined {
  const body = requireObject(value, 'The logger request');
  const level = scalarToString(body.level ?? null, '"level"');
  return level ?? undefined;
}
