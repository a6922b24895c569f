// Bad options of the package's commands (mock, proxy): one line on stderr, then exit 2, the commands' "bad
// configuration" code. Only command-line modules import this.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { isHostName } from './hosts.ts';

/** What node:util's parseArgs returns for `options`, read strictly with no positionals. */
type ParsedOptions<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>>;

export type OptionErrors = {
  /** Writes `<prefix>: <message>` and exits 2. */
  fail(message: string): never;
  /** `value` as a whole number within [min, max], or fail naming the option. */
  integer(value: string, name: string, min: number, max: number): number;
  /**
   * `argv` read against `options` (strict, no positionals), or fail with one line: `unknown option --x` for an option
   * the command does not have, else the first line of what parseArgs says (a missing value, a value for a flag).
   */
  parse<const O extends ParseArgsOptionsConfig>(argv: string[], options: O): ParsedOptions<O>;
  /** Fails unless every `--allowed-host` value is a host name or address, with an optional :port. */
  hosts(names: ReadonlyArray<string>): void;
  /** Fails with one line saying why the server could not listen on `host`:`port`. */
  listenFailure(error: unknown, host: string, port: number): never;
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
  const parse = <const O extends ParseArgsOptionsConfig>(argv: string[], options: O): ParsedOptions<O> => {
    try {
      return parseArgs({ args: argv, options, strict: true, allowPositionals: false });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
      const option = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(message)?.[1] : undefined;
      return fail(option ? `unknown option ${option} (see --help)` : `${message.split('\n')[0] ?? ''} (see --help)`);
    }
  };
  const hosts = (names: ReadonlyArray<string>): void => {
    for (const name of names) if (!isHostName(name)) fail(`--allowed-host must be a host name or address, with an optional :port, got "${name}"`);
  };
  const listenFailure = (error: unknown, host: string, port: number): never => {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
    if (code === 'EADDRINUSE') fail(`port ${port} on ${host} is already in use (choose another with --port)`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') fail(`cannot bind to ${host} (${code})`);
    return fail(`cannot listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`);
  };
  return { fail, integer, parse, hosts, listenFailure };
}
