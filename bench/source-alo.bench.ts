import type { BenchServices } from './services.js';
import { runSourceBench } from './source-runner.js';

/** `source-alo`: see bench/source-runner.ts. */
export function run(services: BenchServices): Promise<void> {
  return runSourceBench(services, 'source-alo');
}
