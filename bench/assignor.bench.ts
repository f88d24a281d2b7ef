import {
  type Assignment,
  assignSplits,
  movedSplits,
} from '../shared/runtime/enumerator/assignor.js';
import { median, saveResult } from './harness.js';

/**
 * `assignor`: the time to assign 10,000 splits (100 topics × 100 partitions) to 1,000 tasks,
 * then, for three changes (add a topic, remove a task, add a task), how many splits move with
 * the sticky assignor vs a from-scratch round-robin of the new inputs (what a naive enumerator
 * would do). Fewer moves means fewer tasks restarted. No services.
 */
const topics = 100;
const partitions = 100;
const tasks = 1_000;
const rounds = 5;

function topicSplits(topic: number): string[] {
  return Array.from({ length: partitions }, (_, p) => `t${topic}-${p}`);
}

interface ChangeResult {
  readonly change: string;
  readonly ours: number;
  readonly roundRobin: number;
}

function compareChange(
  change: string,
  before: Assignment,
  splits: readonly string[],
  taskCount: number,
): ChangeResult {
  const ours = movedSplits(before, assignSplits(splits, taskCount, before));
  const roundRobin = movedSplits(before, assignSplits(splits, taskCount));
  console.log(`assignor: ${change} moved ours=${ours} round-robin=${roundRobin}`);
  return { change, ours, roundRobin };
}

export async function run(): Promise<void> {
  const splits = Array.from({ length: topics }, (_, t) => topicSplits(t)).flat();
  assignSplits(splits, tasks); // warm-up
  const timings: number[] = [];
  let before: Assignment = new Map();
  for (let round = 0; round < rounds; round += 1) {
    const started = process.hrtime.bigint();
    before = assignSplits(splits, tasks);
    timings.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const assignMs = median(timings);
  console.log(
    `assignor: assign ${splits.length} splits to ${tasks} tasks median=${assignMs.toFixed(2)}ms`,
  );
  const changes = [
    compareChange('add-topic', before, [...splits, ...topicSplits(topics)], tasks),
    compareChange('remove-task', before, splits, tasks - 1),
    compareChange('add-task', before, splits, tasks + 1),
  ];
  await saveResult('assignor', { splits: splits.length, tasks, assignMs, timings, changes });
}
