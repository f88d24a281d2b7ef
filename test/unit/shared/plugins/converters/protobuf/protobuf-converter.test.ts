import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../../shared/connect/errors.js';
import { Headers } from '../../../../../../shared/connect/headers.js';
import { PluginRegistry } from '../../../../../../shared/connect/plugin.js';
import { converterDescriptors } from '../../../../../../shared/plugins/converters/descriptors.js';
import { ProtobufConverter } from '../../../../../../shared/plugins/converters/protobuf/protobuf-converter.js';

function registry(): PluginRegistry {
  const r = new PluginRegistry();
  for (const d of converterDescriptors) r.register(d);
  return r;
}

describe('ProtobufConverter', () => {
  it("is registered under Confluent's class name, its simple name and `protobuf`", () => {
    for (const name of [
      'io.confluent.connect.protobuf.ProtobufConverter',
      'ProtobufConverter',
      'protobuf',
    ]) {
      expect(registry().resolve(name, 'converter').create()).toBeInstanceOf(ProtobufConverter);
    }
  });

  it('declares the registry keys, the credentials as a password', () => {
    const keys = new ProtobufConverter().config().configKeys();

    expect(keys.get('basic.auth.user.info')?.type).toBe('PASSWORD');
    expect(keys.get('value.subject.name.strategy')?.defaultValue).toBe(
      'io.confluent.kafka.serializers.subject.TopicNameStrategy',
    );
    expect(keys.get('auto.register.schemas')?.defaultValue).toBe(true);
    expect(keys.get('generate.index.for.unions')?.defaultValue).toBe(true);
  });

  it('refuses a missing URL and options it does not implement', () => {
    expect(() => new ProtobufConverter().configure({}, false)).toThrow(ConfigError);
    expect(() =>
      new ProtobufConverter().configure(
        { 'schema.registry.url': 'http://127.0.0.1:1', 'generate.struct.for.nulls': 'true' },
        false,
      ),
    ).toThrow(/generate.struct.for.nulls/);
  });

  it('writes a null value as a tombstone and reads one as null, without the registry', async () => {
    const converter = new ProtobufConverter();
    converter.configure({ 'schema.registry.url': 'http://127.0.0.1:1' }, false);

    await expect(converter.fromConnectData('t', new Headers(), null, null)).resolves.toBeNull();
    await expect(converter.toConnectData('t', new Headers(), null)).resolves.toMatchObject({
      schema: null,
      value: null,
    });
  });

  it('refuses a schemaless value and bytes without the magic byte as record errors', async () => {
    const converter = new ProtobufConverter();
    converter.configure({ 'schema.registry.url': 'http://127.0.0.1:1' }, false);

    await expect(converter.fromConnectData('t', new Headers(), null, { a: 1 })).rejects.toThrow(
      /Failed to serialize Protobuf data from topic t: Schemaless values are not supported/,
    );
    await expect(
      converter.toConnectData('t', new Headers(), Uint8Array.of(1, 0, 0, 0, 1, 0)),
    ).rejects.toBeInstanceOf(DataError);
  });
});
