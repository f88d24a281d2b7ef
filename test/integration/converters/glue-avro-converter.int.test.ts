/**
 * The Glue converters' core, through the Avro converter, against moto's Glue Schema Registry (the
 * real AWS SDK client over HTTP): one Glue call per new schema per container, a schema registered
 * beforehand with auto-registration off, a registry that does not exist and an endpoint that does
 * not answer. Each container counts the Glue calls it makes. What the three formats do alike
 * (register, read back, evolve, ...) is in glue-converters.int.test.ts.
 *
 * moto 5.2.5 answers CreateSchema, RegisterSchemaVersion, GetSchemaByDefinition and
 * GetSchemaVersion, but checks no compatibility (every version is AVAILABLE at once) and says
 * "Schema is not found." for a known schema without that definition: Glue's PENDING and FAILURE
 * statuses are tested against the in-memory Glue of the unit tests.
 */
import { CreateRegistryCommand, GlueClient } from '@aws-sdk/client-glue';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConnectError, DataError, RetriableError } from '../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../shared/connect/headers.js';
import { SchemaBuilder, Schemas } from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import { GlueAvroConverter } from '../../../shared/plugins/converters/glue/glue-avro-converter.js';
import { glueContainer } from '../../support/glue-containers.js';
import { MOTO_CREDENTIALS, uniqueName } from '../../support/services.js';

const REGION = 'us-east-1';

const V1 = SchemaBuilder.struct()
  .name('com.example.Order')
  .field('id', Schemas.INT64)
  .field('customer', Schemas.STRING)
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
