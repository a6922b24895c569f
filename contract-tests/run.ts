#!/usr/bin/env node
// `npm run contract`: checks the server at CONTRACT_BASE_URL against the spec and production's behaviour.
// Exit codes: 0 every check passed (skips allowed), 1 a contract violation (or a failure to test at all),
// 2 bad configuration (one line naming the variable). The only place, with the reporter, that prints.
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startVitest } from 'vitest/node';
import { ConfigError, readConfig, type ContractConfig } from './lib/env.ts';
import { preflight } from './lib/preflight.ts';
import ContractReporter from './lib/reporter.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONFIG = fileURLToPath(new URL('./vitest.config.ts', import.meta.url));

function configError(message: string): never {
  console.error(`contract: ${message}`);
  process.exit(2);
}

const USAGE = `Usage: CONTRACT_BASE_URL=<origin> [CONTRACT_TOKEN=…] npm run contract [-- [--strict] <file filter>…]

  <file filter>  run only the suite files (contract-tests/tests/<name>.contract.test.ts) whose name contains it,
                 e.g. auth or closeGoal; default: all of them
  --strict       a skipped test fails the run (as CONTRACT_STRICT=1), for CI gates
  The variables are listed in contract-tests/README.md. Exit: 0 all pass, 1 a contract violation, 2 bad configuration.`;

let parsed: ReturnType<typeof parseOptions>;
function parseOptions() {
  return parseArgs({ args: process.argv.slice(2), options: { strict: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
}
try {
  parsed = parseOptions();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  const option = /option '([^']+)'/i.exec(message)?.[1];
  configError(option ? `unknown option ${option} (see --help)` : `${message.split('\n')[0] ?? ''} (see --help)`);
}
if (parsed.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const args = parsed.positionals;
const SUITE = readdirSync(fileURLToPath(new URL('./tests/', import.meta.url)))
  .filter((f) => f.endsWith('.contract.test.ts'))
  .map((f) => f.replace(/\.contract\.test\.ts$/, ''));
const unmatched = args.find((a) => !SUITE.some((file) => file.includes(a)));
if (unmatched !== undefined) configError(`no suite file matches "${unmatched}"; the files are ${SUITE.join(', ')}`);

let config: ContractConfig;
try {
  config = readConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) configError(error.message);
  throw error;
}
if (parsed.values.strict) config = { ...config, strict: true };

if (config.report !== undefined) {
  try {
    mkdirSync(dirname(resolve(config.report)), { recursive: true });
  } catch (error) {
    configError(`CONTRACT_REPORT: cannot create the directory of ${config.report}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

// Can the server be reached at all, and is it this API? A refused connection, an unknown host or a server that is not
// the API is a wrong URL (exit 2, one line with the fix); a server that accepts the connection but does not answer
// is tested, and its tests fail with a timeout. A refused token is said first, and the run goes on.
const checked = await preflight(config);
if ('fatal' in checked) configError(checked.fatal);
const { target } = checked;
for (const note of target.notes) console.log(`contract: ${note}`);

const reporter = new ContractReporter();
const report: Array<['junit', { outputFile: string; suiteName: string }]> = config.report === undefined ? [] : [['junit', { outputFile: resolve(config.report), suiteName: 'contract' }]];
const vitest = await startVitest(args, {
  root: ROOT,
  config: CONFIG,
  run: true,
  watch: false,
  reporters: [reporter, ...report],
  testTimeout: Math.max(20_000, config.timeoutMs * 3 + 5_000),
  provide: { contract: target },
});
await vitest.close();

const { failed, passed, skipped, errors } = reporter.result;
if (passed + failed === 0 && errors === 0) console.log('contract: nothing was checked (every test was skipped); give the variables above');
process.exit(failed > 0 || errors > 0 || (config.strict && skipped > 0) ? 1 : 0);
