/**
 * Kafka's `sasl.jaas.config` value: one JAAS login module entry,
 * `<LoginModuleClass> <flag> key1="value1" key2=value2;` (Kafka's `JaasConfig`). Only what a
 * username/password login needs is kept.
 */

/** The username and password of a PLAIN or SCRAM login module entry. */
export interface JaasLogin {
  readonly module: string;
  readonly username: string;
  readonly password: string;
}

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);

/** Splits an entry into words, `=`, `;` and quoted strings (`"…"`, with `\` escapes). */
function tokens(text: string): { kind: 'word' | 'quoted' | 'symbol'; text: string }[] {
  const out: { kind: 'word' | 'quoted' | 'symbol'; text: string }[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === '=' || c === ';') {
      out.push({ kind: 'symbol', text: c });
      i += 1;
    } else if (c === '"') {
      let value = '';
      i += 1;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) i += 1;
        value += text[i];
        i += 1;
      }
      if (i >= text.length) throw new Error('Value not specified for key in JAAS config');
      out.push({ kind: 'quoted', text: value });
      i += 1;
    } else {
      let word = '';
      while (i < text.length && !/[\s=;"]/.test(text[i] ?? '')) {
        word += text[i];
        i += 1;
      }
      out.push({ kind: 'word', text: word });
    }
  }
  return out;
}

/**
 * Parses a `sasl.jaas.config` value holding one login module entry with `username` and
 * `password` options. Throws an Error with a Kafka-like message otherwise.
 */
export function parseJaasConfig(text: string): JaasLogin {
  const list = tokens(text);
  const [module, flag] = list;
  if (module?.kind !== 'word' || flag?.kind !== 'word') {
    throw new Error('JAAS config entry not terminated by semi-colon');
  }
  if (!FLAGS.has(flag.text.toLowerCase())) {
    throw new Error(`Invalid JAAS config: invalid control flag '${flag.text}'`);
  }
  const options = new Map<string, string>();
  let at = 2;
  for (;;) {
    const key = list[at];
    if (key === undefined) throw new Error('JAAS config entry not terminated by semi-colon');
    if (key.kind === 'symbol' && key.text === ';') break;
    const equals = list[at + 1];
    const value = list[at + 2];
    if (
      key.kind !== 'word' ||
      equals?.text !== '=' ||
      value === undefined ||
      value.kind === 'symbol'
    ) {
      throw new Error('Value not specified for key in JAAS config');
    }
    options.set(key.text, value.text);
    at += 3;
  }
  if (at !== list.length - 1) {
    throw new Error('JAAS config property contains 2 login modules, it should contain exactly 1');
  }
  const username = options.get('username');
  const password = options.get('password');
  if (username === undefined || password === undefined) {
    throw new Error('Invalid JAAS config: the login module needs username and password options');
  }
  return { module: module.text, username, password };
}
