/**
 * The Glue Avro converter against moto's Glue Schema Registry (the real AWS SDK client over HTTP):
 * registering a schema, reading it back by version id in another container, evolution to a
 * second version, auto-registration off, an unknown version id, zlib, a registry that does not
 * exist and an endpoint that does not answer. Each container counts the Glue calls it makes.
 *
 * moto 5.2.5 answers CreateSchema, RegisterSchemaVersion, GetSchemaByDefinition and
 * GetSchemaVersion, but checks no compatibility (every version is AVAILABLE at once) and says
 * "Schema is not found." for a known schema without that definition: Glue's PENDING and FAILURE
 * statuses are tested against the in-memory Glue of the unit tests.
 */
import { CreateRegistryCommand, GetSchemaVersionCommand, GlueClient } from '@aws-sdk/client-glue';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConnectError, DataError, RetriableError } from '../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../shared/connect/headers.js';
import { SchemaBuilder, Schemas } from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import { GlueAvroConverter } from '../../../shared/plugins/converters/glue/glue-avro-converter.js';
import { glueUnframe } from '../../../shared/plugins/converters/glue/glue-wire-format.js';
import { glueContainer } from '../../support/glue-containers.js';
import { MOTO_CREDENTIALS, uniqueName } from '../../support/services.js';

const REGION = 'us-east-1';

const V1 = SchemaBuilder.struct()
  .name('com.example.Order')
  .field('id', Schemas.INT64)
  .field('customer', Schemas.STRING)
  .build();
const V2 = SchemaBuilder.struct()
  .name('com.example.Order')
  .field('id', Schemas.INT64)
  .field('customer', Schemas.STRING)
  .field('note', SchemaBuilder.string().optional().defaultValue('none').build())
  .build();

let glue: GlueClient;
let registry: string;

function connectionProps(): Record<string, string> {
  return {
    region: REGION,
    endpoint: inject('motoEndpoint'),
    'aws.access.key.id': MOTO_CREDENTIALS.accessKeyId,
    'aws.secret.access.key': MOTO_CREDENTIALS.secretAccessKey,
  };
}

/** A warm container: its own Glue clients over the SDK, whose calls are listed by name. */
function container() {
  const { clients, calls } = glueContainer();
  const converter = (props: Record<string, string> = {}, isKey = false) => {
    const c = new GlueAvroConverter(clients);
    c.configure({ ...connectionProps(), 'registry.name': registry, ...props }, isKey);
    return c;
  };
  return { converter, calls };
}

beforeAll(async () => {
  glue = new GlueClient({
    region: REGION,
    endpoint: inject('motoEndpoint'),
    credentials: { ...MOTO_CREDENTIALS },
  });
  registry = uniqueName('glue-registry');
  await glue.send(new CreateRegistryCommand({ RegistryName: registry }));
});

afterAll(() => glue.destroy());

describe('GlueAvroConverter against moto', () => {
  it('registers a schema and reads the record back by its version id in another container', async () => {
    // Prepare
    const topic = uniqueName('orders');
    const writer = container();
    const reader = container();
    const record = new Struct(V1).put('id', 42).put('customer', 'ada');

    // Act
    const bytes = (await writer
      .converter({ schemaAutoRegistrationEnabled: 'true', compatibility: 'FULL' })
      .fromConnectData(topic, EMPTY_HEADERS, V1, record)) as Uint8Array;
    const back = await reader.converter().toConnectData(topic, EMPTY_HEADERS, bytes);

    // Assess
    const { schemaVersionId } = glueUnframe(bytes);
    const version = await glue.send(
      new GetSchemaVersionCommand({ SchemaVersionId: schemaVersionId }),
    );
    expect(version.SchemaArn).toMatch(new RegExp(`schema/${registry}/${topic}$`));
    expect(version.VersionNumber).toBe(1);
    expect(JSON.parse(version.SchemaDefinition ?? '')).toMatchObject({
      type: 'record',
      name: 'Order',
    });
    expect((back.value as Struct).get('id')).toBe(42);
    expect((back.value as Struct).get('customer')).toBe('ada');
    expect(back.schema?.name).toBe('com.example.Order');
    expect(writer.calls).toEqual(['GetSchemaByDefinition', 'CreateSchema']);
    expect(reader.calls).toEqual(['GetSchemaVersion']);
  });

  it('asks Glue once per new schema per container', async () => {
    // Prepare
    const topic = uniqueName('orders');
    const { converter, calls } = container();
    const c = converter({ schemaAutoRegistrationEnabled: 'true' });

    // Act
    const written: Uint8Array[] = [];
    for (let id = 1; id <= 20; id += 1) {
      written.push(
        (await c.fromConnectData(
          topic,
          EMPTY_HEADERS,
          V1,
          new Struct(V1).put('id', id).put('customer', 'c'),
        )) as Uint8Array,
      );
    }
    for (const bytes of written) await c.toConnectData(topic, EMPTY_HEADERS, bytes);

    // Assess
    expect(calls).toEqual(['GetSchemaByDefinition', 'CreateSchema']);
  });

  it('registers an evolved schema as version 2 and still reads version 1', async () => {
    // Prepare
    const topic = uniqueName('orders');
    const writer = container().converter({ schemaAutoRegistrationEnabled: 'true' });
    const old = (await writer.fromConnectData(
      topic,
      EMPTY_HEADERS,
      V1,
      new Struct(V1).put('id', 1).put('customer', 'a'),
    )) as Uint8Array;

    // Act
    const evolved = (await writer.fromConnectData(
      topic,
      EMPTY_HEADERS,
      V2,
      new Struct(V2).put('id', 2).put('customer', 'b').put('note', 'gift'),
    )) as Uint8Array;
    const reader = container().converter();
    const backOld = await reader.toConnectData(topic, EMPTY_HEADERS, old);
    const backNew = await reader.toConnectData(topic, EMPTY_HEADERS, evolved);

    // Assess
    const v1 = glueUnframe(old).schemaVersionId;
    const v2 = glueUnframe(evolved).schemaVersionId;
    expect(v2).not.toBe(v1);
    const version = await glue.send(new GetSchemaVersionCommand({ SchemaVersionId: v2 }));
    expect(version.VersionNumber).toBe(2);
    expect(backOld.schema?.fields.map((f) => f.name)).toEqual(['id', 'customer']);
    expect((backNew.value as Struct).get('note')).toBe('gift');
  });

  it('fails a record whose schema is not registered when auto-registration is off', async () => {
    // Prepare
    const topic = uniqueName('orders');
    const { converter, calls } = container();

    // Act
    const failure = Promise.resolve(
      converter().fromConnectData(
        topic,
        EMPTY_HEADERS,
        V1,
        new Struct(V1).put('id', 1).put('customer', 'a'),
      ),
    );

    // Assess
    await expect(failure).rejects.toBeInstanceOf(DataError);
    await expect(failure).rejects.toThrow(
      'Converting Kafka Connect data to byte[] failed due to serialization error: Failed to auto-register schema. Auto registration of schema is not enabled.',
    );
    expect(calls).toEqual(['GetSchemaByDefinition']);
  });

  it('writes a schema registered beforehand with auto-registration off', async () => {
    // Prepare
    const topic = uniqueName('orders');
    const record = new Struct(V1).put('id', 7).put('customer', 'g');
    const registered = (await container()
      .converter({ schemaAutoRegistrationEnabled: 'true' })
      .fromConnectData(topic, EMPTY_HEADERS, V1, record)) as Uint8Array;

    // Act
    const bytes = (await container()
      .converter()
      .fromConnectData(topic, EMPTY_HEADERS, V1, record)) as Uint8Array;

    // Assess
    expect(Buffer.from(bytes)).toEqual(Buffer.from(registered));
  });

  it('fails a record whose version id Glue does not know, with Glue message', async () => {
    // Prepare
    const topic = uniqueName('orders');
    const written = (await container()
      .converter({ schemaAutoRegistrationEnabled: 'true' })
      .fromConnectData(
        topic,
        EMPTY_HEADERS,
        V1,
        new Struct(V1).put('id', 1).put('customer', 'a'),
      )) as Uint8Array;
    const unknown = Uint8Array.from(written);
    unknown.set(Buffer.from('0123456789abcdef0123456789abcdef', 'hex'), 2);

    // Act
    const failure = Promise.resolve(
      container().converter().toConnectData(topic, EMPTY_HEADERS, unknown),
    );

    // Assess
    await expect(failure).rejects.toBeInstanceOf(DataError);
    await expect(failure).rejects.toThrow(
      'GetSchemaVersion 01234567-89ab-cdef-0123-456789abcdef failed: EntityNotFoundException: Schema version is not found.',
    );
  });

  it('round-trips zlib-compressed records', async () => {
    // Prepare
    const topic = uniqueName('orders');
    const record = new Struct(V1).put('id', 3).put('customer', 'x'.repeat(500));

    // Act
    const bytes = (await container()
      .converter({ schemaAutoRegistrationEnabled: 'true', compression: 'ZLIB' })
      .fromConnectData(topic, EMPTY_HEADERS, V1, record)) as Uint8Array;
    const back = await container().converter().toConnectData(topic, EMPTY_HEADERS, bytes);

    // Assess
    expect(bytes[1]).toBe(5);
    expect(bytes.length).toBeLessThan(100);
    expect((back.value as Struct).get('customer')).toBe('x'.repeat(500));
  });

  it('fails with a non-retriable connector error when the registry does not exist', async () => {
    // Act
    const failure = Promise.resolve(
      container()
        .converter({
          'registry.name': uniqueName('no-such-registry'),
          schemaAutoRegistrationEnabled: 'true',
        })
        .fromConnectData(
          uniqueName('orders'),
          EMPTY_HEADERS,
          V1,
          new Struct(V1).put('id', 1).put('customer', 'a'),
        ),
    );

    // Assess
    await expect(failure).rejects.toBeInstanceOf(ConnectError);
    await expect(failure).rejects.not.toBeInstanceOf(DataError);
    await expect(failure).rejects.toThrow('Registry is not found');
  });

  it('fails with a retriable error when Glue does not answer', async () => {
    // Prepare: a loopback port nothing listens on
    const c = container().converter({ endpoint: 'http://127.0.0.1:9' });

    // Act
    const failure = Promise.resolve(
      c.fromConnectData(
        uniqueName('orders'),
        EMPTY_HEADERS,
        V1,
        new Struct(V1).put('id', 1).put('customer', 'a'),
      ),
    );

    // Assess
    await expect(failure).rejects.toBeInstanceOf(RetriableError);
  });
});
