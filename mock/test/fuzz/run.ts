#!/usr/bin/env node
// npm run fuzz: the properties of properties.ts over many generated requests per operation, against an in-process
// mock on a real port. Prints, per operation, the requests sent, the statuses and answers seen with their counts,
// the time, and the first request of each kind of failure (with a curl line and a replay command); exits 1 on any
// failure.
//
//   node mock/test/fuzz/run.ts [--runs N] [--seed S] [--operation ID[,ID]] [--max-depth N] [--huge N]
//                              [--skip-known | --include ISSUE[,ISSUE]] [--path P]
//
// --runs N         requests per operation (default 10000)
// --seed S         fast-check seed (default: random, printed)
// --path P         replay one run of --seed (its index, as printed) and shrink it, printing the smallest failure
// --max-depth N    deepest JSON nesting generated when deep nesting is included (default 20000)
// --huge N         longest huge string in characters (default 100000)
// --skip-known     leave out the inputs of the known issues (arbitraries.ts KNOWN_ISSUES); --include picks some
import { parseArgs } from 'node:util';
import { startMock } from '../http.ts';
import { ALL_KNOWN_ISSUES, KNOWN_ISSUES, type KnownIssue } from './arbitraries.ts';
import { fuzzOperations } from './operations.ts';
import { assertFuzz, curlLine, describeRequest, fuzzReport, type FuzzOptions, type Tally } from './properties.ts';

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

function whole(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value) || Number(value) < min) fail(`${name} must be a whole number${min > 0 ? ` ≥ ${min}` : ''}, got "${value}"`);
  return Number(value);
}

let values: ReturnType<typeof parse>['values'];
function parse() {
  return parseArgs({
    options: {
      runs: { type: 'string' },
      seed: { type: 'string' },
      path: { type: 'string' },
      operation: { type: 'string' },
      'max-depth': { type: 'string' },
      huge: { type: 'string' },
      'skip-known': { type: 'boolean' },
      include: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  });
}
try {
  values = parse().values;
} catch (error) {
  fail(error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error));
}
if (values.help) {
  process.stdout.write(
    'usage: node mock/test/fuzz/run.ts [--runs N] [--seed S] [--operation ID[,ID]] [--max-depth N] [--huge N] [--skip-known | --include ISSUE,…] [--path P]\n',
  );
  process.stdout.write(`known issues: ${ALL_KNOWN_ISSUES.join(', ')}\n`);
  process.exit(0);
}

const all = fuzzOperations();
const wanted = values.operation?.split(',').map((s) => s.trim()) ?? all.map((o) => o.operationId);
for (const id of wanted)
  if (!all.some((o) => o.operationId === id)) fail(`--operation ${id} is not in the spec; operations: ${all.map((o) => o.operationId).join(', ')}`);
let include: KnownIssue[] = [...ALL_KNOWN_ISSUES];
if (values['skip-known'] && values.include) fail('--skip-known and --include contradict each other');
if (values['skip-known']) include = [];
if (values.include) {
  include = [];
  for (const name of values.include.split(',')) {
    const issue = ALL_KNOWN_ISSUES.find((k) => k === name.trim());
    if (!issue) fail(`--include ${name} is not a known issue; known: ${ALL_KNOWN_ISSUES.join(', ')}`);
    include.push(issue);
  }
}
const options: FuzzOptions = {
  numRuns: whole(values.runs, '--runs', 10_000, 1),
  maxDepth: whole(values['max-depth'], '--max-depth', 20_000, 2),
  hugeLength: whole(values.huge, '--huge', 100_000, 1000),
  include,
};
if (values.seed !== undefined) options.seed = whole(values.seed, '--seed', 0, -0x80000000);
if (values.path !== undefined) {
  if (options.seed === undefined) fail('--path needs the --seed it belongs to');
  if (!/^\d+(:\d+)*$/.test(values.path)) fail(`--path must look like 17 or 17:3:0, got "${values.path}"`);
  options.path = values.path;
}

function counts(map: Map<string | number, number>, limit = Infinity): string {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([k, n]) => `${k} ×${n}`)
    .join(', ');
}

function printTally(operationId: string, seed: number | undefined, tally: Tally): void {
  const seconds = tally.ms / 1000;
  const out = process.stdout;
  out.write(
    `\n${operationId}: ${tally.requests} requests in ${seconds.toFixed(1)} s (${(tally.ms / Math.max(1, tally.requests)).toFixed(2)} ms each, plus a state check per request)${seed === undefined ? '' : `, seed ${seed}`}\n`,
  );
  out.write(`  statuses: ${counts(new Map([...tally.statuses.entries()].sort((a, b) => a[0] - b[0])))}\n`);
  out.write(`  body kinds: ${counts(tally.bodyKinds)}\n`);
  out.write('  answers:\n');
  for (const [label, n] of [...tally.answers.entries()].sort((a, b) => b[1] - a[1])) out.write(`    ${String(n).padStart(6)}  ${label}\n`);
}

process.stdout.write(
  `fuzzing ${wanted.join(', ')}: ${options.numRuns} requests each; known issues included: ${include.length ? include.join(', ') : 'none (--skip-known)'}\n`,
);
for (const issue of include) process.stdout.write(`  ${issue}: ${KNOWN_ISSUES[issue]}\n`);

const mock = await startMock();
let failed = false;
try {
  for (const operation of all.filter((o) => wanted.includes(o.operationId))) {
    if (options.path !== undefined) {
      // Replay one run and shrink it.
      try {
        const tally = await assertFuzz(mock, operation, options);
        printTally(operation.operationId, options.seed, tally);
        process.stdout.write('  the replayed run passes\n');
      } catch (error) {
        failed = true;
        process.stdout.write(`\n${error instanceof Error ? error.message : String(error)}\n`);
      }
      continue;
    }
    const report = await fuzzReport(mock, operation, options);
    printTally(operation.operationId, report.seed, report.tally);
    if (report.failures.length === 0 && report.journalProblems.length === 0) {
      process.stdout.write('  failures: none\n');
      continue;
    }
    failed = true;
    for (const problem of report.journalProblems) process.stdout.write(`  FAILURE: ${problem}\n`);
    for (const failure of report.failures.sort((a, b) => b.count - a.count)) {
      process.stdout.write(`\n  FAILURE ×${failure.count}: ${failure.problem}\n`);
      process.stdout.write(
        `    first at run ${failure.run}; every problem of that run:\n${failure.problems.map((p) => `      - ${p.slice(0, 300)}`).join('\n')}\n`,
      );
      process.stdout.write(`    ${describeRequest(failure.request).replaceAll('\n', '\n    ')}\n`);
      process.stdout.write(`    reproduce with npm start and:\n    ${curlLine(failure.request, report.session).replaceAll('\n', '\n    ')}\n`);
      process.stdout.write(`    replay and shrink: ${report.replay(failure.run)}\n`);
    }
  }
} finally {
  await mock.close();
}
process.stdout.write(failed ? '\nFAILED: see the failures above\n' : '\nall properties hold\n');
process.exit(failed ? 1 : 0);
