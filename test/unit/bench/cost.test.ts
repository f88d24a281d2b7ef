import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type CostSample,
  dollarsPerMillion,
  FUNCTION_MEMORY_MB,
  lambdaCpuDollarsPerMillion,
  mskConnectDollarsPerMillion,
  PRICES,
  requestClasses,
  vcpuShare,
} from '../../../bench/cost.js';
import {
  costTable,
  dollars,
  markdownTable,
  parsePeerResult,
  readPeerResults,
} from '../../../bench/cost-table.js';
import { awsRequestKey } from '../../../bench/request-counter.js';
import { DEFAULT_SIZES } from '../../../infra/lib/functions.js';

/**
 * 1,000 records through the sink function (1,024 MB) in 2 invocations: 100 ms of CPU, 300 ms
 * of wall time, 2 Queries and 4 UpdateItems, 4 PutObjects and 1 GetObject, 2 Kafka requests,
 * plus requests that are not billed per request (DescribeTable, DeleteObject).
 */
const sample: CostSample = {
  bench: 's3-sink',
  function: 'sink-task',
  records: 1000,
  invocations: 2,
  cpuMs: 100,
  wallMs: 300,
  requests: {
    'dynamodb:Query': 2,
    'dynamodb:UpdateItem': 4,
    'dynamodb:DescribeTable': 1,
    's3:PUT PutObject': 4,
    's3:GET GetObject': 1,
    's3:DELETE DeleteObject': 3,
    'kafka:Produce': 2,
  },
};

describe('bench cost', () => {
  it('gives a function at 1,024 MB 1024/1769 of a vCPU, and never more than one', () => {
    expect(vcpuShare(1024)).toBeCloseTo(0.578858, 6);
    expect(vcpuShare(4096)).toBe(1);
  });

  it('sorts requests into their price classes', () => {
    expect(requestClasses(sample.requests)).toEqual({
      dynamoReads: 2,
      dynamoWrites: 4,
      dynamoOther: 1,
      s3Tier1: 4,
      s3Tier2: 1,
      kafka: 2,
    });
    expect(
      requestClasses({ 's3:GET ListObjectsV2': 1, 's3:POST CompleteMultipartUpload': 1 }),
    ).toMatchObject({ s3Tier1: 2, s3Tier2: 0 });
  });

  it('prices a sample per million records (checked by hand)', () => {
    const d = dollarsPerMillion(sample);
    // 1,000 records: x 1,000 per million.
    // CPU: 0.1 s / (1024/1769) = 0.1727539 s x 1 GB x $0.0000133334 = $0.0000023034
    expect(d.lambdaCpu).toBeCloseTo(0.0023034, 6);
    // Wall: (0.3 - 0.1) s waited + 0.1727539 s = 0.3727539 s x 1 GB x $0.0000133334 = $0.0000049701
    expect(d.lambdaWall).toBeCloseTo(0.0049701, 6);
    // 2 invocations x $0.20 / 1,000,000
    expect(d.lambdaRequests).toBeCloseTo(0.0004, 9);
    // 4 writes x $0.625/M + 2 reads x $0.125/M = $0.00000275
    expect(d.dynamo).toBeCloseTo(0.00275, 9);
    // 4 PUT x $0.005/1,000 + 1 GET x $0.0004/1,000 = $0.0000204
    expect(d.s3).toBeCloseTo(0.0204, 9);
    expect(d.totalCpu).toBeCloseTo(0.0023034 + 0.0004 + 0.00275 + 0.0204, 6);
    expect(d.totalWall).toBeCloseTo(0.0049701 + 0.0004 + 0.00275 + 0.0204, 6);
  });

  it('prices a REST request with its API Gateway call, at the api function memory', () => {
    const d = dollarsPerMillion({
      ...sample,
      bench: 'rest-status',
      function: 'api',
      invocations: 1000,
      requests: { 'dynamodb:Query': 1000 },
    });
    // 1,000 calls x $3.50/M per 1,000 requests = $3.50 per million requests
    expect(d.apiGateway).toBeCloseTo(3.5, 9);
    expect(d.lambdaRequests).toBeCloseTo(0.2, 9);
    expect(d.dynamo).toBeCloseTo(0.125, 9);
    // 0.1 s / (512/1769) = 0.3455078 s x 0.5 GB x $0.0000133334: below one vCPU, CPU-bound work
    // costs the same at any memory
    expect(d.lambdaCpu).toBeCloseTo(0.0023034, 6);
    expect(dollarsPerMillion(sample).apiGateway).toBe(0);
  });

  it('refuses to price a sample without records', () => {
    expect(() => dollarsPerMillion({ ...sample, records: 0 })).toThrow('no records');
  });

  it('prices one MSK Connect worker of one MCU per million records (checked by hand)', () => {
    // 1,000,000 / 5,000 records/s = 200 s = 0.0555556 h x $0.11; 90 CPU-s = 0.025 h x $0.11
    const msk = mskConnectDollarsPerMillion(5000, 90);
    expect(msk.busyWorker).toBeCloseTo(0.00611111, 8);
    expect(msk.cpu).toBeCloseTo(0.00275, 9);
    expect(() => mskConnectDollarsPerMillion(0, 1)).toThrow('no throughput');
  });

  it('prices CPU seconds per million records as Lambda duration at the function memory', () => {
    // 60 s / (1024/1769) = 103.65234 s x 1 GB x $0.0000133334
    expect(lambdaCpuDollarsPerMillion(60, 'source-task')).toBeCloseTo(0.00138204, 7);
  });

  it('prices with the memory infra configures for each function', () => {
    expect(FUNCTION_MEMORY_MB['source-task']).toBe(DEFAULT_SIZES['source-task'].memorySize);
    expect(FUNCTION_MEMORY_MB['sink-task']).toBe(DEFAULT_SIZES['sink-task'].memorySize);
    expect(FUNCTION_MEMORY_MB.api).toBe(DEFAULT_SIZES.api.memorySize);
  });

  it('uses the prices docs/deploy.md states, with their region and date', async () => {
    const deploy = await readFile(new URL('../../../docs/deploy.md', import.meta.url), 'utf8');
    const section = deploy.slice(deploy.indexOf('### Prices'));
    for (const text of [
      PRICES.region,
      PRICES.readOn,
      `$${PRICES.lambdaArmPerGbSecond} per GB-second`,
      '$0.20 per million requests',
      '$0.625 per million write request units',
      '$0.125 per million read request units',
      '$0.005 per 1,000 PUT, COPY, POST or LIST requests',
      '$0.0004 per 1,000 GET, SELECT and other requests',
      `$${PRICES.mskConnectPerMcuHour} per MCU-hour`,
      `${PRICES.lambdaMbPerVcpu} MB`,
    ]) {
      expect(section).toContain(text);
    }
  });
});

describe('bench request counter', () => {
  const sdk = (api: string) => `aws-sdk-js/3.1 ua/2.1 lang/js api/${api}#3.1 m/N`;

  it('names DynamoDB requests by their operation', () => {
    expect(
      awsRequestKey({
        method: 'POST',
        path: '/',
        target: 'DynamoDB_20120810.UpdateItem',
        userAgent: sdk('dynamodb'),
      }),
    ).toBe('dynamodb:UpdateItem');
  });

  it('names S3 requests by method and command, lists included', () => {
    const s3 = (method: string, path: string) =>
      awsRequestKey({ method, path, target: '', userAgent: sdk('s3') });
    expect(s3('PUT', '/bucket/a/b.json?x-id=PutObject')).toBe('s3:PUT PutObject');
    expect(s3('GET', '/bucket?list-type=2&prefix=a')).toBe('s3:GET ListObjectsV2');
    expect(s3('POST', '/bucket/key?uploads')).toBe('s3:POST');
  });

  it('leaves other HTTP requests out', () => {
    expect(
      awsRequestKey({ method: 'GET', path: '/connectors', target: '', userAgent: 'node' }),
    ).toBeUndefined();
  });
});

describe('bench cost table', () => {
  it('pads Markdown columns to their widest cell', () => {
    expect(markdownTable(['a', 'bench'], [['s3-sink', '1']])).toBe(
      ['| a       | bench |', '| ------- | ----- |', '| s3-sink | 1     |'].join('\n'),
    );
  });

  it('prints per-thousand figures, dollars per million and the missing peer results', () => {
    const lines = costTable([sample], []).join('\n');
    expect(lines).toContain('Assumption (CPU-based Lambda)');
    expect(lines).toMatch(
      /\| s3-sink +\| sink-task \| 1000 +\| 100 +\| 300 +\| 2\.00 +\| 2\.00 +\| 4\.00 +\| 4\.00 +\| 1\.00 +\| 2\.00 +\|/,
    );
    expect(lines).toMatch(
      /\| s3-sink +\| \$0\.00230 +\| \$0\.00497 +\| \$0\.00040 +\| \$0\.00000 +\| \$0\.00275 +\| \$0\.02040 +\| \$0\.02585 +\| \$0\.02852 +\|/,
    );
    expect(lines).toContain('run `npm run bench -- peer` for the MSK Connect column');
  });

  it('prints the MSK Connect figures of a saved peer result', () => {
    const peer = parsePeerResult('peer-replication', {
      name: 'peer-replication',
      result: {
        apache: { median: 5000, cpuSecondsPerMillion: 90 },
        ours: { median: 4000, cpuSecondsPerMillion: 60 },
      },
    });
    expect(peer).toBeDefined();
    if (peer === undefined) return;
    const lines = costTable([sample], [peer]).join('\n');
    expect(lines).toMatch(
      /\| peer-replication +\| 5000 +\| \$0\.00611 +\| \$0\.00275 +\| 4000 +\| \$0\.00138 +\|/,
    );
    expect(lines).toContain('bench/results/peer-source-1task.json');
    expect(lines).not.toContain('bench/results/peer-replication.json');
  });

  it('reads the peer results saved in a directory, leaving out missing files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cost-peers-'));
    try {
      const side = { median: 1000, cpuSecondsPerMillion: 50 };
      await writeFile(
        join(dir, 'peer-source-1task.json'),
        JSON.stringify({ name: 'peer-source-1task', result: { apache: side, ours: side } }),
      );
      const peers = await readPeerResults(dir);
      expect(peers).toEqual([{ workload: 'peer-source-1task', apache: side, ours: side }]);
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  it('ignores a peer file without both sides', () => {
    expect(parsePeerResult('peer-replication', { result: { apache: { median: 1 } } })).toBe(
      undefined,
    );
  });

  it('formats dollars with five decimals', () => {
    expect(dollars(0.0204)).toBe('$0.02040');
  });
});
