import { describe, expect, it } from 'vitest';
import { parseJaasConfig } from '../../../../shared/config/jaas-config.js';

const PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule';

describe('parseJaasConfig', () => {
  it('reads quoted and bare option values, with escapes and spacing', () => {
    expect(
      parseJaasConfig(`  ${PLAIN}   required\n username = "al ice"  password="p\\"w;=" extra=1 ; `),
    ).toEqual({ module: PLAIN, username: 'al ice', password: 'p"w;=' });
  });

  it('accepts every JAAS control flag', () => {
    for (const flag of ['required', 'Requisite', 'sufficient', 'optional']) {
      expect(parseJaasConfig(`${PLAIN} ${flag} username=u password=p;`).username).toBe('u');
    }
  });

  it("rejects entries Kafka's JaasConfig rejects", () => {
    expect(() => parseJaasConfig(`${PLAIN} required username=u password=p`)).toThrow(
      'JAAS config entry not terminated by semi-colon',
    );
    expect(() => parseJaasConfig(`${PLAIN} always username=u password=p;`)).toThrow(
      /invalid control flag/,
    );
    expect(() => parseJaasConfig(`${PLAIN} required username= password=p;`)).toThrow(
      'Value not specified for key in JAAS config',
    );
    expect(() =>
      parseJaasConfig(`${PLAIN} required username=u password=p; ${PLAIN} required a=b;`),
    ).toThrow(/exactly 1/);
    expect(() => parseJaasConfig(`${PLAIN} required username=u;`)).toThrow(/username and password/);
  });
});
