/**
 * Filter (Connect's `org.apache.kafka.connect.transforms.Filter`): drops every record it is
 * applied to. Combine it with a predicate (`transforms.<alias>.predicate`) to drop only the
 * records the predicate selects.
 */
import { ConfigDef, type ConnectRecord, type Transformation } from 'serverless-connect/connect';

/** Drops all records; see the module comment. */
export class Filter<R extends ConnectRecord> implements Transformation<R> {
  config(): ConfigDef {
    return new ConfigDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    new ConfigDef().parse(props);
  }

  apply(_record: R): R | null {
    return null;
  }

  close(): void {}
}
