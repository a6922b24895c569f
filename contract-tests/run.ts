#!/usr/bin/env node
// `npm run contract`: checks the server at CONTRACT_BASE_URL against the spec and production's behaviour.
// Exit codes: 0 every check passed (skips allowed), 1 a contract violation (or a failure to test at all),
// 2 bad configuration (one line naming the variable). The only place, with the reporter, that prints.
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startVitest } from 'vitest/node';
import { createClient, TransportError } from './lib/client.ts';
import { ConfigError, readConfig, type ContractConfig } from './lib/env.ts';
import ContractReporter from './lib/reporter.ts';
import { probeRequest } from './lib/target.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONFIG = fileURLToPath(new URL('./vitest.config.ts', import.meta.url));
/** Network failures that mean the URL is wrong rather than the server broken. */
const UNREACHABLE = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_TLS_CERT_ALTNAME_INVALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED'];

function configError(message: string): never {
  console.error(`contract: ${message}`);
  process.exit(2);
}

const USAGE = `Usage: CONTRACT_BASE_URL=<origin> [CONTRACT_TOKEN=…] npm run contract [-- <file filter>…]

  <file filter>  run only the suite files (contract-tests/tests/<name>.contract.test.ts) whose name contains it,
                 e.g. auth or closeGoal; default: all of them
  The variables are listed in contract-tests/README.md. Exit: 0 all pass, 1 a contract violation, 2 bad configuration.`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const unknownOption = args.find((a) => a.startsWith('-'));
if (unknownOption !== undefined) configError(`unknown option ${unknownOption} (see --help)`);
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

if (config.report !== undefined) {
  try {
    mkdirSync(dirname(resolve(config.report)), { recursive: true });
  } catch (error) {
    configError(`CONTRACT_REPORT: cannot create the directory of ${config.report}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

// Can the server be reached at all? A refused connection or an unknown host is a wrong URL (exit 2); a server that
// accepts the connection but does not answer is tested, and its tests fail with a timeout.
const probe = probeRequest();
if (probe) {
  try {
    await createClient({ baseUrl: config.baseUrl, timeoutMs: config.timeoutMs }).send(probe);
  } catch (error) {
    if (error instanceof TransportError && error.code !== undefined && UNREACHABLE.includes(error.code)) configError(`CONTRACT_BASE_URL: cannot reach ${config.baseUrl} (${error.code})`);
  }
}

const reporter = new ContractReporter();
const report: Array<['junit', { outputFile: string; suiteName: string }]> = config.report === undefined ? [] : [['junit', { outputFile: resolve(config.report), suiteName: 'contract' }]];
const vitest = await startVitest(args, {
  root: ROOT,
  config: CONFIG,
  run: true,
  watch: false,
  reporters: [reporter, ...report],
  testTimeout: Math.max(20_000, config.timeoutMs * 3 + 5_000),
});
await vitest.close();

const { failed, passed, errors } = reporter.result;
if (passed + failed === 0 && errors === 0) console.log('contract: nothing was checked (every test was skipped); give the variables above');
process.exit(failed > 0 || errors > 0 ? 1 : 0);
