import type { ConfigMap, TargetState, TaskConfigSet } from '../../../shared/ports/config-store.js';
import type { Lease } from '../../../shared/ports/lease-store.js';
import type { StateStore } from '../../../shared/ports/state-store.js';

export const TTL_MS = 30_000;

export function connectorConfig(name: string, extra: ConfigMap = {}): ConfigMap {
  return { name, 'connector.class': 'VerifiableSource', 'tasks.max': '2', ...extra };
}

export function taskConfig(name: string, task: number, extra: ConfigMap = {}): ConfigMap {
  return { ...connectorConfig(name), 'task.id': String(task), ...extra };
}

/** A connector with `tasks` task configs, in target state `target`. */
export async function seedConnector(
  store: StateStore,
  name: string,
  options: { readonly tasks?: number; readonly target?: TargetState } = {},
): Promise<TaskConfigSet> {
  await store.configs.createConnector(name, connectorConfig(name), {
    initialState: options.target ?? 'RUNNING',
  });
  const configs = Array.from({ length: options.tasks ?? 2 }, (_, task) => taskConfig(name, task));
  return store.configs.putTaskConfigs(name, configs, 0);
}

/** A connector with one task, leased by `owner`. */
export async function leasedTask(
  store: StateStore,
  name: string,
  owner = 'invocation-1',
): Promise<Lease> {
  await seedConnector(store, name, { tasks: 1 });
  return store.leases.acquireLease({
    connector: name,
    task: 0,
    owner,
    generation: 1,
    ttlMs: TTL_MS,
  });
}

/** A deterministic shuffle (mulberry32), so a failing order can be replayed. */
export function shuffled<T>(values: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...values];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
  }
  return out;
}
