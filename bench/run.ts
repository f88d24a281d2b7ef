import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dollarsPerMillion, PRICES, reportedCosts } from './cost.js';
import { costAssumptions, costTable, readPeerResults } from './cost-table.js';
import { saveResult } from './harness.js';
import { BenchServices } from './services.js';

/**
 * `npm run bench` runs every `bench/*.bench.ts`; `npm run bench -- <name> [<name>…]` runs the
 * named ones (file name without `.bench.ts`); `BENCH_ROUNDS=1` makes each comparison one short
 * round (a check that a benchmark runs, not a measurement). Each file exports
 * `run(services: BenchServices): Promise<void>` and prints its own ratio lines. After the
 * selected benchmarks, the cost table of what they reported (bench/cost.ts) is printed and saved
 * as `bench/results/cost.json`.
 */
export interface BenchModule {
  run(services: BenchServices): Promise<void>;
}

const benchDir = dirname(fileURLToPath(import.meta.url));

async function main(): Promise<number> {
  const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
  const available = (await readdir(benchDir))
    .filter((file) => file.endsWith('.bench.ts'))
    .map((file) => file.slice(0, -'.bench.ts'.length))
    .sort();
  const unknown = wanted.filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    console.error(
      `unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}`,
    );
    return 2;
  }
  const selected = wanted.length > 0 ? wanted : available;
  const services = new BenchServices();
  let failures = 0;
  try {
    for (const name of selected) {
      console.log(`# ${name}`);
      const module = (await import(
        pathToFileURL(`${benchDir}/${name}.bench.ts`).href
      )) as BenchModule;
      try {
        await module.run(services);
      } catch (error) {
        failures += 1;
        console.error(`${name}: failed:`, error);
      }
    }
  } finally {
    await services.close();
  }
  await printCosts();
  return failures === 0 ? 0 : 1;
}

/** The cost table of this run's reports, next to the peer benchmark's last saved results. */
async function printCosts(): Promise<void> {
  const samples = reportedCosts();
  if (samples.length === 0) return;
  const peers = await readPeerResults(`${benchDir}/results`);
  console.log('');
  for (const line of costTable(samples, peers)) console.log(line);
  await saveResult('cost', {
    prices: PRICES,
    assumptions: costAssumptions(),
    samples: samples.map((s) => ({ ...s, dollarsPerMillion: dollarsPerMillion(s) })),
    peers,
  });
}

process.exitCode = await main();
