/**
 * RecordIsTombstone (Connect's `org.apache.kafka.connect.transforms.predicates.RecordIsTombstone`):
 * true when the record value is null.
 */
import { ConfigDef, type ConnectRecord, type Predicate } from 'serverless-connect/connect';

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
