// The options of the traffic commands (drift, replay, coverage): node:util's parseArgs, strict, with positionals; a
// bad option or value is one line on stderr (`<command>: …`) and exit 2, the commands' "bad input" code.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** The most a --tokens or --map file may hold (a fixtures document is a few KB). */
export const TOKENS_MAX_BYTES = 8 * 1024 * 1024;

export function failWith(command: string): (message: string) => never {
  return (message) => {
    process.stderr.write(`${command}: ${message.split('\n')[0] ?? ''}\n`);
    process.exit(2);
  };
}

export function parseCommand<const O extends ParseArgsOptionsConfig>(command: string, argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (error) {
    return failWith(command)(`${error instanceof Error ? error.message : String(error)} (see --help)`);
  }
}

/** One of `allowed`, or fail naming the option. */
export function oneOf<const T extends string>(command: string, name: string, value: string | undefined, allowed: ReadonlyArray<T>, fallback: T): T {
  if (value === undefined) return fallback;
  const found = allowed.find((a) => a === value);
  return found ?? failWith(command)(`${name} must be ${allowed.join(', ')}, got "${value.slice(0, 40)}"`);
}
