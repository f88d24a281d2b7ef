/**
 * Warm containers for the Glue converters' tests: each its own Glue clients over the real AWS
 * SDK (against moto), whose calls to Glue are listed by name, so a test counts them.
 *
 * @example
 * const { clients, calls } = glueContainer();
 * const converter = new GlueAvroConverter(clients);
 * expect(calls).toEqual(['GetSchemaVersion']);
 */
import { GlueRegistryClients } from '../../shared/plugins/converters/glue/glue-registry-client.js';
import type { GlueRegistryPort } from '../../shared/plugins/converters/glue/glue-registry-port.js';
import { glueClientFor, sdkGluePort } from '../../shared/plugins/converters/glue/glue-sdk-port.js';

/** `port` with each call's name pushed to `calls`. */
export function countedGluePort(port: GlueRegistryPort, calls: string[]): GlueRegistryPort {
  return {
    getSchemaByDefinition(id, definition) {
      calls.push('GetSchemaByDefinition');
      return port.getSchemaByDefinition(id, definition);
    },
    createSchema(input) {
      calls.push('CreateSchema');
      return port.createSchema(input);
    },
    registerSchemaVersion(id, definition) {
      calls.push('RegisterSchemaVersion');
      return port.registerSchemaVersion(id, definition);
    },
    getSchemaVersion(id) {
      calls.push('GetSchemaVersion');
      return port.getSchemaVersion(id);
    },
  };
}

/** A warm container's Glue clients (over the SDK) and the Glue calls they made. */
export function glueContainer(): { clients: GlueRegistryClients; calls: string[] } {
  const calls: string[] = [];
  const clients = new GlueRegistryClients({
    portFor: (connection) => countedGluePort(sdkGluePort(glueClientFor(connection)), calls),
    clock: { now: () => Date.now() },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
  return { clients, calls };
}
