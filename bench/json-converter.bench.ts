import { Headers } from '../shared/connect/headers.js';
import { SinkRecord } from '../shared/connect/records.js';
import { JsonConverter } from '../shared/plugins/converters/json-converter.js';
import { builtinRegistry } from '../shared/plugins/registry.js';
import { buildTransformationChain } from '../shared/runtime/pipeline/transformation-chain.js';
import { compareThroughput } from './harness.js';

/**
 * `json-converter`: bytes → JsonConverter (schemas.enable=true, Connect's envelope) → a chain of
 * three transforms (InsertField, ReplaceField, Cast) → JsonConverter → bytes, per record, vs
 * plain `JSON.parse` + `JSON.stringify` of the same bytes. No services.
 */
const count = 10_000;

function envelope(i: number): Uint8Array {
  const schema = {
    type: 'struct',
    name: 'orders',
    optional: false,
    fields: [
      { field: 'orderid', type: 'int64', optional: false },
      { field: 'itemid', type: 'string', optional: false },
      { field: 'orderunits', type: 'double', optional: false },
      { field: 'city', type: 'string', optional: true },
      { field: 'note', type: 'string', optional: true },
    ],
  };
  const payload = {
    orderid: i,
    itemid: `Item_${i % 97}`,
    orderunits: i / 7,
    city: 'Seoul',
    note: 'x'.repeat(40),
  };
  return new TextEncoder().encode(JSON.stringify({ schema, payload }));
}

export async function run(): Promise<void> {
  const registry = builtinRegistry();
  const inputs = Array.from({ length: count }, (_, i) => envelope(i));
  const converter = new JsonConverter();
  converter.configure({ 'schemas.enable': 'true' }, false);
  const chain = buildTransformationChain<SinkRecord>(
    {
      transforms: 'insert,drop,cast',
      'transforms.insert.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
      'transforms.insert.static.field': 'source',
      'transforms.insert.static.value': 'bench',
      'transforms.drop.type': 'org.apache.kafka.connect.transforms.ReplaceField$Value',
      'transforms.drop.exclude': 'note',
      'transforms.cast.type': 'org.apache.kafka.connect.transforms.Cast$Value',
      'transforms.cast.spec': 'orderunits:float32',
    },
    registry,
  );
  const headers = new Headers();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let sink = 0;

  await compareThroughput({
    name: 'json-converter',
    unit: 'records',
    ours: async () => {
      for (let i = 0; i < count; i += 1) {
        const { schema, value } = converter.toConnectData('orders', headers, inputs[i] ?? null);
        const record = new SinkRecord({
          topic: 'orders',
          kafkaPartition: 0,
          kafkaOffset: i,
          keySchema: null,
          key: null,
          valueSchema: schema,
          value,
        });
        const out = chain.apply(record);
        if (out === null) continue;
        sink +=
          converter.fromConnectData('orders', headers, out.valueSchema, out.value)?.length ?? 0;
      }
      return count;
    },
    baseline: async () => {
      for (let i = 0; i < count; i += 1) {
        const parsed: unknown = JSON.parse(decoder.decode(inputs[i]));
        sink += encoder.encode(JSON.stringify(parsed)).length;
      }
      return count;
    },
  });
  if (sink === 0) throw new Error('nothing was converted');
}
