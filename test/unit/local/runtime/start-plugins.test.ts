import { describe, expect, it } from 'vitest';
import { startLocalRuntime } from '../../../../local/runtime/start.js';
import { PluginCollisionError } from '../../../../shared/engine/errors.js';
import { QuietSourceConnector } from '../../../fixtures/plugins/acme-plugins.js';

describe('startLocalRuntime with plugin modules', () => {
  it('refuses a module that collides with a built-in name before it starts anything', async () => {
    // Prepare: no broker, no ports: the start must fail before it needs any
    const collider = {
      module: './gen.js',
      plugins: [
        {
          className: 'com.acme.DatagenConnector',
          aliases: ['datagen'],
          type: 'source' as const,
          version: '1.0.0',
          create: () => new QuietSourceConnector(),
        },
      ],
    };
    // Act
    const start = startLocalRuntime({ pluginModules: [collider], brokers: ['127.0.0.1:1'] });
    // Assess
    await expect(start).rejects.toThrow(PluginCollisionError);
    await expect(start).rejects.toThrow(
      'Plugin com.acme.DatagenConnector from module ./gen.js collides with the built-in dev.serverlessconnect.connectors.DatagenSourceConnector: both are named datagen',
    );
  });
});
