/**
 * One local service (dynalite or s3rver) in a process of its own, for the benchmarks: in AWS,
 * DynamoDB and S3 are remote, so their CPU must not be charged to the event loop of the code
 * under test (nor to its baseline). Started by `BenchServices`; prints the service's endpoint
 * on its first line, and stops when its standard input ends (the benchmark process exited).
 *
 * Run as `tsx bench/service-process.ts dynalite|s3rver`.
 */
import { startDynalite } from '../local/services/dynalite.js';
import { startS3rver } from '../local/services/s3rver.js';

const kind = process.argv[2];
if (kind !== 'dynalite' && kind !== 's3rver') {
  console.error('usage: service-process.ts dynalite|s3rver');
  process.exit(2);
}
const running = kind === 'dynalite' ? await startDynalite() : await startS3rver();
process.stdout.write(`${running.endpoint}\n`);
process.stdin.on('end', () => {
  void running.close().finally(() => process.exit(0));
});
process.stdin.resume();
