import { ConfigError, type ConnectErrorOptions } from '../connect/errors.js';

/**
 * Typed errors of the engine's composition. Both are {@link ConfigError}s: a deployment's plugin
 * packages are part of its configuration, so a composition root reports them as it reports a bad
 * setting (`npm start` prints the message and exits 1; a Lambda container fails to initialise).
 */

/** A plugin module that cannot be used: it failed to load, exports nothing, or is malformed. */
export class PluginModuleError extends ConfigError {
  /** The module as the user named it (a path or a package name). */
  readonly module: string;
  constructor(module: string, message: string, options: Pick<ConnectErrorOptions, 'cause'> = {}) {
    super(message, undefined, options);
    this.module = module;
  }
}

/** A plugin module claims a name (class name, alias or config provider) someone else has. */
export class PluginCollisionError extends PluginModuleError {
  /** The name both claim. */
  readonly claimed: string;
  /** The other module, or undefined when the other side is built in. */
  readonly otherModule: string | undefined;
  constructor(module: string, claimed: string, otherModule: string | undefined, message: string) {
    super(module, message);
    this.claimed = claimed;
    this.otherModule = otherModule;
  }
}
