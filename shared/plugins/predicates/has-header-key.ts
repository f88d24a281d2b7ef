/**
 * HasHeaderKey (Connect's `org.apache.kafka.connect.transforms.predicates.HasHeaderKey`): true
 * when the record has at least one header named `name`.
 */
import {
  ConfigDef,
  type ConnectRecord,
  NonEmptyString,
  type Predicate,
} from 'serverless-connect/connect';

const NAME = 'name';

function configDef(): ConfigDef {
  return new ConfigDef().define({
    name: NAME,
    type: 'STRING',
    validator: new NonEmptyString(),
    importance: 'MEDIUM',
    documentation: 'The header name.',
  });
}

/** Tests for a header key; see the module comment. */
export class HasHeaderKey<R extends ConnectRecord> implements Predicate<R> {
  #name = '';

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.#name = String(configDef().parse(props)[NAME]);
  }

  test(record: R): boolean {
    return record.headers.lastWithName(this.#name) !== null;
  }

  close(): void {}

  toString(): string {
    return `HasHeaderKey{name='${this.#name}'}`;
  }
}
