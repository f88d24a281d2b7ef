/**
 * RegexRouter (Connect's `org.apache.kafka.connect.transforms.RegexRouter`): when the whole
 * topic name matches `regex`, renames the topic to `replacement`, in which `$1`, `${name}`
 * refer to capture groups and `\` escapes the next character (Java's `Matcher.replaceFirst`
 * syntax). Other records pass through. The regex is a JavaScript RegExp, which accepts the
 * common Java syntax (Java-only constructs such as possessive quantifiers are rejected).
 */
import {
  ConfigDef,
  type ConnectRecord,
  compileFullMatch,
  DataError,
  RegexValidator,
  type Transformation,
} from 'serverless-connect/connect';
import { parsed } from './util/config.js';

const REGEX = 'regex';
const REPLACEMENT = 'replacement';

function configDef(): ConfigDef {
  return new ConfigDef()
    .define({
      name: REGEX,
      type: 'STRING',
      validator: new RegexValidator(),
      importance: 'HIGH',
      documentation: 'Regular expression to use for matching.',
    })
    .define({
      name: REPLACEMENT,
      type: 'STRING',
      importance: 'HIGH',
      documentation: 'Replacement string.',
    });
}

/**
 * `replacement` with Java's group references resolved against `match` (the result of
 * `Matcher.replaceFirst` on a whole-input match). DataError for a malformed reference.
 */
export function expandReplacement(replacement: string, match: RegExpExecArray): string {
  const groupCount = match.length - 1;
  let out = '';
  let i = 0;
  while (i < replacement.length) {
    const c = replacement.charAt(i);
    if (c === '\\') {
      if (i + 1 >= replacement.length) throw new DataError('character to be escaped is missing');
      out += replacement.charAt(i + 1);
      i += 2;
      continue;
    }
    if (c !== '$') {
      out += c;
      i++;
      continue;
    }
    i++;
    if (replacement.charAt(i) === '{') {
      const end = replacement.indexOf('}', i);
      const name = end < 0 ? '' : replacement.slice(i + 1, end);
      if (end < 0 || !/^[A-Za-z][A-Za-z0-9]*$/.test(name)) {
        throw new DataError("named capturing group is missing trailing '}'");
      }
      if (match.groups === undefined || !Object.hasOwn(match.groups, name)) {
        throw new DataError(`No group with name {${name}}`);
      }
      out += match.groups[name] ?? '';
      i = end + 1;
      continue;
    }
    if (!/\d/.test(replacement.charAt(i))) throw new DataError('Illegal group reference');
    let group = Number(replacement.charAt(i));
    i++;
    while (i < replacement.length && /\d/.test(replacement.charAt(i))) {
      const next = group * 10 + Number(replacement.charAt(i));
      if (next > groupCount) break;
      group = next;
      i++;
    }
    if (group > groupCount) throw new DataError(`No group ${group}`);
    out += match[group] ?? '';
  }
  return out;
}

/** Renames topics by regex; see the module comment. */
export class RegexRouter<R extends ConnectRecord> implements Transformation<R> {
  #regex: RegExp | undefined;
  #replacement = '';

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    this.#regex = compileFullMatch(parsed.string(values, REGEX) ?? '');
    this.#replacement = parsed.string(values, REPLACEMENT) ?? '';
  }

  apply(record: R): R | null {
    const match = this.#regex?.exec(record.topic);
    if (match === null || match === undefined) return record;
    return record.newRecord({ topic: expandReplacement(this.#replacement, match) });
  }

  close(): void {}
}
