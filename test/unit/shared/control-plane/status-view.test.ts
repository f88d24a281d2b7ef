import { describe, expect, it } from 'vitest';
import {
  connectorStateInfo,
  type StatusViewInput,
} from '../../../../shared/control-plane/status-view.js';
import type { TaskStatus } from '../../../../shared/ports/status-store.js';

const task = (id: number, state: TaskStatus['state'], trace?: string): TaskStatus => ({
  connector: 'c',
  task: id,
  state,
  workerId: `w${id}`,
  updatedAt: 1,
  ...(trace === undefined ? {} : { trace }),
});

const base: StatusViewInput = {
  name: 'c',
  type: 'source',
  targetState: 'RUNNING',
  connectorStatus: { state: 'RUNNING', workerId: 'enumerator', updatedAt: 1 },
  taskIds: [1, 0],
  taskStatuses: [task(0, 'RUNNING'), task(1, 'FAILED', 'Error: x')],
  restart: undefined,
  defaultWorkerId: 'api',
};

describe('connectorStateInfo', () => {
  it('shows stored states sorted by task id, with the trace of a FAILED task', () => {
    // Act
    const info = connectorStateInfo(base);
    // Assess
    expect(info.tasks).toEqual([
      { id: 0, state: 'RUNNING', worker_id: 'w0' },
      { id: 1, state: 'FAILED', worker_id: 'w1', trace: 'Error: x' },
    ]);
  });

  it('shows the last error of a RUNNING sink task retrying its batch, but not once PAUSED', () => {
    // Prepare
    const retrying = task(0, 'RUNNING', 'RetriableError: S3 answered 500');
    const input = { ...base, type: 'sink' as const, taskStatuses: [retrying] };
    // Act
    const running = connectorStateInfo(input);
    const paused = connectorStateInfo({ ...input, targetState: 'PAUSED' });
    // Assess
    expect(running.tasks[0]).toEqual({
      id: 0,
      state: 'RUNNING',
      worker_id: 'w0',
      trace: 'RetriableError: S3 answered 500',
    });
    expect(paused.tasks[0]).toEqual({ id: 0, state: 'PAUSED', worker_id: 'w0' });
  });

  it('shows UNASSIGNED for configured tasks without a status, and ignores removed tasks', () => {
    // Act
    const info = connectorStateInfo({
      ...base,
      taskIds: [0, 2],
      taskStatuses: [task(0, 'RUNNING'), task(1, 'RUNNING')],
    });
    // Assess
    expect(info.tasks.map((t) => [t.id, t.state, t.worker_id])).toEqual([
      [0, 'RUNNING', 'w0'],
      [2, 'UNASSIGNED', 'api'],
    ]);
  });

  it('keeps FAILED instances FAILED while PAUSED', () => {
    // Act
    const info = connectorStateInfo({ ...base, targetState: 'PAUSED' });
    // Assess
    expect(info.connector.state).toBe('PAUSED');
    expect(info.tasks.map((t) => t.state)).toEqual(['PAUSED', 'FAILED']);
  });

  it('shows the plan of a pending restart as RESTARTING, keeping the trace of a failed task', () => {
    // Act
    const info = connectorStateInfo({
      ...base,
      restart: { includeTasks: true, onlyFailed: true },
    });
    // Assess
    expect(info.connector.state).toBe('RUNNING');
    expect(info.tasks[1]).toEqual({
      id: 1,
      state: 'RESTARTING',
      worker_id: 'w1',
      trace: 'Error: x',
    });
    expect(info.tasks[0]?.state).toBe('RUNNING');
  });

  it('shows STOPPED with no tasks whatever was stored', () => {
    // Act
    const info = connectorStateInfo({ ...base, targetState: 'STOPPED' });
    // Assess
    expect(info.connector).toEqual({ state: 'STOPPED', worker_id: 'enumerator' });
    expect(info.tasks).toEqual([]);
  });
});
