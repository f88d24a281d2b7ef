import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

/**
 * What the CDK `Connector` construct's custom resource does for each CloudFormation request, as
 * Kafka Connect REST calls through the api function (the same router, validation and store as
 * every other client):
 *
 * | request | call | physical id |
 * |---|---|---|
 * | Create | `POST /connectors {name, config, initial_state}` | the connector name |
 * | Update, same name, config changed | `PUT /connectors/{name}/config` | unchanged |
 * | Update, same name, config unchanged | none (the initial state applies on create only) | unchanged |
 * | Update, new name | `POST /connectors` (a 409 becomes `PUT …/config`: see below) | the new name: CloudFormation then deletes the old one |
 * | Delete | `DELETE /connectors/{name}` (404 is success) | |
 *
 * A failed create answers with {@link CREATE_FAILED}, so the rollback's Delete never touches a
 * connector of that name it did not create (one made through REST, say). A rename whose target
 * exists replaces that connector's config: this is also how the rollback of a rename restores
 * the old connector, which still exists until the update's cleanup deletes it.
 */

/** The physical id of a resource whose create failed: its Delete does nothing. */
export const CREATE_FAILED = 'serverless-connect:connector-not-created';

/** Connect's `initial_state` (KIP-980). */
export const INITIAL_STATES = ['RUNNING', 'PAUSED', 'STOPPED'] as const;
export type InitialState = (typeof INITIAL_STATES)[number];

/** The custom resource's properties, as the construct writes them. */
export interface ConnectorProperties {
  readonly name: string;
  readonly config: Readonly<Record<string, string>>;
  readonly initialState: InitialState;
}

/** One REST request to the control plane. */
export interface ApiRequest {
  readonly method: 'POST' | 'PUT' | 'DELETE';
  /** The path, segments percent-encoded. */
  readonly path: string;
  readonly body?: unknown;
}

/** The control plane's answer: status and body text (Connect's JSON, or empty). */
export interface ApiResponse {
  readonly status: number;
  readonly body: string;
}

/** Sends one request through the api function. */
export type ApiCall = (request: ApiRequest) => Promise<ApiResponse>;

/** What to tell CloudFormation. */
export type ResourceOutcome =
  | {
      readonly status: 'SUCCESS';
      readonly physicalResourceId: string;
      readonly data?: Readonly<Record<string, string>>;
    }
  | { readonly status: 'FAILED'; readonly physicalResourceId: string; readonly reason: string };

/** A request the control plane refused, with Connect's message. */
export class ConnectorRequestError extends Error {
  override readonly name = 'ConnectorRequestError';
  constructor(
    readonly request: ApiRequest,
    readonly response: ApiResponse,
  ) {
    super(
      `Kafka Connect REST API answered ${response.status} to ${request.method} ${request.path}: ${messageOf(response)}`,
    );
  }
}

/** Connect's error body `{"error_code", "message"}`'s message, else the body itself. */
function messageOf(response: ApiResponse): string {
  try {
    const parsed = JSON.parse(response.body) as { message?: unknown };
    if (typeof parsed?.message === 'string') return parsed.message;
  } catch {
    // Not JSON: the text as it came.
  }
  return response.body === '' ? '(no body)' : response.body;
}

/** The properties as CloudFormation delivers them (every scalar a string), checked. */
export function readProperties(raw: Readonly<Record<string, unknown>>): ConnectorProperties {
  const name = raw.ConnectorName;
  if (typeof name !== 'string' || name.trim() === '') {
    throw new Error('ConnectorName must be a non-empty string');
  }
  const config = raw.Config ?? {};
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new Error('Config must be a map of strings');
  }
  const entries = Object.entries(config as Record<string, unknown>);
  const notString = entries.find(([, value]) => typeof value !== 'string');
  if (notString !== undefined) {
    throw new Error(`Config value of ${notString[0]} must be a string`);
  }
  const state = raw.InitialState ?? 'RUNNING';
  const initialState = INITIAL_STATES.find((s) => s === state);
  if (initialState === undefined) {
    throw new Error(`InitialState must be one of ${INITIAL_STATES.join(', ')} (got ${state})`);
  }
  return { name, config: Object.fromEntries(entries) as Record<string, string>, initialState };
}

const connectorPath = (name: string) => `/connectors/${encodeURIComponent(name)}`;

async function call(api: ApiCall, request: ApiRequest, ok: readonly number[]) {
  const response = await api(request);
  if (!ok.includes(response.status)) throw new ConnectorRequestError(request, response);
  return response;
}

function create(api: ApiCall, props: ConnectorProperties) {
  return call(
    api,
    {
      method: 'POST',
      path: '/connectors',
      body: { name: props.name, config: props.config, initial_state: props.initialState },
    },
    [201],
  );
}

function putConfig(api: ApiCall, props: ConnectorProperties) {
  return call(
    api,
    { method: 'PUT', path: `${connectorPath(props.name)}/config`, body: props.config },
    [200, 201],
  );
}

const sameConfig = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(a).every(([key, value]) => b[key] === value);

/** Create, or (a rename onto an existing connector, a rolled-back rename) replace its config. */
async function createOrReplace(api: ApiCall, props: ConnectorProperties): Promise<void> {
  try {
    await create(api, props);
  } catch (error) {
    if (!(error instanceof ConnectorRequestError) || error.response.status !== 409) throw error;
    await putConfig(api, props);
  }
}

async function apply(event: CloudFormationCustomResourceEvent, api: ApiCall): Promise<string> {
  switch (event.RequestType) {
    case 'Create': {
      const props = readProperties(event.ResourceProperties);
      await create(api, props);
      return props.name;
    }
    case 'Update': {
      const props = readProperties(event.ResourceProperties);
      if (props.name !== event.PhysicalResourceId) {
        await createOrReplace(api, props);
        return props.name;
      }
      const old = readProperties(event.OldResourceProperties);
      if (!sameConfig(old.config, props.config)) await putConfig(api, props);
      return props.name;
    }
    case 'Delete': {
      const name = event.PhysicalResourceId;
      if (name !== CREATE_FAILED) {
        await call(api, { method: 'DELETE', path: connectorPath(name) }, [204, 404]);
      }
      return name;
    }
  }
}

/** The physical id to report when `event` failed: never a connector the resource does not own. */
function failedId(event: CloudFormationCustomResourceEvent): string {
  return event.RequestType === 'Create' ? CREATE_FAILED : event.PhysicalResourceId;
}

/**
 * Carries out one CloudFormation request against the control plane. Never throws: a refused
 * request or any other failure is a FAILED outcome whose reason is the error's message
 * (Connect's validation messages for a bad config).
 */
export async function applyConnectorEvent(
  event: CloudFormationCustomResourceEvent,
  api: ApiCall,
): Promise<ResourceOutcome> {
  try {
    const name = await apply(event, api);
    return { status: 'SUCCESS', physicalResourceId: name, data: { Name: name } };
  } catch (error) {
    return {
      status: 'FAILED',
      physicalResourceId: failedId(event),
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}
