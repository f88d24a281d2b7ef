import type { SinkMapping, SinkMappingPort, SinkMappingSpec } from '../../ports/dispatch.js';

/**
 * Sink mappings kept in memory: what the local runtime's event-source-mapping stand-in follows,
 * and what tests inspect. Same contract as the Lambda adapter (one mapping per connector and
 * topic; create and delete are safe to repeat).
 */
export class MemorySinkMappings implements SinkMappingPort {
  readonly #mappings = new Map<string, SinkMapping>();
  #next = 0;
  readonly #listeners = new Set<(mappings: readonly SinkMapping[]) => void>();

  /** Calls `listener` with every mapping after each change; returns the unsubscribe. */
  onChange(listener: (mappings: readonly SinkMapping[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async list(connector?: string): Promise<SinkMapping[]> {
    return [...this.#mappings.values()]
      .filter((m) => connector === undefined || m.connector === connector)
      .map((m) => ({ ...m }));
  }

  async create(spec: SinkMappingSpec): Promise<SinkMapping> {
    const existing = [...this.#mappings.values()].find(
      (m) => m.connector === spec.connector && m.topic === spec.topic,
    );
    if (existing !== undefined) return { ...existing };
    this.#next += 1;
    const mapping: SinkMapping = { ...spec, id: `mapping-${this.#next}` };
    this.#mappings.set(mapping.id, mapping);
    this.#changed();
    return { ...mapping };
  }

  async update(mapping: SinkMapping, spec: SinkMappingSpec): Promise<SinkMapping> {
    const current = this.#mappings.get(mapping.id);
    if (current === undefined) return this.create(spec);
    const updated: SinkMapping = {
      ...current,
      enabled: spec.enabled,
      batchSize: spec.batchSize,
      maxBatchingWindowSeconds: spec.maxBatchingWindowSeconds,
    };
    this.#mappings.set(updated.id, updated);
    this.#changed();
    return { ...updated };
  }

  async delete(mapping: SinkMapping): Promise<void> {
    if (this.#mappings.delete(mapping.id)) this.#changed();
  }

  #changed(): void {
    const all = [...this.#mappings.values()].map((m) => ({ ...m }));
    for (const listener of this.#listeners) listener(all);
  }
}
