// The `contract` command (`service-external-api contract`, `npm run contract`): checks the server at CONTRACT_BASE_URL
// (or --base-url) against the spec and production's behaviour.
// Exit codes: 0 every check passed (skips allowed, unless strict), 1 a contract violation (or a failure to test at all),
// 2 bad configuration (one line naming the variable). The only place, with the reporter, that prints.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, PERSONAS, readConfig, tokenVariable, type ContractConfig, type Persona } from './io/env.ts';
import { createMasker } from './io/mask.ts';
import { preflight } from './io/preflight.ts';
import ContractReporter from './harness/reporter.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** `ts` in the repository, `js` in the package's compiled dist/: the suite's files have the extension of this one. */
const EXTENSION = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const CONFIG = fileURLToPath(new URL(`./vitest.config.${EXTENSION}`, import.meta.url));

/** The JUnit file asked for (--report, else CONTRACT_REPORT), once the arguments are read. */
let reportFile: string | undefined;
/** Whether the URL came from --base-url. */
let baseUrlOption = false;

const xml = (text: string): string => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Exit 2 with one line; with a report asked for, the JUnit file says the same as one failed test, so a CI step that
 * publishes it shows why instead of failing on a missing file.
 */
function configError(given: string): never {
  // With --base-url given, the message names the option the user typed, not the variable it stands for.
  const message = baseUrlOption ? given.replace(/\bCONTRACT_BASE_URL\b/g, '--base-url') : given;
  console.error(`contract: ${message}`);
  const file = reportFile ?? (process.env['CONTRACT_REPORT']?.trim() || undefined);
  if (file !== undefined) {
    try {
      mkdirSync(dirname(resolve(file)), { recursive: true });
      writeFileSync(
        resolve(file),
        `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="contract" tests="1" failures="1" errors="0">\n  <testsuite name="contract: configuration" tests="1" failures="1" errors="0" skipped="0">\n    <testcase classname="contract" name="the run could start (exit 2: bad configuration)">\n      <failure message="${xml(message)}" type="configuration">${xml(`contract: ${message}`)}</failure>\n    </testcase>\n  </testsuite>\n</testsuites>\n`,
      );
    } catch (error) {
      console.error(`contract: cannot write the report ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  process.exit(2);
}

const USAGE = `Usage: service-external-api contract [--base-url URL] [--report FILE] [--coverage FILE] [--strict] [<file filter>…]
       (or CONTRACT_BASE_URL=<origin> CONTRACT_TOKEN=… service-external-api contract)

Checks the implementation at the URL against the spec and production's behaviour.

  --base-url URL  the implementation's origin (the same as CONTRACT_BASE_URL; this option wins)
  --report FILE   also write a JUnit XML report there (the same as CONTRACT_REPORT)
  --coverage FILE also write what the run exercised there as JSON: statuses, response fields, request fields and
                  enum values, rules run or skipped (the same as CONTRACT_COVERAGE; a summary ends every run)
  --strict        a skipped test fails the run (as CONTRACT_STRICT=1), for CI gates
  <file filter>   run only the suite files whose name contains it, e.g. auth or closeGoal; default: all of them
  Every CONTRACT_* variable (tokens, fixture ids, CONTRACT_ALLOW_WRITES, …) is in contract-tests/README.md, shipped
  with the package (node_modules/service-external-api/contract-tests/README.md); the rules a test cites are in its
  RULES.md. Exit: 0 all pass, 1 a contract violation, 2 bad configuration.`;

const OPTIONS = {
  'base-url': { type: 'string' },
  report: { type: 'string' },
  coverage: { type: 'string' },
  strict: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const parse = (argv: string[]) => parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });

/** Runs the suite and exits: 0 every check passed, 1 a violation, 2 bad configuration. */
export async function runContract(argv: string[]): Promise<never> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = argv.findIndex((word) => word === '--report' || word.startsWith('--report='));
    reportFile = at < 0 ? undefined : (argv[at]?.split('=')[1] ?? argv[at + 1]);
    const option = /option '([^']+)'/i.exec(message)?.[1];
    configError(option ? `unknown option ${option} (see --help)` : `${message.split('\n')[0] ?? ''} (see --help)`);
  }
  if (parsed.values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const args = parsed.positionals;
  // The options stand for their variables; the suite's workers read the environment (harness/setup.ts, io/env.ts).
  if (parsed.values['base-url'] !== undefined) process.env['CONTRACT_BASE_URL'] = parsed.values['base-url'];
  baseUrlOption = parsed.values['base-url'] !== undefined;
  if (parsed.values.report !== undefined) process.env['CONTRACT_REPORT'] = parsed.values.report;
  reportFile = parsed.values.report;
  if (parsed.values.coverage !== undefined) process.env['CONTRACT_COVERAGE'] = parsed.values.coverage;
  const suffix = `.contract.test.${EXTENSION}`;
  const SUITE = readdirSync(fileURLToPath(new URL('./tests/', import.meta.url)))
    .filter((f) => f.endsWith(suffix))
    .map((f) => f.slice(0, -suffix.length));
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

  if (config.coverage !== undefined) {
    try {
      mkdirSync(dirname(resolve(config.coverage)), { recursive: true });
    } catch (error) {
      configError(`CONTRACT_COVERAGE: cannot create the directory of ${config.coverage}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // Can the server be reached at all, and is it this API? A refused connection, an unknown host or a server that is
  // not the API is a wrong URL (exit 2, one line with the fix); a server that accepts the connection but does not
  // answer is tested, and its tests fail with a timeout. A refused token is said first, and the run goes on.
  const checked = await preflight(config);
  if ('fatal' in checked) configError(checked.fatal);
  const { target } = checked;
  // Every token the run holds, whatever form a target echoes it in, never reaches stdout or the JUnit report.
  const isPersona = (name: string): name is Persona => (PERSONAS as ReadonlyArray<string>).includes(name);
  const masker = createMasker(
    [...Object.entries(config.tokens), ...Object.entries(target.tokens)].flatMap(([persona, token]) =>
      typeof token === 'string' && isPersona(persona) ? [[token, tokenVariable(persona)] as const] : [],
    ),
  );
  for (const note of target.notes) console.log(masker.mask(`contract: ${note}`));

  // The summary is held until the runner has closed and printed what it prints (the JUnit reporter's `JUNIT report
  // written to …`), so that the run's last line is always its verdict.
  let summary = '';
  const reporter = new ContractReporter((text) => {
    summary += masker.mask(text);
  }, config.coverage);
  const report: Array<['junit', { outputFile: string; suiteName: string }]> =
    config.report === undefined ? [] : [['junit', { outputFile: resolve(config.report), suiteName: 'contract' }]];
  // The runner (vitest, an optional peer) loads only now: --help and a bad configuration answer without it. The form
  // with the mode first is the one vitest 3, 4 and 5 all read (5 also takes the filters first; 3 and 4 only this).
  const { startVitest } = await import('vitest/node');
  const vitest = await startVitest('test', args, {
    root: ROOT,
    config: CONFIG,
    run: true,
    watch: false,
    reporters: [reporter, ...report],
    testTimeout: Math.max(20_000, config.timeoutMs * 3 + 5_000),
    provide: { contract: target },
  });
  // An error the runner met outside any test (a setup file it could not load) that did not reach the reporter: the run
  // checked nothing, whatever the counts say.
  const outside = vitest.state.getUnhandledErrors().length;
  await vitest.close();
  if (config.report !== undefined && existsSync(resolve(config.report)))
    writeFileSync(resolve(config.report), masker.mask(readFileSync(resolve(config.report), 'utf8')));

  const { failed, skipped, errors } = reporter.result;
  const uncounted = errors === 0 && outside > 0;
  if (uncounted) summary += `\ncontract: the runner failed with ${outside} error${outside === 1 ? '' : 's'} outside the tests (above) — FAIL\n`;
  process.stdout.write(summary);
  // Exit once stdout has taken everything: on a pipe, writes are asynchronous, and process.exit drops what is still
  // queued (the summary and the last line, the part a CI log is read for).
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(failed > 0 || errors > 0 || uncounted || (config.strict && skipped > 0) ? 1 : 0);
}
