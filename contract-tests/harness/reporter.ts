// The contract reporter: at the end of every run, the failures in full (rule, curl line, response, violations), a
// table of operation × check with pass/fail/skip counts, the skipped tests grouped by the variable they need, the
// warnings grouped by kind, the coverage (one line per operation; as JSON with --coverage), the distinct violations
// (each code and place once, with how many answers had it and one curl line that shows it), and the verdict as the
// last line. Every line is printed escaped (spec/lib/violations.ts printable): no text from outside forges a line.
// Tests are grouped by their first two suite names: the operationId and the check
// (`describe(operationId) > describe(check) > it(rule)`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Reporter, SerializedError, TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';
import { Coverage } from '../model/coverage.ts';
import { expectedNote, expectedOfProduction } from '../model/expected.ts';
import { operationModels } from '../model/profiles.ts';
import { formatLocation, printable, type Violation } from '../../spec/lib/violations.ts';
import type {} from './context.ts';

export type Counts = { passed: number; failed: number; skipped: number };
export type RunResult = Counts & { warnings: number; errors: number; rows: Map<string, Counts> };

type Row = { operation: string; check: string };

function placeOf(test: TestCase): Row {
  const names: string[] = [];
  let parent: TestSuite | TestModule = test.parent;
  while (parent.type === 'suite') {
    names.unshift(parent.name);
    parent = parent.parent;
  }
  return { operation: names[0] ?? '(no operation)', check: names[1] ?? names[0] ?? '(none)' };
}

/** The checks in the order QA reads them. */
const CHECK_ORDER = ['auth', 'order', 'validation', 'ids', 'permissions', 'transport', 'state', 'responses', 'properties'];
const order = (list: ReadonlyArray<string>, item: string): number => (list.includes(item) ? list.indexOf(item) : list.length);

/** One violation as the closing list shows it: a code at a place, over every answer that had it. */
type Distinct = { code: string; where: string; message: string; answers: number; operations: Set<string>; request: string | undefined };

/** Where, with any array index as `[*]`: the same field of every element is one place. */
const whereOf = (location: ReadonlyArray<string | number>): string => formatLocation(location).replace(/\[\d+\]/g, '[*]');

const pad = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - text.length));
const padStart = (text: string, width: number): string => ' '.repeat(Math.max(0, width - text.length)) + text;

/** What the run's tests say, gathered once: the table's rows, the failures, the skips, the warnings, the coverage. */
type Tally = {
  rows: Map<string, Counts>;
  failures: Array<{ name: string; messages: string[] }>;
  distinct: Map<string, Distinct>;
  skips: Map<string, string[]>;
  warnings: Map<string, { count: number; example: Violation; tests: Set<string>; where: string }>;
  total: Counts;
  moduleErrors: string[];
  seeds: Set<number>;
  coverage: Coverage;
};

type Provided = import('vitest').ProvidedContext['contract'] | undefined;

function collect(modules: ReadonlyArray<TestModule>): Tally {
  const tally: Tally = {
    rows: new Map(),
    failures: [],
    distinct: new Map(),
    skips: new Map(),
    warnings: new Map(),
    total: { passed: 0, failed: 0, skipped: 0 },
    moduleErrors: [],
    seeds: new Set(),
    coverage: new Coverage(),
  };
  const operationIds: ReadonlySet<string> = new Set(operationModels().map((o) => o.operationId));
  for (const module of modules) {
    for (const error of module.errors()) tally.moduleErrors.push(`${module.moduleId}: ${error.message}`);
    for (const test of module.children.allTests()) countTest(tally, test, operationIds);
  }
  return tally;
}

/** One test in the tally: its row's count, its failure and violations, its skip note, coverage, seed and warnings. */
function countTest(tally: Tally, test: TestCase, operationIds: ReadonlySet<string>): void {
  const { rows, total, failures, distinct, skips, coverage, seeds, warnings } = tally;
  const { operation, check } = placeOf(test);
  const key = `${operation}\u0000${check}`;
  const row = rows.get(key) ?? { passed: 0, failed: 0, skipped: 0 };
  rows.set(key, row);
  const result = test.result();
  if (result.state === 'passed') {
    row.passed++;
    total.passed++;
  } else if (result.state === 'failed') {
    row.failed++;
    total.failed++;
    // A contract failure's message opens with the rule, which is the test's name: print it once.
    const messages = result.errors.map((e) => (e.message.startsWith(`${test.name}\n`) ? e.message.slice(test.name.length + 1) : e.message));
    failures.push({ name: test.fullName, messages });
    // Each failed test failed on one answer: its violations count once each. A test that failed otherwise (an
    // assertion, the server unreachable) is one entry of its own message.
    const failure = test.meta().contractFailure;
    const found =
      failure && failure.violations.length > 0
        ? failure.violations.map((v) => ({ code: v.code, where: whereOf(v.location), message: v.message, request: failure.request }))
        : [{ code: 'test', where: check, message: (messages[0] ?? '').split('\n')[0]?.trim() ?? '', request: undefined }];
    const once = new Map(found.map((f) => [`${f.code}\u0000${f.where}${f.code === 'test' ? `\u0000${f.message}` : ''}`, f] as const));
    for (const [key, first] of once) {
      const entry = distinct.get(key) ?? { ...first, answers: 0, operations: new Set<string>() };
      entry.answers++;
      entry.operations.add(operation);
      distinct.set(key, entry);
    }
  } else {
    row.skipped++;
    total.skipped++;
    const note = result.state === 'skipped' && result.note ? result.note : 'skipped';
    skips.set(note, [...(skips.get(note) ?? []), test.fullName]);
  }
  const exercised = test.meta().contractCoverage;
  if (exercised) coverage.merge(exercised);
  // Each test checks one rule (its name): run, or skipped with why.
  if (operationIds.has(operation))
    coverage.rule(operation, `tests: ${check}`, result.state === 'skipped' ? (result.note ?? 'skipped') : result.state === 'pending' ? 'not run' : undefined);
  const seed = test.meta().contractSeed;
  if (seed !== undefined) seeds.add(seed);
  for (const warning of test.meta().contractWarnings ?? []) {
    const where = formatLocation(warning.location.map((p) => (typeof p === 'number' ? 0 : p)));
    const key = `${warning.code}|${where}|${warning.message}`;
    const entry = warnings.get(key) ?? { count: 0, example: warning, tests: new Set<string>(), where };
    entry.count++;
    entry.tests.add(operation);
    warnings.set(key, entry);
  }
}

/** The server the run checked, and what it read from the mock. */
function headerLines(lines: string[], provided: Provided): void {
  lines.push('', '━━ contract suite ━━');
  if (provided) {
    lines.push(
      `server: ${provided.config.baseUrl}${provided.mock ? ` (this package's mock${provided.mockSession ? `, session ${provided.mockSession}` : ''})` : ''}`,
    );
    const fromMock = Object.entries(provided.sources)
      .filter(([, s]) => s === 'mock')
      .map(([v]) => v);
    if (fromMock.length > 0) lines.push(`read from GET /__mock/fixtures: ${fromMock.join(', ')}`);
    for (const note of provided.notes) lines.push(`✗ before the run: ${note}`);
  }
}

/**
 * Every failed rule is named. A failure that is about no request in particular (the server could not be reached) is
 * printed once with the count; a repeat of an exchange already shown refers back to it.
 */
function failureLines(lines: string[], failures: Tally['failures'], errors: ReadonlyArray<string>): void {
  const counts = new Map<string, number>();
  for (const failure of failures) {
    const key = failure.messages.join('\n');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const shown = new Map<string, string>();
  for (const failure of failures) {
    const key = failure.messages.join('\n');
    const first = shown.get(key);
    const generic = !key.includes('request:');
    if (first !== undefined && generic) continue;
    const others = (counts.get(key) ?? 1) - 1;
    lines.push('', `✗ FAIL ${failure.name}${generic && others > 0 ? `  (and ${others} more test${others === 1 ? '' : 's'} failing the same way)` : ''}`);
    if (first !== undefined) {
      lines.push(`  (the same request, response and violations as: ${first})`);
      continue;
    }
    shown.set(key, failure.name);
    for (const message of failure.messages) lines.push(...message.split('\n').map((l) => `  ${l.replace(/^ {2}/, '')}`));
  }
  for (const error of errors) lines.push('', `✗ ERROR ${error}`);
}

/** The table of operation × check with its pass, fail and skip counts. */
function tableLines(lines: string[], rows: Tally['rows']): void {
  const operationOrder = operationModels().map((o) => o.operationId);
  const table = [...rows.entries()]
    .map(([key, counts]) => {
      const [operation = '', check = ''] = key.split('\u0000');
      return { operation, check, ...counts };
    })
    .sort(
      (x, y) =>
        order(operationOrder, x.operation) - order(operationOrder, y.operation) ||
        order(CHECK_ORDER, x.check) - order(CHECK_ORDER, y.check) ||
        x.check.localeCompare(y.check),
    );
  const w1 = Math.max(9, ...table.map((r) => r.operation.length));
  const w2 = Math.max(5, ...table.map((r) => r.check.length));
  lines.push('', `${pad('operation', w1)}  ${pad('check', w2)}  ${padStart('pass', 5)}  ${padStart('fail', 5)}  ${padStart('skip', 5)}`);
  for (const r of table) {
    const mark = r.failed > 0 ? '  ✗' : r.passed === 0 && r.skipped > 0 ? '  (skipped)' : '';
    lines.push(
      `${pad(r.operation, w1)}  ${pad(r.check, w2)}  ${padStart(String(r.passed), 5)}  ${padStart(String(r.failed), 5)}  ${padStart(String(r.skipped), 5)}${mark}`,
    );
  }
}

/** The coverage, one line per operation, and the JSON file when one is asked for. */
function coverageLines(lines: string[], coverage: Coverage, provided: Provided, coverageFile: string | undefined): void {
  lines.push('', 'coverage (documented statuses seen; response fields seen non-null; request fields and enum values sent; rules run):');
  for (const line of coverage.lines()) lines.push(`  ${line}`);
  if (coverageFile !== undefined) {
    const file = resolve(coverageFile);
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify({ target: provided?.config.baseUrl ?? null, ...coverage.report() }, null, 2)}\n`);
      lines.push(`  written to ${coverageFile}`);
    } catch (error) {
      lines.push(`  ✗ cannot write the coverage to ${coverageFile}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** The skipped tests by what they need, the warnings by kind, the expected note and the property seeds; the warning count. */
function noteLines(lines: string[], { skips, warnings, seeds }: Tally): number {
  if (skips.size > 0) {
    lines.push('', 'skipped:');
    for (const [note, tests] of skips) lines.push(`  ${note}: ${tests.length} test${tests.length === 1 ? '' : 's'}`);
  }
  // What production itself does and the spec documents (an error body sent without a Content-Type) is a note, said
  // once with its count: a warning is for what may be wrong.
  let warningCount = 0;
  let expected = 0;
  const worth = [...warnings.values()].filter((entry) => {
    if (!expectedOfProduction(entry.example)) return true;
    expected += entry.count;
    return false;
  });
  if (worth.length > 0) {
    lines.push('', 'warnings (not failures):');
    for (const entry of worth) {
      warningCount += entry.count;
      lines.push(`  ${entry.count}× ${entry.where}  ${entry.example.message}  [${entry.example.code}; ${[...entry.tests].join(', ')}]`);
    }
  }
  if (expected > 0) lines.push('', `note: ${expectedNote(expected)}`);
  if (seeds.size > 0)
    lines.push(
      '',
      `property tests ran with seed ${[...seeds].join(', ')}: replay them with CONTRACT_SEED=${[...seeds][0] ?? ''} (and the same CONTRACT_NUM_RUNS and filters)`,
    );
  return warningCount;
}

/** What QA fixes, once each: a fault that many tests meet (a field missing from every answer) is one line here. */
function distinctLines(lines: string[], distinct: Tally['distinct'], total: Counts): void {
  if (distinct.size > 0) {
    const entries = [...distinct.values()].sort((x, y) => y.answers - x.answers || x.code.localeCompare(y.code) || x.where.localeCompare(y.where));
    lines.push(
      '',
      `distinct violations: ${entries.length}, in ${total.failed} failed test${total.failed === 1 ? '' : 's'} (code, where, how many answers had it, one request that shows it):`,
    );
    for (const entry of entries) {
      lines.push(
        `  ✗ ${entry.code}  ${entry.where}  in ${entry.answers} answer${entry.answers === 1 ? '' : 's'} (${[...entry.operations].join(', ')}): ${entry.message}`,
      );
      if (entry.request !== undefined) lines.push(`    e.g. ${entry.request}`);
    }
  }
}

export default class ContractReporter implements Reporter {
  result: RunResult = { passed: 0, failed: 0, skipped: 0, warnings: 0, errors: 0, rows: new Map() };
  #vitest: Vitest | undefined;
  readonly #write: (text: string) => void;
  readonly #coverageFile: string | undefined;

  /** `coverageFile`: where to write the coverage JSON (else CONTRACT_COVERAGE, else nowhere). */
  constructor(
    write: (text: string) => void = (text) => process.stdout.write(text),
    coverageFile: string | undefined = process.env['CONTRACT_COVERAGE']?.trim() || undefined,
  ) {
    this.#write = write;
    this.#coverageFile = coverageFile;
  }

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const tally = collect(modules);
    const { total, moduleErrors } = tally;
    const provided = this.#vitest?.getRootProject().getProvidedContext().contract;
    const lines: string[] = [];
    headerLines(lines, provided);
    failureLines(lines, tally.failures, [...moduleErrors, ...unhandledErrors.map((e) => e.message)]);
    tableLines(lines, tally.rows);
    coverageLines(lines, tally.coverage, provided, this.#coverageFile);
    const warningCount = noteLines(lines, tally);
    const errors = moduleErrors.length + unhandledErrors.length;
    const strict = provided?.config.strict === true;
    if (strict && total.skipped > 0)
      lines.push(
        '',
        `strict (CONTRACT_STRICT=1 or --strict): the ${total.skipped} skipped test${total.skipped === 1 ? '' : 's'} above count${total.skipped === 1 ? 's' : ''} as failures; give the variables they need`,
      );
    if (total.passed + total.failed === 0 && errors === 0) lines.push('', 'contract: nothing was checked (every test was skipped); give the variables above');
    distinctLines(lines, tally.distinct, total);
    const ok = total.failed === 0 && errors === 0 && !(strict && total.skipped > 0);
    // A refused token explains most failures: the last line, where a CI log is read, says so.
    const refused = provided?.refused ?? [];
    const cause =
      refused.length > 0 ? ` (the server refuses ${refused.join(', ')}: it answers 401 to ${refused.length === 1 ? 'it' : 'them'}; see the first lines)` : '';
    lines.push(
      '',
      `contract: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped, ${warningCount} warnings${errors ? `, ${errors} errors` : ''} — ${ok ? 'PASS' : 'FAIL'}${cause}`,
      '',
    );
    this.result = { ...total, warnings: warningCount, errors, rows: tally.rows };
    // Every line may hold text from outside (a target's answer, a request, a test's message): each is printed with its
    // unprintable characters escaped (printable), so nothing from outside starts a line or an ANSI sequence of its own.
    this.#write(lines.map(printable).join('\n'));
  }
}
