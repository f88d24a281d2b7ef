import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.js';
import type { StateStore } from '../shared/ports/state-store.js';
import { reportCost } from './cost.js';
import { median, percentile, ratioLine, saveResult } from './harness.js';
import { diffCounts, installRequestCounter, requestCounts } from './request-counter.js';
import { type BenchServices, startChildService } from './services.js';

/**
 * `rest`: the REST API through the local HTTP server over the DynamoDB adapter on dynalite, at
 * 50 concurrent keep-alive clients. The server and dynalite each run in a process of their own
 * (service-process.ts), the clients in this one. Ours = `GET /connectors/{c}/status` (one
 * Query) and `POST /connectors` (validation + one conditional write); baseline = `GET /` on the
 * same server (no store access: the HTTP, routing and JSON cost alone). Rounds alternate
 * between the three; prints requests/s with the ratio to the baseline, and p50/p99 latency
 * (goal: p99 under 50 ms). The floors: each endpoint's store call made straight from the clients'
 * process; `server-cost` = ours − floor at p50 and p99, the server's own share (goal: p99 ≤ 10 ms).
 */
const CLIENTS = 50;
const REQUESTS_PER_ROUND = 2000;
const ROUNDS = 3;
const SINGLE_CLIENT_REQUESTS = 500;
/** Goal for the server's own cost at p99 (ours − floor), in ms. */
const SERVER_COST_GOAL_MS = 10;

interface Sample {
  readonly perSecond: number;
  readonly latenciesMs: number[];
}

function send(
  agent: Agent,
  url: URL,
  method: string,
  body: string | undefined,
): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `total` calls of `call` from `clients` concurrent clients, each call timed. */
async function closedLoop(
  total: number,
  clients: number,
  call: (i: number) => Promise<void>,
): Promise<Sample> {
  const latenciesMs: number[] = [];
  let issued = 0;
  const started = process.hrtime.bigint();
  const client = async () => {
    while (issued < total) {
      const i = issued;
      issued += 1;
      const began = process.hrtime.bigint();
      await call(i);
      latenciesMs.push(Number(process.hrtime.bigint() - began) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { perSecond: total / seconds, latenciesMs };
}

/** `total` requests from `clients` concurrent clients; fails on any unexpected status. */
function load(
  agent: Agent,
  total: number,
  clients: number,
  next: (i: number) => { url: URL; method: string; body?: string; expect: number },
): Promise<Sample> {
  return closedLoop(total, clients, async (i) => {
    const r = next(i);
    const { status } = await send(agent, r.url, r.method, r.body);
    if (status !== r.expect) throw new Error(`${r.method} ${r.url.pathname}: ${status}`);
  });
}

async function seedStatus(store: StateStore, name: string): Promise<void> {
  await store.configs.createConnector(name, {
    name,
    'connector.class': 'datagen',
    'kafka.topic': 'bench',
    'tasks.max': '2',
  });
  await store.configs.putTaskConfigs(name, [{ t: '0' }, { t: '1' }], 0);
  await store.status.putConnectorStatus(name, { state: 'RUNNING', workerId: 'bench' });
  for (const task of [0, 1]) {
    await store.status.putTaskStatus(
      { connector: name, task },
      { state: 'RUNNING', workerId: 'bench' },
    );
  }
}

/** Linux's clock ticks per second (USER_HZ) in /proc/<pid>/stat. */
const CLOCK_TICKS = 100;

/** CPU time (user + system, ms) of process `pid` so far, from /proc; undefined without /proc. */
async function processCpuMs(pid: number): Promise<number | undefined> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // After the command name (in parentheses): field 3 (state) first, utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The AWS requests `calls` calls made in `work`, per call. */
async function requestsPerCall(calls: number, work: () => Promise<unknown>) {
  installRequestCounter();
  const before = requestCounts();
  await work();
  return new Map([...diffCounts(before, requestCounts())].map(([key, n]) => [key, n / calls]));
}

/**
 * The server's own latency: ours minus its floor (the same store call from the clients'
 * process, no server), at p50 and p99.
 */
function serverCostOf(
  ours: { readonly p50Ms: number; readonly p99Ms: number },
  floor: { readonly p50Ms: number; readonly p99Ms: number },
): { p50Ms: number; p99Ms: number } {
  return { p50Ms: ours.p50Ms - floor.p50Ms, p99Ms: ours.p99Ms - floor.p99Ms };
}

function summary(samples: readonly Sample[]) {
  const all = samples.flatMap((s) => s.latenciesMs);
  return {
    perSecond: median(samples.map((s) => s.perSecond)),
    p50Ms: percentile(all, 50),
    p99Ms: percentile(all, 99),
    rounds: samples.map((s) => Math.round(s.perSecond)),
  };
}

export async function run(services: BenchServices): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const dynamo = await services.dynamo();
  try {
    const { endpoint } = dynamo;
    const client = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      // The SDK's default pool (50 sockets) would queue 50 clients' parallel reads.
      requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: 512 }) },
    });
    const tableName = `bench-rest-${Date.now().toString(36)}`;
    await ensureTable(client, tableName);
    const store = createDynamoDbStateStore({ client, tableName });
    // The server runs in a process of its own: its clients (below) are not in its process.
    const server = await startChildService('rest-api', [endpoint, tableName]);
    try {
      await seedStatus(store, 'bench-status');
      const root = new URL(`${server.endpoint}/`);
      const status = new URL(`${server.endpoint}/connectors/bench-status/status`);
      const connectors = new URL(`${server.endpoint}/connectors`);
      let created = 0;
      const scenarios = {
        baseline: (clients = CLIENTS, total = REQUESTS_PER_ROUND) =>
          load(agent, total, clients, () => ({ url: root, method: 'GET', expect: 200 })),
        status: (clients = CLIENTS, total = REQUESTS_PER_ROUND) =>
          load(agent, total, clients, () => ({ url: status, method: 'GET', expect: 200 })),
        create: (clients = CLIENTS, total = REQUESTS_PER_ROUND) =>
          load(agent, total, clients, () => {
            created += 1;
            return {
              url: connectors,
              method: 'POST',
              body: JSON.stringify({
                name: `bench-${created}`,
                config: { 'connector.class': 'datagen', 'kafka.topic': 'bench' },
              }),
              expect: 201,
            };
          }),
        // The floors: the state-store call behind each endpoint, made straight from this
        // process through the same adapter (no HTTP server), at the same concurrency.
        statusStore: (clients = CLIENTS, total = REQUESTS_PER_ROUND) =>
          closedLoop(total, clients, async () => {
            const snapshot = await store.status.getConnectorSnapshot('bench-status');
            if (snapshot === undefined) throw new Error('bench-status is missing');
          }),
        createStore: (clients = CLIENTS, total = REQUESTS_PER_ROUND) =>
          closedLoop(total, clients, async () => {
            created += 1;
            const name = `bench-${created}`;
            await store.configs.createConnector(name, {
              name,
              'connector.class': 'datagen',
              'kafka.topic': 'bench',
            });
          }),
      };
      // Warm-up, discarded.
      await scenarios.baseline();
      await scenarios.status();
      await scenarios.create();
      // The store calls' requests (the same calls the server makes), for the cost table.
      const perCall = {
        status: await requestsPerCall(REQUESTS_PER_ROUND, () => scenarios.statusStore()),
        create: await requestsPerCall(REQUESTS_PER_ROUND, () => scenarios.createStore()),
      };
      const samples = {
        baseline: [] as Sample[],
        status: [] as Sample[],
        create: [] as Sample[],
        statusStore: [] as Sample[],
        createStore: [] as Sample[],
      };
      for (let round = 0; round < ROUNDS; round += 1) {
        const order = (['baseline', 'status', 'create', 'statusStore', 'createStore'] as const).map(
          (_, i, all) => all[(i + round) % all.length] as keyof typeof scenarios,
        );
        for (const name of order) samples[name].push(await scenarios[name]());
      }
      // One client: the latency one request sees alone, as in its own Lambda container; the
      // server's CPU over those requests is the api function's, for the cost table.
      const costed = async (name: 'status' | 'create') => {
        const cpuBefore = await processCpuMs(server.pid);
        const sample = await scenarios[name](1, SINGLE_CLIENT_REQUESTS);
        const cpuAfter = await processCpuMs(server.pid);
        if (cpuBefore === undefined || cpuAfter === undefined) {
          console.log(`rest-${name}: no cost figure (the server's CPU time needs /proc)`);
        } else {
          reportCost({
            bench: `rest-${name}`,
            function: 'api',
            records: SINGLE_CLIENT_REQUESTS,
            invocations: SINGLE_CLIENT_REQUESTS,
            cpuMs: cpuAfter - cpuBefore,
            wallMs: (SINGLE_CLIENT_REQUESTS / sample.perSecond) * 1000,
            requests: Object.fromEntries(
              [...perCall[name]].map(([key, n]) => [key, n * SINGLE_CLIENT_REQUESTS]),
            ),
          });
        }
        return summary([sample]);
      };
      const single = {
        baseline: summary([await scenarios.baseline(1, SINGLE_CLIENT_REQUESTS)]),
        status: await costed('status'),
        create: await costed('create'),
      };
      const serverCost = {
        status: serverCostOf(summary(samples.status), summary(samples.statusStore)),
        create: serverCostOf(summary(samples.create), summary(samples.createStore)),
      };
      const result = {
        clients: CLIENTS,
        requestsPerRound: REQUESTS_PER_ROUND,
        baseline: summary(samples.baseline),
        status: summary(samples.status),
        create: summary(samples.create),
        statusStore: summary(samples.statusStore),
        createStore: summary(samples.createStore),
        singleClient: single,
        serverCost,
      };
      for (const name of ['status', 'create'] as const) {
        const r = result[name];
        console.log(ratioLine(`rest-${name}`, r.perSecond, result.baseline.perSecond));
        console.log(
          `rest-${name}: ${CLIENTS} clients p50=${r.p50Ms.toFixed(1)}ms p99=${r.p99Ms.toFixed(1)}ms (baseline GET / p50=${result.baseline.p50Ms.toFixed(1)}ms p99=${result.baseline.p99Ms.toFixed(1)}ms; goal p99 < 50ms: ${r.p99Ms < 50 ? 'met' : 'not met'})`,
        );
        const floor = result[`${name}Store`];
        console.log(
          `rest-${name}: floor (its store call straight to dynalite from the clients' process, no server) ${Math.round(floor.perSecond)}/s p50=${floor.p50Ms.toFixed(1)}ms p99=${floor.p99Ms.toFixed(1)}ms`,
        );
        // The server's own cost: what a request through it takes beyond its store call alone.
        const cost = serverCost[name];
        console.log(
          `rest-${name}: server-cost p50=${cost.p50Ms.toFixed(1)}ms p99=${cost.p99Ms.toFixed(1)}ms (ours − floor; ${CLIENTS} clients; goal p99 ≤ ${SERVER_COST_GOAL_MS}ms: ${cost.p99Ms <= SERVER_COST_GOAL_MS ? 'met' : 'not met'})`,
        );
        const one = single[name];
        console.log(
          `rest-${name}: 1 client p50=${one.p50Ms.toFixed(1)}ms p99=${one.p99Ms.toFixed(1)}ms ${Math.round(one.perSecond)}/s (baseline p50=${single.baseline.p50Ms.toFixed(1)}ms p99=${single.baseline.p99Ms.toFixed(1)}ms)`,
        );
      }
      await saveResult('rest', result);
    } finally {
      await server.close();
      client.destroy();
    }
  } finally {
    agent.destroy();
  }
}
