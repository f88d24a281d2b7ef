/**
 * The Glue client against an in-memory Glue (fake-glue.ts): the library's get-or-register flow,
 * waiting for Glue's asynchronous compatibility check, the caches (synchronous hits, size bound,
 * time to live, a failed refresh keeping the old answer) and the errors' kinds. The real calls
 * against moto's Glue are in test/integration/converters/glue-avro-converter.int.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { isPromiseLike } from '../../../../../../shared/connect/converter.js';
import { DataError, RetriableError } from '../../../../../../shared/connect/errors.js';
import type { GlueRegistrySettings } from '../../../../../../shared/plugins/converters/glue/glue-converter-config.js';
import {
  FIRST_STATUS_WAIT_MS,
  GlueSchemaRegistryClient,
  STATUS_ATTEMPTS,
  STATUS_POLL_MS,
} from '../../../../../../shared/plugins/converters/glue/glue-registry-client.js';
import { GlueEntityNotFoundError } from '../../../../../../shared/plugins/converters/glue/glue-registry-port.js';
import { FakeGlue } from './fake-glue.js';

const SETTINGS: GlueRegistrySettings = {
  connection: { region: 'us-east-1', endpoint: null, credentials: null },
  registryName: 'default-registry',
  autoRegistration: true,
  compatibility: 'BACKWARD',
  description: null,
  cacheSize: 200,
  timeToLiveMs: 86_400_000,
};

const V1 = '{"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]}';
const V2 =
  '{"type":"record","name":"Order","fields":[{"name":"id","type":"long"},{"name":"note","type":["null","string"],"default":null}]}';

function client(settings: Partial<GlueRegistrySettings> = {}) {
  const glue = new FakeGlue();
  const time = { now: 0 };
  const sleeps: number[] = [];
  const c = new GlueSchemaRegistryClient({ ...SETTINGS, ...settings }, glue, {
    clock: { now: () => time.now },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { c, glue, time, sleeps };
}

describe('GlueSchemaRegistryClient writing', () => {
  it('creates a new schema with the configured compatibility, then answers from its cache synchronously', async () => {
    // Prepare
    const { c, glue } = client({ compatibility: 'FULL_ALL', description: 'orders' });

    // Act
    const id = await c.versionIdFor('orders', V1);
    const again = c.versionIdFor('orders', V1);

    // Assess
    expect(again).toBe(id);
    expect(glue.calls).toEqual(['GetSchemaByDefinition orders', 'CreateSchema orders']);
    expect(glue.created).toEqual([
      expect.objectContaining({
        registryName: 'default-registry',
        schemaName: 'orders',
        dataFormat: 'AVRO',
        compatibility: 'FULL_ALL',
        description: 'orders',
        schemaDefinition: V1,
      }),
    ]);
  });

  it('registers a new version of an existing schema', async () => {
    // Prepare
    const { c, glue } = client();
    const v1 = await c.versionIdFor('orders', V1);

    // Act
    const v2 = await c.versionIdFor('orders', V2);

    // Assess
    expect(v2).not.toBe(v1);
    expect(glue.calls.slice(2)).toEqual([
      'GetSchemaByDefinition orders',
      'RegisterSchemaVersion orders',
    ]);
  });

  it('registers a version when another writer created the schema first (AlreadyExists)', async () => {
    // Prepare: Glue says "Schema is not found." (as moto does for a schema without that version)
    const { c, glue } = client();
    const created = glue.put('orders', V1, 'AVRO');
    const lookup = glue.getSchemaByDefinition.bind(glue);
    glue.getSchemaByDefinition = async (id, definition) => {
      await lookup(id, definition).catch(() => undefined);
      throw new GlueEntityNotFoundError('Schema is not found. SchemaName: orders');
    };

    // Act
    const id = await c.versionIdFor('orders', V2);

    // Assess
    expect(id).not.toBe(created);
    expect(glue.calls).toEqual([
      'GetSchemaByDefinition orders',
      'CreateSchema orders',
      'RegisterSchemaVersion orders',
    ]);
  });

  it('refuses an unregistered schema with the library message when auto-registration is off', async () => {
    // Prepare
    const { c, glue } = client({ autoRegistration: false });

    // Act
    const failure = Promise.resolve(c.versionIdFor('orders', V1));

    // Assess
    await expect(failure).rejects.toBeInstanceOf(DataError);
    await expect(failure).rejects.toThrow(
      'Failed to auto-register schema. Auto registration of schema is not enabled.',
    );
    expect(glue.calls).toEqual(['GetSchemaByDefinition orders']);
  });

  it('finds a registered schema without registering when auto-registration is off', async () => {
    // Prepare
    const { c, glue } = client({ autoRegistration: false });
    const registered = glue.put('orders', V1, 'AVRO');

    // Act
    const id = await c.versionIdFor('orders', V1);

    // Assess
    expect(id).toBe(registered);
    expect(glue.calls).toEqual(['GetSchemaByDefinition orders']);
  });

  it('waits for a PENDING version to become AVAILABLE (3 s, then polls)', async () => {
    // Prepare
    const { c, glue, sleeps } = client();
    await c.versionIdFor('orders', V1);
    glue.statuses = ['PENDING', 'PENDING', 'PENDING', 'AVAILABLE'];

    // Act
    const id = await c.versionIdFor('orders', V2);

    // Assess
    expect(id).toMatch(/^00000000-/);
    expect(sleeps).toEqual([FIRST_STATUS_WAIT_MS, STATUS_POLL_MS, STATUS_POLL_MS]);
    expect(glue.calls.filter((call) => call.startsWith('GetSchemaVersion'))).toHaveLength(3);
  });

  it('refuses a version whose compatibility check FAILED (incompatible) as a record error', async () => {
    // Prepare
    const { c, glue } = client();
    await c.versionIdFor('orders', V1);
    glue.statuses = ['PENDING', 'FAILURE'];

    // Act
    const failure = Promise.resolve(c.versionIdFor('orders', V2));

    // Assess
    await expect(failure).rejects.toBeInstanceOf(DataError);
    await expect(failure).rejects.toThrow(
      /Schema evolution check failed\. schemaVersionId .* is in FAILURE status\./,
    );
  });

  it('gives up on a version still PENDING after the polls with a retriable error', async () => {
    // Prepare
    const { c, glue } = client();
    await c.versionIdFor('orders', V1);
    glue.statuses = ['PENDING'];

    // Act
    const failure = Promise.resolve(c.versionIdFor('orders', V2));

    // Assess
    await expect(failure).rejects.toBeInstanceOf(RetriableError);
    await expect(failure).rejects.toThrow('Retries exhausted for schema evolution check');
    expect(glue.calls.filter((call) => call.startsWith('GetSchemaVersion'))).toHaveLength(
      STATUS_ATTEMPTS,
    );
  });

  it('passes on an unreachable Glue as a retriable error', async () => {
    // Prepare
    const { c, glue } = client();
    glue.down = true;

    // Act
    const failure = Promise.resolve(c.versionIdFor('orders', V1));

    // Assess
    await expect(failure).rejects.toBeInstanceOf(RetriableError);
  });

  it('shares one request among concurrent callers', async () => {
    // Prepare
    const { c, glue } = client();

    // Act
    const ids = await Promise.all([c.versionIdFor('orders', V1), c.versionIdFor('orders', V1)]);

    // Assess
    expect(ids[0]).toBe(ids[1]);
    expect(glue.calls).toEqual(['GetSchemaByDefinition orders', 'CreateSchema orders']);
  });
});

describe('GlueSchemaRegistryClient reading', () => {
  it('fetches a version once, then answers synchronously', async () => {
    // Prepare
    const { c, glue } = client();
    const id = glue.put('orders', V1, 'AVRO');

    // Act
    const first = await c.schemaVersion(id);
    const second = c.schemaVersion(id);

    // Assess
    expect(first).toEqual({ schemaVersionId: id, schemaDefinition: V1, dataFormat: 'AVRO' });
    expect(isPromiseLike(second)).toBe(false);
    expect(glue.calls).toEqual([`GetSchemaVersion ${id}`]);
  });

  it('knows the definitions it registered itself without asking', async () => {
    // Prepare
    const { c, glue } = client();
    const id = await c.versionIdFor('orders', V1);
    glue.calls.length = 0;

    // Act
    const version = c.schemaVersion(id);

    // Assess
    expect(version).toEqual({ schemaVersionId: id, schemaDefinition: V1, dataFormat: 'AVRO' });
    expect(glue.calls).toEqual([]);
  });

  it('refuses an unknown version id as a record error with Glue message', async () => {
    // Prepare
    const { c } = client();

    // Act
    const failure = Promise.resolve(c.schemaVersion('12345678-1234-1234-1234-123456789abc'));

    // Assess
    await expect(failure).rejects.toBeInstanceOf(DataError);
    await expect(failure).rejects.toThrow('Schema version is not found.');
  });

  it('fetches an entry again after timeToLiveMillis, and keeps it when that fails', async () => {
    // Prepare
    const { c, glue, time } = client({ timeToLiveMs: 1_000 });
    const id = glue.put('orders', V1, 'AVRO');
    await c.schemaVersion(id);

    // Act
    time.now = 999;
    const fresh = c.schemaVersion(id);
    time.now = 1_000;
    const refreshed = await c.schemaVersion(id);
    time.now = 2_500;
    glue.down = true;
    const kept = await c.schemaVersion(id);

    // Assess
    expect(isPromiseLike(fresh)).toBe(false);
    expect(refreshed.schemaDefinition).toBe(V1);
    expect(kept.schemaDefinition).toBe(V1);
    expect(glue.calls).toEqual([
      `GetSchemaVersion ${id}`,
      `GetSchemaVersion ${id}`,
      `GetSchemaVersion ${id}`,
    ]);
  });

  it('holds at most cacheSize entries', async () => {
    // Prepare
    const { c, glue } = client({ cacheSize: 1 });
    const a = glue.put('orders', V1, 'AVRO');
    const b = glue.put('orders', V2, 'AVRO');

    // Act
    await c.schemaVersion(a);
    await c.schemaVersion(b);
    await c.schemaVersion(a);

    // Assess
    expect(glue.calls).toEqual([
      `GetSchemaVersion ${a}`,
      `GetSchemaVersion ${b}`,
      `GetSchemaVersion ${a}`,
    ]);
  });
});
