/**
 * The three Glue converters (Avro, Protobuf, JSON Schema) against moto's Glue Schema Registry
 * (the real AWS SDK client over HTTP), what they do alike: a schema of the converter's DataFormat
 * registered on first write and read back by version id in another container with one
 * GetSchemaVersion, evolution to a second version, auto-registration off, an unknown version id,
 * zlib. moto 5.2.5 accepts the three data formats (it checks neither the definition nor
 * compatibility: every version is AVAILABLE at once). What only the core does once for all
 * (caching, a missing registry, Glue down) is in glue-avro-converter.int.test.ts.
 */
import { CreateRegistryCommand, GetSchemaVersionCommand, GlueClient } from '@aws-sdk/client-glue';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DataError } from '../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../shared/connect/headers.js';
import { SchemaBuilder, Schemas } from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import { GlueAvroConverter } from '../../../shared/plugins/converters/glue/glue-avro-converter.js';
import { GlueJsonSchemaConverter } from '../../../shared/plugins/converters/glue/glue-json-schema-converter.js';
import { GlueProtobufConverter } from '../../../shared/plugins/converters/glue/glue-protobuf-converter.js';
import type { GlueRegistryClients } from '../../../shared/plugins/converters/glue/glue-registry-client.js';
import {
  GLUE_HEADER_SIZE,
  glueUnframe,
} from '../../../shared/plugins/converters/glue/glue-wire-format.js';
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
  .field('note', Schemas.OPTIONAL_STRING)
  .build();
const order = (id: number, customer: string) =>
  new Struct(V1).put('id', id).put('customer', customer);

let glue: GlueClient;
let registry: string;

beforeAll(async () => {
  glue = new GlueClient({
    region: REGION,
    endpoint: inject('motoEndpoint'),
    credentials: { ...MOTO_CREDENTIALS },
  });
  registry = uniqueName('glue-formats');
  await glue.send(new CreateRegistryCommand({ RegistryName: registry }));
});

afterAll(() => glue.destroy());

const FORMATS = [
  {
    name: 'Avro',
    dataFormat: 'AVRO',
    make: (clients: GlueRegistryClients) => new GlueAvroConverter(clients),
    definitionOf: '"name":"Order"',
  },
  {
    name: 'Protobuf',
    dataFormat: 'PROTOBUF',
    make: (clients: GlueRegistryClients) => new GlueProtobufConverter(clients),
    definitionOf: 'message Order',
  },
  {
    name: 'JSON Schema',
    dataFormat: 'JSON',
    make: (clients: GlueRegistryClients) => new GlueJsonSchemaConverter(clients),
    definitionOf: '"title":"com.example.Order"',
  },
] as const;

describe.each(FORMATS)('the Glue $name converter against moto', (format) => {
  /** A warm container making converters of this format. */
  function container() {
    const { clients, calls } = glueContainer();
    const converter = (props: Record<string, string> = {}) => {
      const c = format.make(clients);
      c.configure(
        {
          region: REGION,
          endpoint: inject('motoEndpoint'),
          'aws.access.key.id': MOTO_CREDENTIALS.accessKeyId,
          'aws.secret.access.key': MOTO_CREDENTIALS.secretAccessKey,
          'registry.name': registry,
          ...props,
        },
        false,
      );
      return c;
    };
    return { converter, calls };
  }

  it(`registers a ${format.dataFormat} schema on first write; another container reads it with one GetSchemaVersion`, async () => {
    // Prepare
    const topic = uniqueName('orders');
    const writer = container();
    const reader = container();
    const w = writer.converter({ schemaAutoRegistrationEnabled: 'true' });

    // Act
    const written: Uint8Array[] = [];
    for (let id = 1; id <= 5; id += 1) {
      written.push(
        (await w.fromConnectData(topic, EMPTY_HEADERS, V1, order(id, `c${id}`))) as Uint8Array,
      );
    }
    const r = reader.converter();
    const back = [];
    for (const bytes of written) back.push(await r.toConnectData(topic, EMPTY_HEADERS, bytes));

    // Assess
    const { schemaVersionId } = glueUnframe(written[0] as Uint8Array);
    const version = await glue.send(
      new GetSchemaVersionCommand({ SchemaVersionId: schemaVersionId }),
    );
    expect(version.DataFormat).toBe(format.dataFormat);
    expect(version.SchemaArn).toMatch(new RegExp(`schema/${registry}/${topic}$`));
    expect(version.SchemaDefinition).toContain(format.definitionOf);
    expect(back.map((b) => (b.value as Struct).get('id'))).toEqual([1, 2, 3, 4, 5]);
    expect(back.map((b) => (b.value as Struct).get('customer'))[0]).toBe('c1');
    expect(writer.calls).toEqual(['GetSchemaByDefinition', 'CreateSchema']);
    expect(reader.calls).toEqual(['GetSchemaVersion']);
  });

  it('registers an evolved schema as version 2 and still reads version 1', async () => {
    // Prepare
    const topic = uniqueName('orders');
    const w = container().converter({ schemaAutoRegistrationEnabled: 'true' });
    const old = (await w.fromConnectData(topic, EMPTY_HEADERS, V1, order(1, 'a'))) as Uint8Array;

    // Act
    const value = new Struct(V2).put('id', 2).put('customer', 'b').put('note', 'gift');
    const evolved = (await w.fromConnectData(topic, EMPTY_HEADERS, V2, value)) as Uint8Array;
    const reader = container().converter();
    const backOld = await reader.toConnectData(topic, EMPTY_HEADERS, old);
    const backNew = await reader.toConnectData(topic, EMPTY_HEADERS, evolved);

    // Assess
    const v2 = glueUnframe(evolved).schemaVersionId;
    expect(v2).not.toBe(glueUnframe(old).schemaVersionId);
    const version = await glue.send(new GetSchemaVersionCommand({ SchemaVersionId: v2 }));
    expect(version.VersionNumber).toBe(2);
    expect(version.DataFormat).toBe(format.dataFormat);
    expect((backOld.value as Struct).get('customer')).toBe('a');
    expect((backNew.value as Struct).get('note')).toBe('gift');
  });

  it('fails a record whose schema is not registered when auto-registration is off', async () => {
    // Prepare
    const { converter, calls } = container();

    // Act
    const failure = Promise.resolve(
      converter().fromConnectData(uniqueName('orders'), EMPTY_HEADERS, V1, order(1, 'a')),
    );

    // Assess
    await expect(failure).rejects.toBeInstanceOf(DataError);
    await expect(failure).rejects.toThrow(
      'Converting Kafka Connect data to byte[] failed due to serialization error: Failed to auto-register schema. Auto registration of schema is not enabled.',
    );
    expect(calls).toEqual(['GetSchemaByDefinition']);
  });

  it('fails a record whose version id Glue does not know with a record error', async () => {
    // Prepare
    const topic = uniqueName('orders');
    const written = (await container()
      .converter({ schemaAutoRegistrationEnabled: 'true' })
      .fromConnectData(topic, EMPTY_HEADERS, V1, order(1, 'a'))) as Uint8Array;
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
    const record = order(3, 'x'.repeat(500));

    // Act
    const bytes = (await container()
      .converter({ schemaAutoRegistrationEnabled: 'true', compression: 'ZLIB' })
      .fromConnectData(topic, EMPTY_HEADERS, V1, record)) as Uint8Array;
    const back = await container().converter().toConnectData(topic, EMPTY_HEADERS, bytes);

    // Assess
    expect(bytes[1]).toBe(5);
    expect(bytes.length - GLUE_HEADER_SIZE).toBeLessThan(100);
    expect((back.value as Struct).get('customer')).toBe('x'.repeat(500));
  });
});
