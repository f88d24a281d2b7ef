/**
 * S3's side of the metering: a middleware on an S3 client that reports each request it sends
 * (each attempt: S3 bills retried requests too) to the {@link UsageRecorder} by price class.
 * The S3 connectors make their clients themselves; the engine hands them this as the hook they
 * call on each client they make (`S3ClientHook`, shared/plugins/connectors/s3-connection-config.ts).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3PriceClass, UsageRecorder } from '../../ports/metering.js';

/** The middleware's name on a client's stack. */
export const S3_REQUEST_METER = 'serverlessConnectS3RequestMeter';

/**
 * The price class of a request: DELETE is free; PUT, POST (and so COPY, multipart uploads) and
 * the listings are tier 1; GET, HEAD and the rest tier 2 (S3 Standard's request prices).
 */
export function s3PriceClass(method: string, commandName: string): S3PriceClass {
  const verb = method.toUpperCase();
  if (verb === 'DELETE') return 'free';
  if (verb === 'PUT' || verb === 'POST' || commandName.startsWith('List')) return 'tier1';
  return 'tier2';
}

/**
 * Adds the metering middleware to `client` (once: a client already metered is left as is), in
 * the finalize step below the SDK's retries, so every attempt is counted.
 */
export function meterS3Requests(client: S3Client, recorder: UsageRecorder): void {
  if (client.middlewareStack.identify().some((entry) => entry.startsWith(S3_REQUEST_METER))) {
    return;
  }
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const method = (args.request as { readonly method?: string } | undefined)?.method ?? 'GET';
      recorder.s3Request(s3PriceClass(method, context.commandName ?? ''));
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: S3_REQUEST_METER },
  );
}
