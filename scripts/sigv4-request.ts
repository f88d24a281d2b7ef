import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * One SigV4-signed request to the serverless-connect REST API (API Gateway with IAM
 * authorization), with the caller's AWS credentials (environment, profile, SSO, instance role:
 * the SDK's default chain). Prints the status line to stderr and the body to stdout; exits 1 on
 * a status of 400 or more.
 *
 * @example
 * npx tsx scripts/sigv4-request.ts GET https://abc123.execute-api.eu-west-1.amazonaws.com/v1/connectors
 * npx tsx scripts/sigv4-request.ts PUT $URL/connectors/s3-sink/config --data @s3-sink.json
 * npx tsx scripts/sigv4-request.ts DELETE $URL/connectors/s3-sink --region eu-west-1
 */

const usage =
  'usage: sigv4-request.ts <METHOD> <URL> [--data <json> | --data @<file>] [--region <region>]';

interface Args {
  readonly method: string;
  readonly url: URL;
  readonly body: string | undefined;
  readonly region: string;
}

function parseArgs(argv: readonly string[]): Args {
  const positional: string[] = [];
  let body: string | undefined;
  let region: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--data' || arg === '--region') {
      const value = argv[i + 1];
      if (value === undefined) throw new Error(`${arg} needs a value\n${usage}`);
      if (arg === '--region') region = value;
      else body = value.startsWith('@') ? readFileSync(value.slice(1), 'utf8') : value;
      i += 1;
    } else {
      positional.push(arg);
    }
  }
  const [method, url] = positional;
  if (method === undefined || url === undefined || positional.length > 2) throw new Error(usage);
  const parsed = new URL(url);
  // <api-id>.execute-api.<region>.amazonaws.com
  const fromHost = /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/.exec(parsed.hostname)?.[1];
  const resolved = region ?? fromHost ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (resolved === undefined) throw new Error(`cannot tell the region: pass --region\n${usage}`);
  return { method: method.toUpperCase(), url: parsed, body, region: resolved };
}

/** SHA-256 (and HMAC-SHA-256 with a secret) for the signer, from node:crypto. */
class Sha256 {
  readonly #secret: Uint8Array | undefined;
  #hash: Hash | Hmac;

  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#secret =
      secret === undefined
        ? undefined
        : typeof secret === 'string'
          ? new TextEncoder().encode(secret)
          : ArrayBuffer.isView(secret)
            ? new Uint8Array(secret.buffer, secret.byteOffset, secret.byteLength)
            : new Uint8Array(secret);
    this.#hash = this.#fresh();
  }

  #fresh(): Hash | Hmac {
    return this.#secret === undefined ? createHash('sha256') : createHmac('sha256', this.#secret);
  }

  update(data: string | ArrayBuffer | ArrayBufferView): void {
    if (typeof data === 'string') this.#hash.update(data, 'utf8');
    else if (ArrayBuffer.isView(data)) {
      this.#hash.update(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    } else this.#hash.update(new Uint8Array(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }

  reset(): void {
    this.#hash = this.#fresh();
  }
}

async function main(): Promise<number> {
  const { method, url, body, region } = parseArgs(process.argv.slice(2));
  const signer = new SignatureV4({
    service: 'execute-api',
    region,
    credentials: defaultProvider(),
    sha256: Sha256,
  });
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const existing = query[key];
    query[key] =
      existing === undefined
        ? value
        : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  const headers: Record<string, string> = { host: url.host, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const signed = await signer.sign({
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    // API Gateway checks the signature over the path as sent, percent-encoding included.
    path: url.pathname,
    query,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const response = await fetch(url, {
    method,
    headers: signed.headers,
    ...(body === undefined ? {} : { body }),
  });
  console.error(`HTTP ${response.status} ${response.statusText}`);
  process.stdout.write(`${await response.text()}\n`);
  return response.status >= 400 ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 2;
}
