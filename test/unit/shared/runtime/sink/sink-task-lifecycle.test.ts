import { describe, expect, it } from 'vitest';
import type { SinkTaskContextImpl } from '../../../../../shared/runtime/sink/sink-task-context.js';
import { TASK_PARTITIONS_KEY } from '../../../../../shared/runtime/task/task-split.js';
import { event, harness, records } from './fixtures.js';

const starts = (calls: readonly string[]) => calls.filter((c) => c.startsWith('start'));

describe('sink tasks in a warm container', () => {
  it('starts a task once and opens each partition once across batches', async () => {
    const h = await harness();

    await h.run(event(records(0, 0, 1)));
    await h.run(event(records(0, 2, 3), records(1, 0, 0)));
    await h.run(event(records(0, 4, 4), records(1, 1, 1)));

    expect(h.system.calls.filter((c) => !c.startsWith('put') && c !== 'preCommit')).toEqual([
      starts(h.system.calls)[0],
      'open:orders-0',
      'open:orders-1',
    ]);
    expect(h.sink.tasks.size).toBe(1);
  });

  it('stops the old instance and starts a new one when the connector config changes', async () => {
    const h = await harness();
    await h.run(event(records(0, 0, 1)));
    const stored = await h.store.configs.getConnector(h.name);
    await h.store.configs.updateConnector(
      h.name,
      { ...stored?.config, 'errors.log.enable': 'true' },
      stored?.version ?? 1,
    );

    await h.run(event(records(0, 2, 3)));

    expect(h.system.calls).toContain('close:orders-0');
    expect(h.system.calls.indexOf('stop')).toBeLessThan(
      h.system.calls.lastIndexOf('open:orders-0'),
    );
    expect(starts(h.system.calls)).toHaveLength(2);
    expect(h.system.contexts[1]?.errantRecordReporter).not.toBeNull();
  });

  it('stops the instance of a task that the task configs no longer hold', async () => {
    const h = await harness({
      tasks: [{ [TASK_PARTITIONS_KEY]: 'orders-0' }, { [TASK_PARTITIONS_KEY]: 'orders-1' }],
    });
    await h.run(event(records(1, 0, 0)));
    const set = await h.store.configs.getTaskConfigs(h.name);
    await h.store.configs.putTaskConfigs(
      h.name,
      [{ ...set.tasks[0]?.config, [TASK_PARTITIONS_KEY]: 'orders-0,orders-1' }],
      set.version,
    );

    await h.run(event(records(1, 1, 1)));

    expect(h.system.calls).toContain('stop');
    expect(h.sink.tasks.size).toBe(1);
    expect(h.sink.tasks.peek({ connector: h.name, task: 1 })).toBeUndefined();
  });

  it('close stops every started task', async () => {
    const h = await harness({
      tasks: [{ [TASK_PARTITIONS_KEY]: 'orders-0' }, { [TASK_PARTITIONS_KEY]: 'orders-1' }],
    });
    await h.run(event(records(0, 0, 0), records(1, 0, 0)));

    await h.sink.tasks.closeAll();

    expect(h.system.calls.filter((c) => c === 'stop')).toHaveLength(2);
    expect(h.sink.tasks.size).toBe(0);
  });

  it('marks the task RUNNING after its first batch, without a status write per batch', async () => {
    const h = await harness();
    let writes = 0;
    const put = h.store.status.putTaskStatus.bind(h.store.status);
    h.store.status.putTaskStatus = (...args) => {
      writes += 1;
      return put(...args);
    };

    await h.run(event(records(0, 0, 0)));
    await h.run(event(records(0, 1, 1)));

    const status = await h.store.status.getTaskStatus({ connector: h.name, task: 0 });
    expect(status).toMatchObject({ state: 'RUNNING', workerId: 'worker-1' });
    expect(writes).toBe(1);
  });

  it('serialises batches of one task that arrive at once', async () => {
    const h = await harness();
    let inPut = 0;
    let overlapped = false;
    h.system.onPut = async () => {
      inPut += 1;
      if (inPut > 1) overlapped = true;
      await new Promise((resolve) => setTimeout(resolve, 5));
      inPut -= 1;
    };

    await Promise.all([h.run(event(records(0, 0, 1))), h.run(event(records(1, 0, 1)))]);

    expect(overlapped).toBe(false);
    expect(await h.stored()).toEqual({ 'orders-0': 2, 'orders-1': 2 });
  });
});

describe('SinkTaskContext', () => {
  it('records offset() rewinds and warns that the mapping owns positions; pause and resume warn too', async () => {
    const h = await harness();
    h.system.onPut = async (_batch, context) => {
      context.offset({ topic: 'orders', partition: 0 }, 0);
      context.pause({ topic: 'orders', partition: 0 });
      context.resume({ topic: 'orders', partition: 0 });
      context.requestCommit();
    };

    await h.run(event(records(0, 0, 2)));

    const warnings = h.logger.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toEqual([
      expect.stringMatching(/offset\(orders-0, 0\) is not supported/),
      expect.stringMatching(/pause\(orders-0\) is ignored/),
      expect.stringMatching(/resume\(orders-0\) is ignored/),
    ]);
    expect(await h.stored()).toEqual({ 'orders-0': 3 });
    const context = h.system.contexts[0] as SinkTaskContextImpl;
    expect(context.requestedOffsets()).toEqual(new Map([['orders-0', 0]]));
    expect(context.configs()).toMatchObject({ [TASK_PARTITIONS_KEY]: 'orders-0,orders-1' });
  });
});
