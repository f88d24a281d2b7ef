/**
 * The Glue converters through the runtime (real broker, dynalite, moto's Glue): a source writes
 * Glue Avro, Protobuf and JSON Schema records through the exactly-once source runner, a sink reads
 * them back through the sink runner; a record whose schema version id Glue does not know goes to
 * the dead letter queue under `errors.tolerance=all` (with Glue's message in its headers) and
 * fails the task under `none`: the scenario every registry converter shares.
 */
import { CreateRegistryCommand, GlueClient } from '@aws-sdk/client-glue';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Struct } from '../../../shared/connect/struct.js';
import {
  GLUE_AVRO_CONVERTER,
  GLUE_JSON_SCHEMA_CONVERTER,
  GLUE_PROTOBUF_CONVERTER,
} from '../../../shared/plugins/converters/descriptors.js';
import {
  glueFrame,
  glueUnframe,
} from '../../../shared/plugins/converters/glue/glue-wire-format.js';
import {
  converterRuntime,
  expectUnknownSchemaDeadLettered,
} from '../../support/converter-runtime.js';
import { MOTO_CREDENTIALS, uniqueName } from '../../support/services.js';
import { createTestTopic } from '../../support/topic-reader.js';

const UNKNOWN_VERSION = '0123abcd-0000-4000-8000-0000000000ff';

let glue: GlueClient;
let registry: string;

beforeAll(async () => {
  glue = new GlueClient({
    region: 'us-east-1',
    endpoint: inject('motoEndpoint'),
    credentials: { ...MOTO_CREDENTIALS },
  });
  registry = uniqueName('glue-runtime');
  await glue.send(new CreateRegistryCommand({ RegistryName: registry }));
});

afterAll(() => glue.destroy());

/**
 * The keys of a Glue converter `className` on side `side`, against moto's registry, writing
 * under schema `<schemas>-<side>` (one schema per format: Glue keeps a schema's data format).
 */
function glueConverter(
  side: 'key' | 'value',
  className: string,
  schemas: string,
  autoRegister: boolean,
) {
  const prefix = `${side}.converter`;
  return {
    [prefix]: className,
    [`${prefix}.region`]: 'us-east-1',
    [`${prefix}.endpoint`]: inject('motoEndpoint'),
    [`${prefix}.aws.access.key.id`]: MOTO_CREDENTIALS.accessKeyId,
    [`${prefix}.aws.secret.access.key`]: MOTO_CREDENTIALS.secretAccessKey,
    [`${prefix}.registry.name`]: registry,
    [`${prefix}.schemaName`]: `${schemas}-${side}`,
    [`${prefix}.schemaAutoRegistrationEnabled`]: String(autoRegister),
  };
}

describe('the Glue converters through the runtime (real broker, dynalite, moto)', () => {
  const runtime = converterRuntime();

  it.each([
    ['Avro', GLUE_AVRO_CONVERTER],
    ['Protobuf', GLUE_PROTOBUF_CONVERTER],
    ['JSON Schema', GLUE_JSON_SCHEMA_CONVERTER],
  ])(
    'writes Glue %s from a source and reads the same records back in a sink',
    async (_, className) => {
      const topic = uniqueName('orders');
      await createTestTopic(topic, 1);
      const converters = (autoRegister: boolean) => ({
        ...glueConverter('key', className, topic, autoRegister),
        ...glueConverter('value', className, topic, autoRegister),
      });

      const run = await runtime.runOrderSource(topic, 5, converters(true));
      const { summary, records, committed } = await runtime.readWithSink(
        topic,
        5,
        converters(false),
      );

      expect(run.outcome).toBe('completed');
      expect(summary).toMatchObject({ written: 5 });
      const versions = new Set(
        records.map((r) => glueUnframe(r.value as Uint8Array).schemaVersionId),
      );
      expect(versions.size).toBe(1);
      expect(committed.map((r) => (r.key as Struct).get('id'))).toEqual([1, 2, 3, 4, 5]);
      expect(committed.map((r) => (r.value as Struct).get('customer'))).toEqual(
        [1, 2, 3, 4, 5].map((seq) => `customer-${seq % 7}`),
      );
    },
  );

  it('dead-letters a record whose schema version id Glue does not know, and fails the task under errors.tolerance=none', async () => {
    const schemas = uniqueName('orders');
    await expectUnknownSchemaDeadLettered(runtime, {
      writer: {
        ...glueConverter('key', GLUE_AVRO_CONVERTER, schemas, true),
        ...glueConverter('value', GLUE_AVRO_CONVERTER, schemas, true),
      },
      reader: {
        ...glueConverter('key', GLUE_AVRO_CONVERTER, schemas, false),
        ...glueConverter('value', GLUE_AVRO_CONVERTER, schemas, false),
      },
      unknown: glueFrame(UNKNOWN_VERSION, Uint8Array.of(2, 4), 'NONE'),
      message: new RegExp(
        `^Converting byte\\[\\] to Kafka Connect data failed due to serialization error: GetSchemaVersion ${UNKNOWN_VERSION} failed: EntityNotFoundException: Schema version is not found`,
      ),
    });
  });
});
