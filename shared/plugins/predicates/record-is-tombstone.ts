/**
 * RecordIsTombstone (Connect's `org.apache.kafka.connect.transforms.predicates.RecordIsTombstone`):
 * true when the record value is null.
 */
import { ConfigDef } from '../../connect/config-def.js';
import type { Predicate } from '../../connect/predicate.js';
import type { ConnectRecord } from '../../connect/records.js';

/** Tests for tombstones; see the module comment. */
export class RecordIsTombstone<R extends ConnectRecord> implements Predicate<R> {
  config(): ConfigDef {
    return new ConfigDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    new ConfigDef().parse(props);
  }

  test(record: R): boolean {
    return record.value === null;
  }

  close(): void {}

  toString(): string {
    return 'RecordIsTombstone{}';
  }
}
