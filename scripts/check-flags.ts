/** Command-line flags of the `check:*` scripts: `--<name> <value>`. */

/** The value after `--<name>`, or undefined when the flag is absent. */
export function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The whole number after `--<name>` (`fallback` when absent); throws on anything else. */
export function wholeFlag(name: string, fallback: number): number {
  const text = flag(name);
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} takes a whole number`);
  return value;
}
