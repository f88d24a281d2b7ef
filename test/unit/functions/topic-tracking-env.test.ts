/** `TOPIC_TRACKING_ENABLE` / `TOPIC_TRACKING_ALLOW_RESET` in the functions and in `npm start`. */
import { describe, expect, it } from 'vitest';
import { readEnv } from '../../../functions/_env.js';
import { parseCliOptions } from '../../../local/runtime/cli-options.js';
import { ConfigError } from '../../../shared/connect/errors.js';

const base = { STATE_TABLE: 'state', KAFKA_BROKERS: 'b-1:9092' };

describe('topic tracking settings', () => {
  it('are both on by default, as in Kafka Connect', () => {
    // Act
    const functions = readEnv(base).topicTracking;
    const local = parseCliOptions([], {});
    // Assess
    expect(functions).toEqual({ enabled: true, allowReset: true });
    expect(local).toMatchObject({ topicTracking: { enabled: true, allowReset: true } });
  });

  it('read true and false in any case, for the functions and npm start alike', () => {
    // Prepare
    const env = { TOPIC_TRACKING_ENABLE: 'FALSE', TOPIC_TRACKING_ALLOW_RESET: 'false' };
    const resetOff = { TOPIC_TRACKING_ENABLE: 'true', TOPIC_TRACKING_ALLOW_RESET: 'False' };
    // Act + Assess
    expect(readEnv({ ...base, ...env }).topicTracking).toEqual({
      enabled: false,
      allowReset: false,
    });
    expect(readEnv({ ...base, ...resetOff }).topicTracking).toEqual({
      enabled: true,
      allowReset: false,
    });
    expect(parseCliOptions([], env)).toMatchObject({
      topicTracking: { enabled: false, allowReset: false },
    });
  });

  it('refuse anything but true or false, naming the variable', () => {
    // Act + Assess
    expect(() => readEnv({ ...base, TOPIC_TRACKING_ENABLE: 'no' })).toThrow(ConfigError);
    expect(() => readEnv({ ...base, TOPIC_TRACKING_ENABLE: 'no' })).toThrow(
      'TOPIC_TRACKING_ENABLE must be true or false (got no)',
    );
    expect(() => parseCliOptions([], { TOPIC_TRACKING_ALLOW_RESET: '1' })).toThrow(
      /TOPIC_TRACKING_ALLOW_RESET must be true or false/,
    );
  });
});
