/**
 * DropHeaders (Connect's `org.apache.kafka.connect.transforms.DropHeaders`): removes every
 * header whose key is listed in `headers`.
 */
import {
  ConfigDef,
  type ConnectRecord,
  Headers,
  type Transformation,
} from 'serverless-connect/connect';
import { NON_EMPTY_LIST, parsed } from './util/config.js';

const HEADERS = 'headers';

function configDef(): ConfigDef {
  return new ConfigDef().define({
    name: HEADERS,
    type: 'LIST',
    validator: NON_EMPTY_LIST,
    importance: 'HIGH',
    documentation: 'The name of the headers to be removed.',
  });
}

/** Removes headers by key; see the module comment. */
export class DropHeaders<R extends ConnectRecord> implements Transformation<R> {
  #headers: ReadonlySet<string> = new Set();

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.#headers = new Set(parsed.list(configDef().parse(props), HEADERS));
  }

  apply(record: R): R | null {
    const kept = record.headers.toArray().filter((h) => !this.#headers.has(h.key));
    return record.newRecord({ headers: new Headers(kept) });
  }

  close(): void {}
}
