import type {
  CloudFormationCustomResourceEvent,
  CloudFormationCustomResourceResponse,
} from 'aws-lambda';
import type { ResourceOutcome } from './connector-requests.js';

/**
 * The response a Lambda-backed custom resource PUTs to the request's pre-signed `ResponseURL`.
 * CloudFormation refuses a response body over 4,096 bytes, so the reason is cut to fit.
 */

/** CloudFormation's limit on a custom resource response body. */
export const MAX_RESPONSE_BYTES = 4096;

const TRUNCATED = ' … (truncated)';

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * `reason` cut, at a character boundary, to the longest prefix for which `fits` holds (with a
 * truncation marker), or whole when it fits as it is.
 */
function cutToFit(reason: string, fits: (reason: string) => boolean): string {
  if (fits(reason)) return reason;
  const chars = [...reason];
  let low = 0;
  let high = chars.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(chars.slice(0, mid).join('') + TRUNCATED)) low = mid;
    else high = mid - 1;
  }
  return chars.slice(0, low).join('') + TRUNCATED;
}

/** The response body for `outcome`, at most {@link MAX_RESPONSE_BYTES} bytes. */
export function responseBody(
  event: CloudFormationCustomResourceEvent,
  outcome: ResourceOutcome,
): CloudFormationCustomResourceResponse {
  const common = {
    PhysicalResourceId: outcome.physicalResourceId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  };
  if (outcome.status === 'SUCCESS') {
    return { Status: 'SUCCESS', ...common, ...(outcome.data ? { Data: outcome.data } : {}) };
  }
  const failed = (reason: string) => ({ Status: 'FAILED' as const, Reason: reason, ...common });
  return failed(cutToFit(outcome.reason, (r) => bytesOf(failed(r)) <= MAX_RESPONSE_BYTES));
}

/** PUTs `body` to the pre-signed URL, trying up to `attempts` times on a network or 5xx failure. */
export async function sendResponse(
  url: string,
  body: CloudFormationCustomResourceResponse,
  attempts = 3,
): Promise<void> {
  // A byte body: fetch adds no Content-Type, which the pre-signed URL was not signed with.
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  let failure: unknown;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      const response = await fetch(url, { method: 'PUT', body: bytes });
      await response.arrayBuffer();
      if (response.ok) return;
      failure = new Error(`the response URL answered ${response.status}`);
      if (response.status < 500) break;
    } catch (error) {
      failure = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
  }
  throw new Error('could not send the custom resource response to CloudFormation', {
    cause: failure,
  });
}
