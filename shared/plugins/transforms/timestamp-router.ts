/**
 * TimestampRouter (Connect's `org.apache.kafka.connect.transforms.TimestampRouter`): renames
 * the topic to `topic.format` with `${topic}` replaced by the topic and `${timestamp}` by the
 * record timestamp formatted with `timestamp.format` (a Java `SimpleDateFormat` pattern, UTC).
 * A record without a timestamp is a DataError.
 */
import {
  ConfigDef,
  type ConnectRecord,
  DataError,
  invalidValue,
  type Transformation,
} from 'serverless-connect/connect';
import { parsed } from './util/config.js';
import { JavaDateFormat } from './util/java-date-format.js';

const TOPIC_FORMAT = 'topic.format';
const TIMESTAMP_FORMAT = 'timestamp.format';
// biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's placeholder syntax
const TOPIC_PLACEHOLDER = '${topic}';
// biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's placeholder syntax
const TIMESTAMP_PLACEHOLDER = '${timestamp}';
const DEFAULT_TOPIC_FORMAT = `${TOPIC_PLACEHOLDER}-${TIMESTAMP_PLACEHOLDER}`;

function configDef(): ConfigDef {
  return new ConfigDef()
    .define({
      name: TOPIC_FORMAT,
      type: 'STRING',
      defaultValue: DEFAULT_TOPIC_FORMAT,
      importance: 'HIGH',
      documentation: `Format string which can contain <code>${TOPIC_PLACEHOLDER}</code> and <code>${TIMESTAMP_PLACEHOLDER}</code> as placeholders for the topic and timestamp, respectively.`,
    })
    .define({
      name: TIMESTAMP_FORMAT,
      type: 'STRING',
      defaultValue: 'yyyyMMdd',
      importance: 'HIGH',
      documentation:
        'Format string for the timestamp that is compatible with <code>java.text.SimpleDateFormat</code>.',
    });
}

/** Routes by timestamp; see the module comment. */
export class TimestampRouter<R extends ConnectRecord> implements Transformation<R> {
  #topicFormat = DEFAULT_TOPIC_FORMAT;
  #timestampFormat = new JavaDateFormat('yyyyMMdd');

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    this.#topicFormat = parsed.string(values, TOPIC_FORMAT) ?? '';
    const pattern = parsed.string(values, TIMESTAMP_FORMAT) ?? '';
    try {
      this.#timestampFormat = new JavaDateFormat(pattern);
    } catch (error) {
      throw invalidValue(TIMESTAMP_FORMAT, pattern, (error as Error).message);
    }
  }

  apply(record: R): R | null {
    if (record.timestamp === null) {
      throw new DataError(`Timestamp missing on record: ${String(record)}`);
    }
    const timestamp = this.#timestampFormat.format(new Date(record.timestamp));
    const topic = this.#topicFormat
      .replaceAll(TOPIC_PLACEHOLDER, () => record.topic)
      .replaceAll(TIMESTAMP_PLACEHOLDER, () => timestamp);
    return record.newRecord({ topic });
  }

  close(): void {}
}
