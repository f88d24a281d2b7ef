/**
 * Talking to the dynalite endpoint behind the DynamoDB Streams stand-in: forwarding a client's
 * request as it came, and the stand-in's own JSON calls (GetItem, DescribeTable, writes).
 */
import { ApiError } from './api-error.js';

/** A response from dynalite: HTTP status and JSON text. */
export interface DynaliteResponse {
  readonly status: number;
  readonly text: string;
}

/** dynalite checks that an Authorization header is present and well formed, not the signature. */
const STAND_IN_AUTH =
  'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0';

const FORWARDED_HEADERS = ['authorization', 'x-amz-date', 'x-amz-target', 'content-type'];

/** A DynamoDB API call failed: the error dynalite answered, kept as it was sent. */
export class DynaliteError extends ApiError {
  constructor(
    type: string,
    message: string,
    status: number,
    readonly response: DynaliteResponse,
  ) {
    super(type, message, status);
  }
}

/** The exception name of an error body (`com.amazonaws…#Name` → `Name`). */
function errorType(body: unknown): string {
  const type = (body as { __type?: unknown } | null)?.__type;
  return typeof type === 'string' ? (type.split('#').at(-1) ?? type) : 'InternalServerError';
}

function errorMessage(body: unknown): string {
  const b = body as { message?: unknown; Message?: unknown } | null;
  const message = b?.message ?? b?.Message;
  return typeof message === 'string' ? message : '';
}

/** The DynamoDB JSON API of one dynalite endpoint. */
export class DynaliteClient {
  constructor(readonly endpoint: string) {}

  /** Sends a client's request body with the client's own headers; returns dynalite's answer. */
  async forward(
    headers: Readonly<Record<string, string | string[] | undefined>>,
    body: string,
  ): Promise<DynaliteResponse> {
    const sent: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = headers[name];
      if (typeof value === 'string') sent[name] = value;
    }
    const response = await fetch(this.endpoint, { method: 'POST', headers: sent, body });
    return { status: response.status, text: await response.text() };
  }

  /**
   * Calls `DynamoDB_20120810.<operation>` with `input`; resolves the parsed output, rejects
   * with a {@link DynaliteError} carrying dynalite's error.
   */
  async call(operation: string, input: unknown): Promise<Record<string, unknown>> {
    const response = await this.forward(
      {
        authorization: STAND_IN_AUTH,
        'x-amz-date': '20200101T000000Z',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
        'content-type': 'application/x-amz-json-1.0',
      },
      JSON.stringify(input),
    );
    const parsed = (response.text === '' ? {} : JSON.parse(response.text)) as Record<
      string,
      unknown
    >;
    if (response.status >= 300) {
      throw new DynaliteError(errorType(parsed), errorMessage(parsed), response.status, response);
    }
    return parsed;
  }

  /** The item with `key`, read consistently; `null` when absent. */
  async getItem(
    tableName: string,
    key: Record<string, unknown>,
  ): Promise<Record<string, unknown> | null> {
    const out = await this.call('GetItem', {
      TableName: tableName,
      Key: key,
      ConsistentRead: true,
    });
    return (out.Item as Record<string, unknown> | undefined) ?? null;
  }
}
