/**
 * Config providers (Kafka's `ConfigProvider`): what resolves `${provider:path:key}` placeholders
 * in connector configs. The worker resolves placeholders (`shared/config/config-providers.ts`);
 * a plugin package may contribute providers of its own ({@link PluginModule}).
 */

/**
 * Looks up values for one provider (Kafka's `ConfigProvider.get(path, keys)`). Returns the
 * values it has for the requested keys; a key it does not have is left out. Throws a
 * `ConnectError` (e.g. `RetriableError` for throttling, `ConfigError` for a bad path);
 * messages must never contain secret values.
 *
 * @example
 * const vault: ConfigProviderResolver = {
 *   get: async (path, keys) => Object.fromEntries([...keys].map((k) => [k, readSecret(path, k)])),
 * };
 */
export interface ConfigProviderResolver {
  get(path: string, keys: ReadonlySet<string>): Promise<Readonly<Record<string, string>>>;
  /**
   * Why the operator's policy refuses the reference `path`/`key` (e.g. a variable outside an
   * allowlist, a file outside the allowed directories), or `undefined` when it may be read.
   * Called before `get` (placeholder resolution fails on a refusal, naming the config key) and
   * when a config is validated, so `PUT /connectors/{c}/config` rejects a refused placeholder.
   * Reads no secret; the reason must not contain one. Optional: without it nothing is refused.
   */
  refusal?(path: string, key: string): Promise<string | undefined>;
}
