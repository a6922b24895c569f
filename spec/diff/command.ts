// The `diff` command: `service-external-api diff [<base> <revision>] [--format text|json|markdown] [--fail-on
// ERR|WARN|never]` (npm run diff -- …); with no documents, the last release against the working tree's spec. Exit 0
// when no change is at or above --fail-on, 1 when one is, 2 for bad input with one line naming what and why.
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  DiffInputError,
  diffDocuments,
  formatMarkdown,
  formatText,
  LEVELS,
  latestRelease,
  loadDocument,
  redoclyEntry,
  withChanges,
  type DiffReport,
  type Level,
} from './diff.ts';

export const DIFF_USAGE = `Usage: service-external-api diff [<base> <revision>] [options]     (in the repository: npm run diff -- …)

Compares two versions of the API contract and grades every change for a client written against <base>:
  ERR   breaks such a client        WARN  may break one (the message says why)        INFO  safe

<base>, <revision>: an OpenAPI 3.1 document (JSON or YAML; a split root with relative $refs works), or
git:<ref> for this repository's spec/ at that git ref (git:HEAD~1, git:v0.1.0). A $ref must name a file inside the
document's folder (spec/ at a git ref): no absolute path, no way out, no URL (nothing is fetched).
With neither: what changed since the last release, the latest spec/releases/<version>.json against the working
tree's spec/openapi.yaml (of the current directory, else of this repository).

  --format F     text (default: one line per change, under each operation it reaches), json, markdown
  --fail-on L    exit 1 when a change is at level L or above: ERR (default), WARN, never (any case: err, warn)
  --behaviour    (git refs only) also run the mock's behaviour table against the mock of each ref and report every
                 case whose status, body or state effect changed (ids behaviour-…), then run the contract suite of
                 <base> against the mock of <revision> and print, on stderr, where it disagrees with the ERR changes
  --traffic FILE.har  also count, for each change, the recorded exchanges it touches (a request the revision would
                 refuse, an answer field the recording carries that the revision removes or retypes): JSON
                 "traffic": { "exchanges": N }, and a sentence in text and markdown
  --help         show this help

Exit: 0 nothing at or above --fail-on, 1 something is, 2 bad input (one line on stderr).
JSON: { "base", "revision", "changes": [{ "id", "level", "direction", "operation", "operations", "pointer", "message" }],
        "counts": { "ERR", "WARN", "INFO" } }`;

const FORMATS = ['text', 'json', 'markdown'] as const;
type Format = (typeof FORMATS)[number];
const FAIL_ON = ['ERR', 'WARN', 'never'] as const;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

/** Whether the report has a change at or above `failOn`. */
export function failsOn(report: DiffReport, failOn: Level | 'never'): boolean {
  if (failOn === 'never') return false;
  const limit = LEVELS.indexOf(failOn);
  return report.changes.some((c) => LEVELS.indexOf(c.level) <= limit);
}

/**
 * The default pair: the latest release (spec/releases/<version>.json) and spec/openapi.yaml, of the current directory
 * or else of the repository this file is in; named relative to the current directory.
 */
function sinceLastRelease(): [string, string] {
  const here = dirname(fileURLToPath(import.meta.url));
  const roots = [process.cwd(), resolve(here, '..', '..'), resolve(here, '..', '..', '..')];
  const root = roots.find((dir) => existsSync(join(dir, 'spec', 'openapi.yaml')) && latestRelease(join(dir, 'spec', 'releases')) !== undefined);
  if (root === undefined)
    fail(
      'diff with no documents compares the last release (spec/releases/<version>.json) with spec/openapi.yaml, and there is none here: give <base> <revision> (see --help)',
    );
  const last = latestRelease(join(root, 'spec', 'releases')) ?? '';
  const shown = (path: string): string => relative(process.cwd(), path) || path;
  return [shown(join(root, 'spec', 'releases', `${last}.json`)), shown(join(root, 'spec', 'openapi.yaml'))];
}

/** `--traffic FILE.har`: the report with each change's `traffic` (contract-tests/har/diff-traffic.ts, given by cli/cli.ts). */
export type TrafficHook = (report: DiffReport, file: string, describe: boolean) => DiffReport;

export async function runDiff(argv: string[], traffic?: TrafficHook): Promise<void> {
  const parse = () =>
    parseArgs({
      args: argv,
      options: {
        format: { type: 'string' },
        'fail-on': { type: 'string' },
        behaviour: { type: 'boolean' },
        traffic: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: true,
    });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    fail(`${error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)} (see --help)`);
  }
  if (parsed.values.help) {
    process.stdout.write(`${DIFF_USAGE}\n`);
    return;
  }
  const format = parsed.values.format ?? 'text';
  if (!FORMATS.includes(format as Format)) fail(`--format must be ${FORMATS.join(', ')}, got "${format}"`);
  // Any case: --fail-on err, Warn, NEVER.
  const given = parsed.values['fail-on'] ?? 'ERR';
  const failOn = FAIL_ON.find((level) => level.toLowerCase() === given.toLowerCase());
  if (failOn === undefined) fail(`--fail-on must be ${FAIL_ON.join(', ')} (any case), got "${given}"`);
  // No document: what changed since the last release (the latest spec/releases/<version>.json, the working tree's spec).
  const [base, revision, ...extra] = parsed.positionals.length === 0 ? sinceLastRelease() : parsed.positionals;
  if (base === undefined || revision === undefined) fail('diff needs two documents: <base> <revision> (see --help)');
  if (extra.length > 0) fail(`diff takes two documents, got ${parsed.positionals.length}: ${extra.join(' ')}`);
  if (parsed.values.behaviour && !(base.startsWith('git:') && revision.startsWith('git:')))
    fail('--behaviour compares the mocks of two git refs: give git:<ref> for both');
  if (!redoclyEntry()) fail('the diff command needs the optional peer @redocly/cli: npm install --save-dev @redocly/cli');
  let report: DiffReport;
  try {
    report = await diffDocuments(base, revision);
    if (parsed.values.behaviour) {
      const loaded = await loadDocument(revision);
      loaded.cleanup();
      const { behaviourDiff } = await import('./behaviour.ts');
      const found = await behaviourDiff(base.slice(4), revision.slice(4), loaded.document, report.changes);
      report = withChanges(report, [...report.changes, ...found.changes]);
      for (const note of found.notes) process.stderr.write(`behaviour: ${note}\n`);
    }
  } catch (error) {
    if (error instanceof DiffInputError) fail(error.message);
    throw error;
  }
  const har = parsed.values.traffic;
  if (har !== undefined && traffic !== undefined) {
    try {
      report = traffic(report, har, format !== 'json');
    } catch (error) {
      fail(`--traffic ${har} ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const out =
    format === 'json'
      ? `${JSON.stringify(report, null, 2)}\n`
      : format === 'markdown'
        ? formatMarkdown(report)
        : formatText(report, process.stdout.isTTY === true);
  process.stdout.write(out);
  process.exitCode = failsOn(report, failOn) ? 1 : 0;
}
