/**
 * TopicNameMatches (Connect's `org.apache.kafka.connect.transforms.predicates.TopicNameMatches`):
 * true when the whole topic name matches `pattern` (a JavaScript RegExp standing in for Java's
 * regex dialect, matched like `Matcher.matches()`).
 */
import {
  CompositeValidator,
  ConfigDef,
  type ConnectRecord,
  compileFullMatch,
  NonEmptyString,
  type Predicate,
  RegexValidator,
} from 'serverless-connect/connect';

const PATTERN = 'pattern';

function configDef(): ConfigDef {
  return new ConfigDef().define({
    name: PATTERN,
    type: 'STRING',
    validator: CompositeValidator.of(new NonEmptyString(), new RegexValidator()),
    importance: 'MEDIUM',
    documentation: "A Java regular expression for matching against the name of a record's topic.",
  });
}

/** Matches topic names; see the module comment. */
export class TopicNameMatches<R extends ConnectRecord> implements Predicate<R> {
  #pattern: RegExp | undefined;

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    this.#pattern = compileFullMatch(String(configDef().parse(props)[PATTERN]));
  }

  test(record: R): boolean {
    return this.#pattern?.test(record.topic) ?? false;
  }

  close(): void {}

  toString(): string {
    return `TopicNameMatches{pattern=${this.#pattern?.source ?? ''}}`;
  }
}
