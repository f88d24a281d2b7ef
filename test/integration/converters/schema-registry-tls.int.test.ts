/**
 * The registry converters over TLS, against the project's registry's HTTPS port (a certificate
 * signed by a private CA: scripts/schema-registry/tls.sh): a round trip with the CA in the trust
 * store (a PEM file, or inline) and a client certificate (PKCS12, or inline PEM) loaded; without
 * the CA, a clear error naming the URL and what to set; a wrong key store password refused at
 * configure. No message carries a password. (The port does not ask for the client certificate:
 * Apicurio built with Quarkus's client authentication asks every request for credentials.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { ConfigError, ConnectError, RetriableError } from '../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../shared/connect/headers.js';
import { SchemaBuilder, Schemas } from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import { AvroConverter } from '../../../shared/plugins/converters/avro/avro-converter.js';
import { JsonSchemaConverter } from '../../../shared/plugins/converters/json-schema/json-schema-converter.js';
import { SchemaRegistryClients } from '../../../shared/plugins/converters/schema-registry/schema-registry-client.js';
import { uniqueName } from '../../support/services.js';

const tlsUrl = () => inject('schemaRegistryTlsUrl');
const plainUrl = () => inject('schemaRegistryUrl');
const tlsFile = (name: string) => join(inject('schemaRegistryTlsDir'), name);
const p12Password = () => readFileSync(tlsFile('client.p12.password'), 'utf8');

/** A converter's props for the HTTPS port: the CA trusted, the client certificate as PKCS12. */
function pkcs12Props(): Record<string, string> {
  return {
    'schema.registry.url': tlsUrl(),
    'schema.registry.ssl.truststore.location': tlsFile('ca.pem'),
    'schema.registry.ssl.truststore.type': 'PEM',
    'schema.registry.ssl.keystore.location': tlsFile('client.p12'),
    'schema.registry.ssl.keystore.type': 'PKCS12',
    'schema.registry.ssl.keystore.password': p12Password(),
  };
}

/** A fresh container's clients (nothing cached), over the real `fetch` for http URLs. */
const freshClients = () => new SchemaRegistryClients({ fetch, clock: { now: () => Date.now() } });

const ORDER = SchemaBuilder.struct()
  .name('com.example.TlsOrder')
  .field('id', Schemas.INT64)
  .field('note', Schemas.OPTIONAL_STRING)
  .build();

async function failure(run: () => unknown): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

describe('schema registry converters over TLS', () => {
  it('round-trips through the HTTPS port with the CA trusted and a PKCS12 client certificate', async () => {
    const topic = uniqueName('tls-orders');
    const writer = new AvroConverter(freshClients());
    const reader = new AvroConverter(freshClients());
    writer.configure(pkcs12Props(), false);
    reader.configure(pkcs12Props(), false);

    const bytes = await writer.fromConnectData(
      topic,
      EMPTY_HEADERS,
      ORDER,
      new Struct(ORDER).put('id', 42).put('note', 'over TLS'),
    );
    const back = await reader.toConnectData(topic, EMPTY_HEADERS, bytes);

    expect((back.value as Struct).get('id')).toBe(42);
    expect((back.value as Struct).get('note')).toBe('over TLS');
    expect(back.schema?.version).toBe(1);
  });

  it('takes the CA and the client certificate as inline PEM too', async () => {
    const topic = uniqueName('tls-people');
    const person = SchemaBuilder.struct().name('Person').field('name', Schemas.STRING).build();
    const props = {
      'schema.registry.url': tlsUrl(),
      'schema.registry.ssl.truststore.certificates': readFileSync(tlsFile('ca.pem'), 'utf8'),
      'schema.registry.ssl.keystore.type': 'PEM',
      'schema.registry.ssl.keystore.certificate.chain': readFileSync(tlsFile('client.pem'), 'utf8'),
      'schema.registry.ssl.keystore.key': readFileSync(tlsFile('client.key'), 'utf8'),
    };
    const c = new JsonSchemaConverter(freshClients());
    c.configure(props, false);

    const bytes = await c.fromConnectData(
      topic,
      EMPTY_HEADERS,
      person,
      new Struct(person).put('name', 'Ada'),
    );
    const back = await c.toConnectData(topic, EMPTY_HEADERS, bytes);

    expect((back.value as Struct).get('name')).toBe('Ada');
  });

  it('fails naming the URL and the CA to trust, not retried and without a password, when the CA is not trusted', async () => {
    const c = new AvroConverter(freshClients());
    c.configure(
      {
        'schema.registry.url': tlsUrl(),
        'basic.auth.credentials.source': 'USER_INFO',
        'basic.auth.user.info': 'svc:Sw0rdfish-77',
        // the client certificate alone (inline PEM): its CA is not in the trust store
        'schema.registry.ssl.keystore.certificate.chain': readFileSync(
          tlsFile('client.pem'),
          'utf8',
        ),
        'schema.registry.ssl.keystore.key': readFileSync(tlsFile('client.key'), 'utf8'),
      },
      false,
    );

    const error = await failure(() =>
      c.fromConnectData(uniqueName('tls'), EMPTY_HEADERS, ORDER, new Struct(ORDER).put('id', 1)),
    );

    expect(error).toBeInstanceOf(ConnectError);
    expect(error).not.toBeInstanceOf(RetriableError);
    expect(error.message).toContain(`TLS to the schema registry at ${tlsUrl()} failed`);
    expect(error.message).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(VERIFY|GET)_/);
    expect(error.message).toContain('schema.registry.ssl.truststore.location');
    expect(error.message).not.toMatch(/Sw0rdfish|PRIVATE KEY/);
  });

  it('fails the same way through Node’s own fetch when no TLS key is set', async () => {
    const c = new AvroConverter(freshClients());
    c.configure({ 'schema.registry.url': tlsUrl() }, false);

    const error = await failure(() =>
      c.fromConnectData(uniqueName('tls'), EMPTY_HEADERS, ORDER, new Struct(ORDER).put('id', 1)),
    );

    expect(error).toBeInstanceOf(ConnectError);
    expect(error).not.toBeInstanceOf(RetriableError);
    expect(error.message).toContain(`TLS to the schema registry at ${tlsUrl()} failed`);
  });

  it('refuses a wrong key store password at configure, without the password', () => {
    const configure = () =>
      new AvroConverter(freshClients()).configure(
        { ...pkcs12Props(), 'schema.registry.ssl.keystore.password': 'not-the-Password-42' },
        false,
      );

    const error = (() => {
      try {
        configure();
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();

    expect(error).toBeInstanceOf(ConfigError);
    expect(error.key).toBe('schema.registry.ssl.keystore.password');
    expect(error.message).toContain('the key store cannot be opened with it');
    expect(error.message).not.toContain('not-the-Password-42');
  });

  it('reaches an http URL as before when TLS keys are set (they apply to https URLs)', async () => {
    const c = new AvroConverter(freshClients());
    c.configure({ ...pkcs12Props(), 'schema.registry.url': plainUrl() }, false);

    const bytes = await c.fromConnectData(
      uniqueName('plain'),
      EMPTY_HEADERS,
      ORDER,
      new Struct(ORDER).put('id', 7),
    );

    expect(bytes?.[0]).toBe(0);
  });
});
