// Bad options of the package's commands (mock, proxy): one line on stderr, then exit 2, the commands' "bad
// configuration" code. Only command-line modules import this.

export type OptionErrors = {
  /** Writes `<prefix>: <message>` and exits 2. */
  fail(message: string): never;
  /** `value` as a whole number within [min, max], or fail naming the option. */
  integer(value: string, name: string, min: number, max: number): number;
};

export function optionErrors(prefix: string): OptionErrors {
  const fail = (message: string): never => {
    process.stderr.write(`${prefix}: ${message}\n`);
    process.exit(2);
  };
  const integer = (value: string, name: string, min: number, max: number): number => {
    if (!/^\d+$/.test(value)) fail(`${name} must be a whole number, got "${value}"`);
    const n = Number(value);
    if (n < min || n > max) fail(`${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  };
  return { fail, integer };
}
