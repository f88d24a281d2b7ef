/**
 * InsertHeader (Connect's `org.apache.kafka.connect.transforms.InsertHeader`): adds a header
 * named `header` whose value is `value.literal`, with the schema Connect infers from the text
 * (see `util/values-parse.ts`: booleans, integers, floats, else a string).
 */
import {
  ConfigDef,
  type ConnectRecord,
  NonNullValidator,
  NULL_SCHEMA_AND_VALUE,
  type SchemaAndValue,
  type Transformation,
} from 'serverless-connect/connect';
import { parsed } from './util/config.js';
import { parseString } from './util/values-parse.js';

const HEADER = 'header';
const VALUE_LITERAL = 'value.literal';

function configDef(): ConfigDef {
  return new ConfigDef()
    .define({
      name: HEADER,
      type: 'STRING',
      validator: new NonNullValidator(),
      importance: 'HIGH',
      documentation: 'The name of the header.',
    })
    .define({
      name: VALUE_LITERAL,
      type: 'STRING',
      validator: new NonNullValidator(),
      importance: 'HIGH',
      documentation: 'The literal value that is to be set as the header value on all records.',
    });
}

/** Adds a literal header; see the module comment. */
export class InsertHeader<R extends ConnectRecord> implements Transformation<R> {
  #header = '';
  #literal: SchemaAndValue = NULL_SCHEMA_AND_VALUE;

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    this.#header = parsed.string(values, HEADER) ?? '';
    this.#literal = parseString(parsed.string(values, VALUE_LITERAL) ?? '');
  }

  apply(record: R): R | null {
    const headers = record.headers.duplicate();
    headers.add(this.#header, this.#literal.value, this.#literal.schema);
    return record.newRecord({ headers });
  }

  close(): void {}
}
