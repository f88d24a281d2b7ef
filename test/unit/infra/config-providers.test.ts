import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../infra/lib/serverless-connect-stack.js';
import { cdkJsonContext, functionEnvironments, synthConstruct } from './synth.js';
import { selfManagedPlain } from './variants.js';

describe('config provider settings of the functions', { timeout: 60_000 }, () => {
  it('reach the environment of all four functions from the construct props', () => {
    // Act
    const { template } = synthConstruct(() => ({
      ...selfManagedPlain(),
      functions: {
        configProviders: {
          env: { allowlistPattern: 'CONNECT_SECRET_.*' },
          file: { allowedPaths: ['/opt/connect-secrets', '/var/task/config'] },
        },
      },
    }));
    // Assess
    const environments = Object.values(functionEnvironments(template));
    expect(environments).toHaveLength(4);
    for (const variables of environments) {
      expect(variables).toMatchObject({
        CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN: 'CONNECT_SECRET_.*',
        CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS: '/opt/connect-secrets,/var/task/config',
      });
    }
  });

  it('are absent by default, so the functions allow no variable and no file', () => {
    // Act
    const { template } = synthConstruct(selfManagedPlain);
    // Assess
    const environments = Object.values(functionEnvironments(template));
    expect(environments).toHaveLength(4);
    for (const variables of environments) {
      expect(Object.keys(variables).filter((k) => k.startsWith('CONFIG_PROVIDERS_'))).toEqual([]);
    }
  });

  it('reach the functions from the default app context', () => {
    // Act
    const { app, stack } = createApp({
      context: {
        ...cdkJsonContext(),
        nag: 'false',
        'aws:cdk:bundling-stacks': [],
        configProvidersEnvAllowlistPattern: 'ACME_.*',
        configProvidersFileAllowedPaths: '/opt/a, /opt/b',
      },
    });
    const template = Template.fromJSON(
      app.synth().getStackArtifact(stack.artifactId).template as Record<string, unknown>,
    );
    // Assess
    for (const variables of Object.values(functionEnvironments(template))) {
      expect(variables.CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN).toBe('ACME_.*');
      expect(variables.CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS).toBe('/opt/a,/opt/b');
    }
  });

  it('fail the synth on a pattern that is no regex or a relative directory', () => {
    const withProviders = (configProviders: object) => () =>
      synthConstruct(() => ({ ...selfManagedPlain(), functions: { configProviders } }));
    expect(withProviders({ env: { allowlistPattern: '(' } })).toThrow(
      'configProviders.env.allowlistPattern is not a regular expression: (',
    );
    expect(withProviders({ file: { allowedPaths: ['secrets'] } })).toThrow(
      'configProviders.file.allowedPaths takes absolute directories without commas (got secrets)',
    );
  });
});
