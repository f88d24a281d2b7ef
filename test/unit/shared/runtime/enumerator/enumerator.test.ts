import { describe, expect, it } from 'vitest';
import { BOUNDED_FINISHED_WORKER } from '../../../../../shared/runtime/enumerator/enumerator.js';
import { mappingGroupId } from '../../../../../shared/runtime/enumerator/sink-mappings.js';
import {
  TASK_PARTITIONS_KEY,
  TASK_STOPPING_OFFSETS_KEY,
} from '../../../../../shared/runtime/task/task-split.js';
import { datagenConfig, FakeKafkaClients, harness, sinkConfig } from './fixtures.js';

describe('Enumerator', () => {
  describe('source connectors', () => {
    it('writes task configs, shows tasks UNASSIGNED and dispatches each with its generation', async () => {
      // Prepare
      const h = harness();
      await h.store.configs.createConnector('gen', datagenConfig('gen'));
      // Act
      const report = await h.enumerator.reconcile('gen');
      // Assess
      const set = await h.store.configs.getTaskConfigs('gen');
      expect(set.tasks).toHaveLength(3);
      expect(report).toMatchObject({ state: 'RUNNING', kind: 'source', dispatched: [0, 1, 2] });
      expect(h.invocations).toEqual(
        set.tasks.map((t) => ({ connector: 'gen', task: t.task, generation: t.generation })),
      );
      const statuses = await h.store.status.listTaskStatuses('gen');
      expect(statuses.map((s) => s.state)).toEqual(['UNASSIGNED', 'UNASSIGNED', 'UNASSIGNED']);
      expect((await h.store.status.getConnectorStatus('gen'))?.state).toBe('RUNNING');
    });

    it('does not dispatch a task held by a live invocation, and does once its lease expired', async () => {
      const h = harness();
      await h.store.configs.createConnector('gen', datagenConfig('gen', { 'tasks.max': '1' }));
      await h.enumerator.reconcile('gen');
      const generation = (await h.store.configs.getTaskConfigs('gen')).tasks[0]?.generation ?? -1;
      await h.store.leases.acquireLease({
        connector: 'gen',
        task: 0,
        owner: 'inv-1',
        generation,
        ttlMs: 60_000,
      });

      const whileHeld = await h.enumerator.reconcile('gen');
      h.clock.advance(60_000);
      const afterExpiry = await h.enumerator.reconcile('gen');

      expect(whileHeld.dispatched).toEqual([]);
      expect(afterExpiry.dispatched).toEqual([0]);
    });

    it('moves only the generations of tasks whose config changed when tasks.max goes 3 -> 5 -> 1 -> 3', async () => {
      const h = harness();
      const config = datagenConfig('gen', { 'source.partitions': '15' });
      await h.store.configs.createConnector('gen', config);
      await h.enumerator.reconcile('gen');
      const generations: number[][] = [];
      for (const max of ['5', '1', '3']) {
        const before = await h.store.configs.getTaskConfigs('gen');
        const record = await h.store.configs.getConnector('gen');
        await h.store.configs.updateConnector(
          'gen',
          { ...config, 'tasks.max': max },
          record?.version ?? 0,
        );
        await h.enumerator.reconcile('gen');
        const after = await h.store.configs.getTaskConfigs('gen');
        generations.push(after.tasks.map((t) => t.generation));
        for (const task of after.tasks) {
          const old = before.tasks[task.task];
          const same =
            old !== undefined && JSON.stringify(old.config) === JSON.stringify(task.config);
          expect(task.generation === (old?.generation ?? -1)).toBe(same);
        }
        const statuses = await h.store.status.listTaskStatuses('gen');
        expect(statuses.map((s) => s.task)).toEqual(after.tasks.map((t) => t.task));
      }
      expect(generations.map((g) => g.length)).toEqual([5, 1, 3]);
    });

    it('fences the invocations and producers of replaced tasks before the new generation runs', async () => {
      // Prepare
      const h = harness();
      const config = datagenConfig('gen', { 'source.partitions': '4', 'tasks.max': '2' });
      await h.store.configs.createConnector('gen', config);
      await h.enumerator.reconcile('gen');
      const first = await h.store.configs.getTaskConfigs('gen');
      const leases = await Promise.all(
        first.tasks.map((t) =>
          h.store.leases.acquireLease({
            connector: 'gen',
            task: t.task,
            owner: `old-${t.task}`,
            generation: t.generation,
            ttlMs: 600_000,
          }),
        ),
      );
      // Act: 2 -> 1 task (task 0's partitions change, task 1 goes away)
      await h.store.configs.updateConnector('gen', { ...config, 'tasks.max': '1' }, 1);
      const report = await h.enumerator.reconcile('gen');
      // Assess
      expect(h.fenced).toEqual(['serverless-connect-gen-0', 'serverless-connect-gen-1']);
      for (const lease of leases) {
        await expect(h.store.leases.renewLease(lease, 1_000)).rejects.toThrow();
      }
      expect(report.dispatched).toEqual([0]);
    });

    it('completes the fencing round a run left undone before any task of the new generation starts', async () => {
      // Prepare: a run writes 2 -> 1 task configs and dies in its fencing round.
      const h = harness();
      const config = datagenConfig('gen', { 'source.partitions': '4', 'tasks.max': '2' });
      await h.store.configs.createConnector('gen', config);
      await h.enumerator.reconcile('gen');
      const first = await h.store.configs.getTaskConfigs('gen');
      const old = await h.store.leases.acquireLease({
        connector: 'gen',
        task: 1,
        owner: 'old-1',
        generation: first.tasks[1]?.generation ?? -1,
        ttlMs: 600_000,
      });
      await h.store.configs.updateConnector('gen', { ...config, 'tasks.max': '1' }, 1);
      const dyingKafka = new FakeKafkaClients(h.cluster);
      dyingKafka.onConnect = async () => {
        throw new Error('the run died here');
      };
      const dying = h.another({ kafka: dyingKafka });
      h.invocations.length = 0;
      const interrupted = await dying.reconcile('gen');
      const left = await h.store.configs.getTaskConfigs('gen');
      // Act: the next run finds the new configs already written
      const report = await h.enumerator.reconcile('gen');
      // Assess
      expect(interrupted.dispatched).toEqual([]);
      expect(left.fencing).toEqual([0, 1]);
      expect(h.fenced).toEqual(['serverless-connect-gen-0', 'serverless-connect-gen-1']);
      await expect(h.store.leases.renewLease(old, 1_000)).rejects.toThrow();
      expect((await h.store.configs.getTaskConfigs('gen')).fencing).toBeUndefined();
      expect(report.dispatched).toEqual([0]);
      expect(h.invocations.map((i) => i.task)).toEqual([0]);
    });

    it('starts over when a stop lands while it reconciles, leaving the connector stopped', async () => {
      // Prepare: run A read the connector RUNNING; before its write, the connector is stopped
      // and run B reconciles the stop.
      const h = harness();
      const config = datagenConfig('gen', { 'source.partitions': '2', 'tasks.max': '1' });
      await h.store.configs.createConnector('gen', config);
      await h.enumerator.reconcile('gen');
      await h.store.configs.updateConnector('gen', { ...config, 'tasks.max': '2' }, 1);
      const configs = h.store.configs;
      let raced = false;
      const racing = h.another({
        store: {
          ...h.store,
          configs: new Proxy(configs, {
            get: (target, key) =>
              key === 'putTaskConfigs'
                ? async (...args: Parameters<typeof configs.putTaskConfigs>) => {
                    if (!raced) {
                      raced = true;
                      await configs.setTargetState('gen', 'STOPPED');
                      await h.another().reconcile('gen');
                    }
                    return configs.putTaskConfigs(...args);
                  }
                : (Reflect.get(target, key, target) as (...a: unknown[]) => unknown).bind(target),
          }),
        },
      });
      h.invocations.length = 0;
      // Act
      const report = await racing.reconcile('gen');
      // Assess
      expect(raced).toBe(true);
      expect(report.state).toBe('STOPPED');
      expect((await h.store.configs.getTaskConfigs('gen')).tasks).toEqual([]);
      expect(h.invocations).toEqual([]);
    });

    it('fences nothing when a run finds the task configs unchanged', async () => {
      const h = harness();
      await h.store.configs.createConnector('gen', datagenConfig('gen'));
      await h.enumerator.reconcile('gen');

      await h.enumerator.reconcile('gen');

      expect(h.fenced).toEqual([]);
    });

    it('leaves a FAILED task alone until a restart of failed tasks revokes its lease and dispatches it', async () => {
      const h = harness();
      await h.store.configs.createConnector('gen', datagenConfig('gen', { 'tasks.max': '2' }));
      await h.enumerator.reconcile('gen');
      const set = await h.store.configs.getTaskConfigs('gen');
      const lease = await h.store.leases.acquireLease({
        connector: 'gen',
        task: 1,
        owner: 'inv-1',
        generation: set.tasks[1]?.generation ?? -1,
        ttlMs: 600_000,
      });
      await h.store.status.putTaskStatus(
        { connector: 'gen', task: 1 },
        { state: 'FAILED', workerId: 'inv-1', trace: 'boom' },
        lease,
      );
      h.invocations.length = 0;

      const idle = await h.enumerator.reconcile('gen');
      await h.store.restarts.requestRestart('gen', { includeTasks: true, onlyFailed: true });
      const restarted = await h.enumerator.reconcile('gen');

      // Task 0 was never taken by the fake invoker, so it is free and dispatched each run.
      expect(idle.dispatched).toEqual([0]);
      expect(restarted.dispatched).toEqual([0, 1]);
      // The task counts the enumerator publishes (FailedTaskCount) come from these.
      expect(idle.taskStates?.FAILED).toBe(1);
      expect(restarted.taskStates?.FAILED).toBeUndefined();
      expect(restarted.restart).toBe(1);
      expect((await h.store.status.getTaskStatus({ connector: 'gen', task: 1 }))?.state).toBe(
        'RESTARTING',
      );
      expect(await h.store.leases.getLease({ connector: 'gen', task: 1 })).toBeUndefined();
      expect(await h.store.restarts.getRestartRequest('gen')).toBeUndefined();
      await expect(h.store.leases.renewLease(lease, 1_000)).rejects.toThrow();
    });

    it('pauses (no dispatch, tasks PAUSED), resumes and stops (no task configs, no task statuses)', async () => {
      const h = harness();
      await h.store.configs.createConnector('gen', datagenConfig('gen'));
      await h.enumerator.reconcile('gen');

      await h.store.configs.setTargetState('gen', 'PAUSED');
      const paused = await h.enumerator.reconcile('gen');
      const pausedStates = (await h.store.status.listTaskStatuses('gen')).map((s) => s.state);
      await h.store.configs.setTargetState('gen', 'RUNNING');
      const resumed = await h.enumerator.reconcile('gen');
      await h.store.configs.setTargetState('gen', 'STOPPED');
      const stopped = await h.enumerator.reconcile('gen');

      expect(paused).toMatchObject({ state: 'PAUSED', dispatched: [] });
      expect(pausedStates).toEqual(['PAUSED', 'PAUSED', 'PAUSED']);
      expect(resumed).toMatchObject({ state: 'RUNNING', dispatched: [0, 1, 2] });
      expect(stopped).toMatchObject({ state: 'STOPPED', tasks: 0 });
      expect((await h.store.configs.getTaskConfigs('gen')).tasks).toEqual([]);
      expect(await h.store.status.listTaskStatuses('gen')).toEqual([]);
      expect((await h.store.status.getConnectorStatus('gen'))?.state).toBe('STOPPED');
    });

    it('marks the connector FAILED with the reason and keeps the running tasks when it fails', async () => {
      const h = harness();
      await h.store.configs.createConnector('gen', datagenConfig('gen'));
      await h.enumerator.reconcile('gen');
      const before = await h.store.configs.getTaskConfigs('gen');
      const record = await h.store.configs.getConnector('gen');
      await h.store.configs.updateConnector(
        'gen',
        { ...datagenConfig('gen'), 'connector.class': 'no.such.Connector' },
        record?.version ?? 0,
      );

      const report = await h.enumerator.reconcile('gen');

      expect(report.state).toBe('FAILED');
      const status = await h.store.status.getConnectorStatus('gen');
      expect(status?.state).toBe('FAILED');
      expect(status?.trace).toContain('no.such.Connector');
      expect(await h.store.configs.getTaskConfigs('gen')).toEqual(before);
    });

    it('stores config-provider placeholders, never the secret, in task configs', async () => {
      const h = harness({
        providers: { vault: { get: async () => ({ password: 's3cr3t' }) } },
      });
      await h.store.configs.createConnector('s', {
        ...sinkConfig('s'),
        'config.providers': 'vault',
        secret: ['${vault', 'db', 'password}'].join(':'),
      });
      h.cluster.add('orders', 2);

      await h.enumerator.reconcile('s');

      const set = await h.store.configs.getTaskConfigs('s');
      const placeholder = ['${vault', 'db', 'password}'].join(':');
      expect(set.tasks.map((t) => t.config.secret)).toEqual([placeholder, placeholder]);
    });

    it('fails a connector whose stored config holds a placeholder the worker refuses, reading nothing', async () => {
      // Prepare: a config stored before the operator narrowed the allowlist
      const reads: string[] = [];
      const h = harness({
        providers: {
          env: {
            get: async (_path, keys) => {
              reads.push(...keys);
              return { AWS_SECRET_ACCESS_KEY: 'aws-secret' };
            },
            refusal: async (_path, key) =>
              key.startsWith('AWS_') ? `environment variable ${key} is not allowed` : undefined,
          },
        },
      });
      await h.store.configs.createConnector('gen', {
        ...datagenConfig('gen'),
        'kafka.topic': ['leak-${env', 'AWS_SECRET_ACCESS_KEY}'].join(':'),
      });

      // Act
      const report = await h.enumerator.reconcile('gen');

      // Assess
      expect(report.state).toBe('FAILED');
      const status = await h.store.status.getConnectorStatus('gen');
      expect(status?.trace).toContain('in configuration kafka.topic');
      expect(status?.trace).not.toContain('aws-secret');
      expect(reads).toEqual([]);
      expect((await h.store.configs.getTaskConfigs('gen')).tasks).toEqual([]);
    });
  });

  describe('sink connectors', () => {
    it('spreads partitions over tasks and creates one enabled mapping per topic', async () => {
      const h = harness();
      h.cluster.add('orders', 3).add('payments', 2);
      await h.store.configs.createConnector('s', sinkConfig('s', { topics: 'orders,payments' }));

      const report = await h.enumerator.reconcile('s');

      const set = await h.store.configs.getTaskConfigs('s');
      const owned = set.tasks.map((t) => t.config[TASK_PARTITIONS_KEY]?.split(',') ?? []);
      expect(owned.flat().sort()).toEqual(
        ['orders-0', 'orders-1', 'orders-2', 'payments-0', 'payments-1'].sort(),
      );
      expect(Math.abs((owned[0]?.length ?? 0) - (owned[1]?.length ?? 0))).toBeLessThanOrEqual(1);
      expect(report.mappings).toEqual({ created: 2, updated: 0, deleted: 0 });
      const mappings = await h.mappings.list('s');
      expect(mappings.map((m) => [m.topic, m.enabled, m.groupId])).toEqual([
        ['orders', true, 'connect-s-orders'],
        ['payments', true, 'connect-s-payments'],
      ]);
      expect((await h.store.status.listTaskStatuses('s')).map((s) => s.state)).toEqual([
        'RUNNING',
        'RUNNING',
      ]);
    });

    it('discovers added partitions only once the discovery interval passed, moving no assigned partition', async () => {
      const h = harness();
      h.cluster.add('orders', 4);
      await h.store.configs.createConnector(
        's',
        sinkConfig('s', { 'partition.discovery.interval.ms': '60000' }),
      );
      await h.enumerator.reconcile('s');
      const first = await h.store.configs.getTaskConfigs('s');
      h.cluster.add('orders', 6);

      h.clock.advance(30_000);
      await h.enumerator.reconcile('s');
      const early = await h.store.configs.getTaskConfigs('s');
      h.clock.advance(30_000);
      await h.enumerator.reconcile('s');
      const late = await h.store.configs.getTaskConfigs('s');

      expect(early).toEqual(first);
      const before = first.tasks.map((t) => t.config[TASK_PARTITIONS_KEY]?.split(',') ?? []);
      const after = late.tasks.map((t) => t.config[TASK_PARTITIONS_KEY]?.split(',') ?? []);
      expect(after.flat()).toHaveLength(6);
      before.forEach((owned, task) => {
        for (const id of owned) expect(after[task]).toContain(id);
      });
    });

    it('gives a sink created before its topic exists a mapping at the next run after the topic appears, not an interval later', async () => {
      // Prepare: the README's first run creates the source and the sink together
      const h = harness();
      await h.store.configs.createConnector('s', sinkConfig('s'));
      await h.enumerator.reconcile('s');
      const before = await h.store.configs.getTaskConfigs('s');
      // Act: the source's first write creates the topic; the next run is seconds later
      h.cluster.add('orders', 2);
      h.clock.advance(1_000);
      await h.enumerator.reconcile('s');
      // Assess
      const after = await h.store.configs.getTaskConfigs('s');
      expect(before.tasks.map((t) => t.config[TASK_PARTITIONS_KEY] ?? '').join('')).toBe('');
      expect(
        after.tasks.flatMap((t) => t.config[TASK_PARTITIONS_KEY]?.split(',') ?? []).sort(),
      ).toEqual(['orders-0', 'orders-1']);
      expect((await h.mappings.list('s')).map((m) => m.topic)).toEqual(['orders']);
    });

    it('picks up a new topic matching topics.regex and gives it a mapping', async () => {
      const h = harness();
      h.cluster.add('events.a', 1).add('other', 1);
      await h.store.configs.createConnector(
        's',
        sinkConfig('s', {
          topics: '',
          'topics.regex': 'events\\..*',
          'partition.discovery.interval.ms': '1000',
        }),
      );
      await h.enumerator.reconcile('s');
      h.cluster.add('events.b', 2);
      h.clock.advance(1_000);

      await h.enumerator.reconcile('s');

      expect((await h.mappings.list('s')).map((m) => m.topic)).toEqual(['events.a', 'events.b']);
    });

    it('disables mappings on pause and stop, enables them on resume and deletes them with the connector', async () => {
      const h = harness();
      h.cluster.add('orders', 2);
      await h.store.configs.createConnector('s', sinkConfig('s'));
      await h.enumerator.reconcile('s');
      const enabled = async () => (await h.mappings.list('s')).map((m) => m.enabled);

      await h.store.configs.setTargetState('s', 'PAUSED');
      await h.enumerator.reconcile('s');
      const paused = await enabled();
      await h.store.configs.setTargetState('s', 'RUNNING');
      await h.enumerator.reconcile('s');
      const resumed = await enabled();
      await h.store.configs.setTargetState('s', 'STOPPED');
      await h.enumerator.reconcile('s');
      const stopped = await enabled();
      await h.store.configs.deleteConnector('s');
      await h.enumerator.reconcileAll();

      expect([paused, resumed, stopped]).toEqual([[false], [true], [false]]);
      expect(await h.mappings.list()).toEqual([]);
    });

    it('moves a mapping group back to altered sink offsets before enabling it again, once its members left', async () => {
      // Prepare: a sink ran up to 40 and 30; stopped, its offsets were altered back / reset.
      const h = harness();
      h.cluster.add('orders', 2, 50);
      await h.store.configs.createConnector('s', sinkConfig('s'));
      await h.enumerator.reconcile('s');
      const group = mappingGroupId('s', 'orders');
      await h.cluster.setGroupOffsets(group, [
        { topic: 'orders', partition: 0, offset: 41 },
        { topic: 'orders', partition: 1, offset: 31 },
      ]);
      await h.store.configs.setTargetState('s', 'STOPPED');
      await h.enumerator.reconcile('s');
      await h.store.offsets.alterSinkOffsets('s', [
        { topic: 'orders', partition: 0, nextOffset: 10 },
        { topic: 'orders', partition: 1, nextOffset: null },
      ]);
      await h.store.configs.setTargetState('s', 'RUNNING');
      h.cluster.busy.add(group);
      // Act
      await h.enumerator.reconcile('s');
      const whileBusy = (await h.mappings.list('s')).map((m) => m.enabled);
      h.cluster.busy.delete(group);
      await h.enumerator.reconcile('s');
      // Assess
      expect(whileBusy).toEqual([false]);
      expect((await h.mappings.list('s')).map((m) => m.enabled)).toEqual([true]);
      expect(await h.cluster.committedOffsets(group, 'orders')).toEqual([
        { topic: 'orders', partition: 0, offset: 10 },
        { topic: 'orders', partition: 1, offset: 0 },
      ]);
    });

    it('seeds the starting offsets the subscription asks for on first assignment only', async () => {
      const h = harness();
      h.cluster.add('orders', 2, 100);
      await h.store.configs.createConnector(
        's',
        sinkConfig('s', {
          'starting.offsets': 'specific',
          'starting.offsets.specific': 'orders:0:40',
          'starting.offsets.reset': 'latest',
        }),
      );

      await h.enumerator.reconcile('s');
      h.cluster.add('orders', 2, 500);
      await h.enumerator.reconcile('s');

      expect(await h.store.offsets.getSinkOffsets('s')).toEqual([
        { topic: 'orders', partition: 0, nextOffset: 40 },
        { topic: 'orders', partition: 1, nextOffset: 100 },
      ]);
    });

    it('gives a bounded subscription its stopping offsets and no periodic discovery', async () => {
      const h = harness();
      h.cluster.add('orders', 2, 50);
      await h.store.configs.createConnector(
        's',
        sinkConfig('s', { 'tasks.max': '1', 'stopping.offsets': 'latest' }),
      );
      await h.enumerator.reconcile('s');
      h.cluster.add('orders', 3, 80);
      h.clock.advance(600_000);

      await h.enumerator.reconcile('s');

      const [task] = (await h.store.configs.getTaskConfigs('s')).tasks;
      expect(task?.config[TASK_PARTITIONS_KEY]).toBe('orders-0,orders-1');
      expect(task?.config[TASK_STOPPING_OFFSETS_KEY]).toBe('orders-0=50,orders-1=50');
    });

    it('ends a bounded sink once every partition reached its stopping offset: mappings disabled, tasks marked', async () => {
      // Prepare
      const h = harness();
      h.cluster.add('orders', 2, 50);
      await h.store.configs.createConnector(
        's',
        sinkConfig('s', { 'tasks.max': '2', 'stopping.offsets': 'latest' }),
      );
      await h.enumerator.reconcile('s');
      await h.store.offsets.commitSinkOffset('s', {
        topic: 'orders',
        partition: 0,
        nextOffset: 50,
      });
      await h.store.offsets.commitSinkOffset('s', {
        topic: 'orders',
        partition: 1,
        nextOffset: 49,
      });
      // Act
      await h.enumerator.reconcile('s');
      const midway = (await h.mappings.list('s')).map((m) => m.enabled);
      await h.store.offsets.commitSinkOffset('s', {
        topic: 'orders',
        partition: 1,
        nextOffset: 50,
      });
      await h.enumerator.reconcile('s');
      // Assess
      expect(midway).toEqual([true]);
      expect((await h.mappings.list('s')).map((m) => m.enabled)).toEqual([false]);
      const statuses = await h.store.status.listTaskStatuses('s');
      expect(statuses.map((s) => [s.state, s.workerId])).toEqual([
        ['RUNNING', BOUNDED_FINISHED_WORKER],
        ['RUNNING', BOUNDED_FINISHED_WORKER],
      ]);
    });
  });

  it('converges when two runs reconcile the same connectors at once', async () => {
    const h = harness();
    h.cluster.add('orders', 8);
    await h.store.configs.createConnector('gen', datagenConfig('gen'));
    await h.store.configs.createConnector('s', sinkConfig('s', { 'tasks.max': '3' }));

    await Promise.all([h.enumerator.reconcileAll(), h.another().reconcileAll()]);
    const afterRace = {
      gen: await h.store.configs.getTaskConfigs('gen'),
      s: await h.store.configs.getTaskConfigs('s'),
    };
    await h.enumerator.reconcileAll();

    expect(await h.store.configs.getTaskConfigs('gen')).toEqual(afterRace.gen);
    expect(await h.store.configs.getTaskConfigs('s')).toEqual(afterRace.s);
    expect(afterRace.gen.version).toBe(1);
    expect(afterRace.s.version).toBe(1);
    expect(await h.mappings.list('s')).toHaveLength(1);
  });
});
