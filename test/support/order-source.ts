/**
 * A test source of typed records for the schema-registry converters: `total` orders on `topic`
 * (one source partition, offsets `{seq}`), each a Struct of {@link orderSchema} in the shape the
 * `shape` key names, so tests can evolve a topic's schema through the runtime:
 *
 * | shape | schema `com.example.Order` |
 * |---|---|
 * | `v1` | id, customer, amount (Decimal 2), placed (Timestamp), qty (int16), tags, attributes, note (optional), payload (bytes) |
 * | `v2` | v1 + `coupon`, an optional string: a BACKWARD-compatible change |
 * | `breaking` | v1 + `region`, a required string: not BACKWARD-compatible (old data has none) |
 *
 * Keys are Structs `com.example.OrderKey {id}`. {@link expectedOrder} gives the record a test
 * should read back.
 */
import { ConfigDef } from '../../shared/connect/config-def.js';
import type { SourceTaskContext } from '../../shared/connect/context.js';
import {
  BigDecimal,
  LogicalDecimal,
  LogicalTimestamp,
} from '../../shared/connect/logical-types.js';
import type { AnyPluginDescriptor } from '../../shared/connect/plugin.js';
import { SourceRecord } from '../../shared/connect/records.js';
import { type Schema, SchemaBuilder, Schemas } from '../../shared/connect/schema.js';
import { SourceConnector, SourceTask } from '../../shared/connect/source.js';
import { Struct } from '../../shared/connect/struct.js';

export type OrderShape = 'v1' | 'v2' | 'breaking';

export const ORDER_SOURCE_CLASS = 'test.OrderSourceConnector';

export const ORDER_KEY_SCHEMA: Schema = SchemaBuilder.struct()
  .name('com.example.OrderKey')
  .field('id', Schemas.INT64)
  .build();

function v1Fields(builder: SchemaBuilder): SchemaBuilder {
  return builder
    .name('com.example.Order')
    .field('id', Schemas.INT64)
    .field('customer', Schemas.STRING)
    .field('amount', LogicalDecimal.schema(2))
    .field('placed', LogicalTimestamp.schema())
    .field('qty', SchemaBuilder.int16().defaultValue(1).build())
    .field('tags', SchemaBuilder.array(Schemas.STRING).build())
    .field('attributes', SchemaBuilder.map(Schemas.STRING, Schemas.INT32).build())
    .field('note', Schemas.OPTIONAL_STRING)
    .field('payload', Schemas.BYTES);
}

const SCHEMAS: Readonly<Record<OrderShape, Schema>> = {
  v1: v1Fields(SchemaBuilder.struct()).build(),
  v2: v1Fields(SchemaBuilder.struct()).field('coupon', Schemas.OPTIONAL_STRING).build(),
  breaking: v1Fields(SchemaBuilder.struct()).field('region', Schemas.STRING).build(),
};

/** The value schema of `shape`. */
export function orderSchema(shape: OrderShape): Schema {
  return SCHEMAS[shape];
}

/** Order `seq` in `shape`. */
export function expectedOrder(shape: OrderShape, seq: number): Struct {
  const schema = SCHEMAS[shape];
  const order = new Struct(schema)
    .put('id', seq)
    .put('customer', `customer-${seq % 7}`)
    .put('amount', new BigDecimal(BigInt(seq * 199 + 1), 2))
    .put('placed', new Date(Date.UTC(2026, 0, 1) + seq * 60_000))
    .put('qty', seq % 5)
    .put('tags', seq % 2 === 0 ? ['even'] : [])
    .put('attributes', new Map([['seq', seq]]))
    .put('note', seq % 3 === 0 ? null : `note ${seq}`)
    .put('payload', new Uint8Array([seq % 256, 0, 255]));
  if (shape === 'v2') order.put('coupon', seq % 2 === 0 ? `C${seq}` : null);
  if (shape === 'breaking') order.put('region', 'eu');
  return order;
}

class OrderSourceTask extends SourceTask {
  #topic = '';
  #shape: OrderShape = 'v1';
  #total = 0;
  #next = 1;

  override version(): string {
    return 'test';
  }

  override async start(props: Readonly<Record<string, string>>, context: SourceTaskContext) {
    this.#topic = props.topic ?? 'orders';
    this.#shape = (props.shape ?? 'v1') as OrderShape;
    this.#total = Number(props.total ?? '10');
    const [stored] = await context.offsetStorageReader.offsets([{ source: 'orders' }]);
    const seq = stored?.offset?.seq;
    this.#next = typeof seq === 'number' ? seq + 1 : 1;
  }

  override async poll(): Promise<SourceRecord[] | null> {
    const out: SourceRecord[] = [];
    for (; this.#next <= this.#total && out.length < 25; this.#next += 1) {
      const seq = this.#next;
      out.push(
        new SourceRecord({
          sourcePartition: { source: 'orders' },
          sourceOffset: { seq },
          topic: this.#topic,
          kafkaPartition: 0,
          keySchema: ORDER_KEY_SCHEMA,
          key: new Struct(ORDER_KEY_SCHEMA).put('id', seq),
          valueSchema: SCHEMAS[this.#shape],
          value: expectedOrder(this.#shape, seq),
        }),
      );
    }
    return out.length === 0 ? null : out;
  }

  override async stop(): Promise<void> {}
}

class OrderSourceConnector extends SourceConnector {
  #props: Readonly<Record<string, string>> = {};
  override version(): string {
    return 'test';
  }
  override config(): ConfigDef {
    return new ConfigDef();
  }
  override async start(props: Readonly<Record<string, string>>): Promise<void> {
    this.#props = props;
  }
  override async taskConfigs(): Promise<Record<string, string>[]> {
    return [{ ...this.#props }];
  }
  override async stop(): Promise<void> {}
  override createTask(): SourceTask {
    return new OrderSourceTask();
  }
}

/** The order source, as a plugin (an engine's extra plugin). */
export const orderSourceDescriptor: AnyPluginDescriptor = {
  className: ORDER_SOURCE_CLASS,
  aliases: [],
  type: 'source',
  version: 'test',
  create: () => new OrderSourceConnector(),
};
