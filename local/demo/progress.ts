import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { ConnectorCostDto } from '../../shared/control-plane/cost-report.js';
import type { DemoS3 } from './demo-setup.js';

/** A JSON client of the REST API. */
export type Rest = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: unknown }>;

export function restClient(url: string): Rest {
  return async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
    };
  };
}

interface StatusBody {
  readonly connector?: { readonly state?: string };
  readonly tasks?: readonly { readonly id: number; readonly state: string }[];
}

/** One connector's state as the status endpoint shows it. */
export interface ConnectorView {
  readonly state: string;
  readonly tasks: readonly { readonly id: number; readonly state: string }[];
}

async function view(rest: Rest, name: string): Promise<ConnectorView> {
  const { status, body } = await rest('GET', `/connectors/${encodeURIComponent(name)}/status`);
  if (status !== 200) return { state: status === 404 ? 'MISSING' : `HTTP ${status}`, tasks: [] };
  const s = body as StatusBody;
  return { state: s.connector?.state ?? '?', tasks: s.tasks ?? [] };
}

/** Records the source committed: the sum of the datagen offsets (`seq` per source partition). */
async function committed(rest: Rest, name: string): Promise<number> {
  const { body } = await rest('GET', `/connectors/${encodeURIComponent(name)}/offsets`);
  const offsets = (body as { offsets?: { offset?: { seq?: number } | null }[] })?.offsets ?? [];
  return offsets.reduce((n, o) => n + Number(o.offset?.seq ?? 0), 0);
}

/** What a connector has cost so far (`GET /connectors/{c}/cost`, month to date). */
export interface CostView {
  readonly dollars: number;
  /** `null` until a record moved. */
  readonly perMillionRecords: number | null;
  /** MSK Connect over the same hours (one MCU worker at least). */
  readonly mskConnectDollars: number;
}

async function costOf(rest: Rest, name: string): Promise<CostView | undefined> {
  const { status, body } = await rest('GET', `/connectors/${encodeURIComponent(name)}/cost`);
  if (status !== 200) return undefined;
  const window = (body as Partial<ConnectorCostDto>).month_to_date;
  if (window === undefined) return undefined;
  return {
    dollars: window.total_dollars,
    perMillionRecords: window.dollars_per_million_records,
    mskConnectDollars: window.msk_connect.dollars,
  };
}

/**
 * Counts the records in the sink's objects: one JSON line per record. An object is read again
 * only when its ETag changed (the S3 sink rewrites an object as its offset range fills).
 */
export class ObjectLineCounter {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #seen = new Map<string, { etag: string; lines: number }>();

  constructor(s3: DemoS3, prefix: string) {
    this.#client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    this.#bucket = s3.bucket;
    this.#prefix = prefix;
  }

  /** Records and objects under the prefix now. */
  async count(): Promise<{ records: number; objects: number }> {
    let token: string | undefined;
    const keys = new Set<string>();
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: this.#prefix,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      for (const object of page.Contents ?? []) {
        const key = object.Key ?? '';
        keys.add(key);
        const etag = object.ETag ?? '';
        if (this.#seen.get(key)?.etag === etag) continue;
        try {
          const got = await this.#client.send(
            new GetObjectCommand({ Bucket: this.#bucket, Key: key }),
          );
          const text = (await got.Body?.transformToString()) ?? '';
          const lines = text.split('\n').filter((l) => l.trim() !== '').length;
          this.#seen.set(key, { etag: got.ETag ?? etag, lines });
        } catch {
          // Rewritten while being read (the sink appends to its objects): read it next time.
        }
      }
      token = page.NextContinuationToken;
    } while (token !== undefined);
    for (const key of this.#seen.keys()) if (!keys.has(key)) this.#seen.delete(key);
    let records = 0;
    for (const { lines } of this.#seen.values()) records += lines;
    return { records, objects: this.#seen.size };
  }

  close(): void {
    this.#client.destroy();
  }
}

/** Everything one frame of the display shows. */
export interface Snapshot {
  readonly at: number;
  readonly source: ConnectorView;
  readonly sink: ConnectorView;
  readonly committed: number;
  readonly sunk: number;
  readonly objects: number;
  readonly sourceCost: CostView | undefined;
  readonly sinkCost: CostView | undefined;
}

export async function snapshot(
  rest: Rest,
  names: { readonly source: string; readonly sink: string },
  objects: ObjectLineCounter,
): Promise<Snapshot> {
  const [source, sink, done, stored, sourceCost, sinkCost] = await Promise.all([
    view(rest, names.source),
    view(rest, names.sink),
    committed(rest, names.source),
    objects.count(),
    costOf(rest, names.source),
    costOf(rest, names.sink),
  ]);
  return {
    at: Date.now(),
    source,
    sink,
    committed: done,
    sunk: stored.records,
    objects: stored.objects,
    sourceCost,
    sinkCost,
  };
}

const number = new Intl.NumberFormat('en-US');

function tasks(view: ConnectorView): string {
  if (view.tasks.length === 0) return 'no tasks';
  return view.tasks.map((t) => `task ${t.id} ${t.state}`).join(', ');
}

function rate(now: number, before: number | undefined, ms: number): string {
  if (before === undefined || ms <= 0) return '';
  return `${number.format(Math.max(0, Math.round(((now - before) * 1000) / ms)))}/s`;
}

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** Dollars with three significant digits (the demo's costs are fractions of a cent). */
function dollars(value: number): string {
  return `$${value === 0 ? '0' : value.toPrecision(3)}`;
}

/** A connector's cost line: what it cost so far, per million records, and MSK Connect's. */
export function costLine(cost: CostView | undefined): string {
  if (cost === undefined) return 'cost                    not metered yet';
  const perMillion =
    cost.perMillionRecords === null
      ? 'no record metered yet: an invocation is metered when it ends'
      : `${dollars(cost.perMillionRecords)} per million records`;
  return `cost so far             ${dollars(cost.dollars).padStart(12)}  (${perMillion}; MSK Connect for the same hours: ${dollars(cost.mskConnectDollars)})`;
}

/** The lines of one frame. */
export function render(
  now: Snapshot,
  before: Snapshot | undefined,
  context: { readonly url: string; readonly elapsedMs: number; readonly where: string },
): string[] {
  const ms = before === undefined ? 0 : now.at - before.at;
  const lag = Math.max(0, now.committed - now.sunk);
  return [
    `serverless-connect demo · ${context.url} · ${clock(context.elapsedMs)} · Ctrl-C to stop`,
    '',
    `  orders     datagen → topic orders (exactly once)   ${now.source.state.padEnd(10)} ${tasks(now.source)}`,
    `             produced and committed  ${number.format(now.committed).padStart(12)} records  ${rate(now.committed, before?.committed, ms)}`,
    `  orders-s3  S3 sink → ${context.where}   ${now.sink.state.padEnd(10)} ${tasks(now.sink)}`,
    `             sunk to S3              ${number.format(now.sunk).padStart(12)} records  ${rate(now.sunk, before?.sunk, ms)}  (${number.format(now.objects)} ${now.objects === 1 ? 'object' : 'objects'})`,
    `             lag                     ${number.format(lag).padStart(12)} records  (committed, not yet in S3)`,
    `  orders     ${costLine(now.sourceCost)}`,
    `  orders-s3  ${costLine(now.sinkCost)}`,
  ];
}
