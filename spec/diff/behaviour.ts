// `diff --behaviour`: the behaviour behind the document. For two git refs, each checked out in a temporary worktree,
// the mock's behaviour table runs against the mock of that ref (behaviour-runner.ts) and every case whose status, body
// or state effect changed is a change under `behaviour-…` (ERR where a status, a content type or an error body a
// client reads changed; WARN otherwise). Then the contract suite of the base runs against the mock of the revision:
// a client written to the old contract is exactly what that suite is. Every ERR change should make it fail and every
// failure should trace to an ERR change; the disagreements are printed, as bugs in one or the other.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isObject } from '../lib/openapi.ts';
import { change, DiffInputError, type Change } from './diff.ts';
import type { CaseResult } from './behaviour-runner.ts';

type Ran = { code: number; stdout: string; stderr: string };

function run(file: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((done) => {
    execFile(file, args, { cwd, env, maxBuffer: 512 * 1024 * 1024, encoding: 'utf8', timeout: 600_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const HERE = dirname(fileURLToPath(import.meta.url));
/** The repository this file is in (spec/diff → ../..); `git:` refs are refs of it. */
const ROOT = resolve(HERE, '..', '..');

/** A worktree of `ref` in a temporary folder, sharing this checkout's node_modules; `remove` takes it away. */
async function worktree(ref: string): Promise<{ dir: string; commit: string; remove(): Promise<void> }> {
  if (!existsSync(join(ROOT, '.git'))) throw new DiffInputError(`git:${ref}: --behaviour needs a git checkout of this repository`);
  const verified = await run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], ROOT);
  if (verified.code !== 0) throw new DiffInputError(`git:${ref}: unknown git ref in ${ROOT}`);
  const commit = verified.stdout.trim();
  const dir = join(mkdtempSync(join(tmpdir(), 'api-behaviour-')), 'checkout');
  const added = await run('git', ['worktree', 'add', '--detach', '--quiet', dir, commit], ROOT);
  if (added.code !== 0) throw new DiffInputError(`git:${ref}: cannot check it out (${added.stderr.trim().split('\n')[0] ?? ''})`);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return {
    dir,
    commit,
    remove: async () => {
      await run('git', ['worktree', 'remove', '--force', dir], ROOT);
      rmSync(dirname(dir), { recursive: true, force: true });
    },
  };
}

/** What the behaviour table answers against the mock of a checkout; `label` names it in errors. */
async function behaviourOf(dir: string, label: string): Promise<CaseResult[]> {
  const runner = join(HERE, `behaviour-runner${fileURLToPath(import.meta.url).endsWith('.ts') ? '.ts' : '.js'}`);
  const ran = await run(process.execPath, [runner, dir], dir);
  if (ran.code !== 0)
    throw new DiffInputError(
      `${label}: its mock's behaviour table did not run (${(
        ran.stderr
          .trim()
          .split('\n')
          .find((l) => /Error|error/.test(l)) ??
          ran.stderr.trim().split('\n')[0] ??
          ''
      ).slice(0, 200)})`,
    );
  return JSON.parse(ran.stdout) as CaseResult[];
}

/** The operation a case is about: the one whose path it posts to first. */
function operationOf(result: CaseResult, document: Record<string, unknown>): string | null {
  const paths = isObject(document['paths']) ? document['paths'] : {};
  for (const path of result.paths) {
    const item = paths[path.split('?')[0] ?? ''];
    const post = isObject(item) ? item['post'] : undefined;
    if (isObject(post) && typeof post['operationId'] === 'string') return post['operationId'];
  }
  return null;
}

type Seen = { id: string; level: Change['level']; operation: string | null; what: string; example: string };

/** The JSON paths at which two answers' bodies differ (array items under `[]`), or undefined when one is not JSON. */
function bodyDifference(a: string, b: string): string | undefined {
  let x: unknown;
  let y: unknown;
  try {
    x = JSON.parse(a);
    y = JSON.parse(b);
  } catch {
    return undefined;
  }
  const found = new Set<string>();
  const walk = (u: unknown, v: unknown, at: string, depth: number): void => {
    if (found.size >= 8) return;
    if (isObject(u) && isObject(v) && depth < 32) {
      for (const key of new Set([...Object.keys(u), ...Object.keys(v)])) {
        const where = at ? `${at}.${key}` : key;
        if (!(key in u)) found.add(`${where} added`);
        else if (!(key in v)) found.add(`${where} removed`);
        else walk(u[key], v[key], where, depth + 1);
      }
    } else if (Array.isArray(u) && Array.isArray(v) && depth < 32) {
      for (let i = 0; i < Math.min(u.length, v.length); i++) walk(u[i], v[i], `${at}[]`, depth + 1);
      if (u.length !== v.length) found.add(`${at || '(body)'} length`);
    } else if (JSON.stringify(u) !== JSON.stringify(v)) found.add(`${at || '(body)'} value`);
  };
  walk(x, y, '', 0);
  return [...found].sort().join(', ');
}

/** A case's name without the citation it ends with (`(#13)`, `(#11, decision 2)`, `(auth_test.exs …)`). */
const uncited = (name: string): string => name.replace(/\s*\([^()]*\)\s*$/, '').trim();

/**
 * Each case of the revision paired with the base's case that checks the same thing: the same name, else the same
 * requests (a case renamed or re-cited), else the same name but for its citation. Each base case pairs at most once.
 */
function matchCases(base: ReadonlyArray<CaseResult>, revision: ReadonlyArray<CaseResult>): Map<CaseResult, CaseResult> {
  const pairs = new Map<CaseResult, CaseResult>();
  const free = new Set(base);
  const byName = new Map(base.map((r) => [r.name, r]));
  for (const now of revision) {
    const was = byName.get(now.name);
    if (was && free.has(was)) {
      pairs.set(now, was);
      free.delete(was);
    }
  }
  const keys: Array<(r: CaseResult) => string | undefined> = [(r) => r.checks, (r) => uncited(r.name)];
  for (const key of keys) {
    // Only a key one free case on each side has: two cases sending the same requests stay unpaired.
    const unique = (cases: Iterable<CaseResult>): Map<string, CaseResult | null> => {
      const found = new Map<string, CaseResult | null>();
      for (const r of cases) {
        const k = key(r);
        if (k !== undefined && k !== '') found.set(k, found.has(k) ? null : r);
      }
      return found;
    };
    const olds = unique(free);
    const news = unique(revision.filter((r) => !pairs.has(r)));
    for (const [k, now] of news) {
      const was = olds.get(k);
      if (now && was && free.has(was)) {
        pairs.set(now, was);
        free.delete(was);
      }
    }
  }
  return pairs;
}

/**
 * The changes between two runs of the behaviour table: one change per rule or answer that changed (a status, a
 * content type, an error text, the fields of a body, the state an operation leaves), with how many cases show it and
 * one of them, not one per case (a removed response field changes the 200 of every case that reaches it).
 */
export function compareBehaviour(base: ReadonlyArray<CaseResult>, revision: ReadonlyArray<CaseResult>, document: Record<string, unknown>): Change[] {
  const seen: Seen[] = [];
  const unpaired = new Set(base);
  const pairs = matchCases(base, revision);
  for (const now of revision) {
    const was = pairs.get(now);
    const operation = operationOf(now, document);
    if (!was) {
      seen.push({ id: 'behaviour-case-added', level: 'INFO', operation, what: 'New behaviour cases', example: now.name });
      continue;
    }
    unpaired.delete(was);
    for (let i = 0; i < Math.max(was.answers.length, now.answers.length); i++) {
      const [a, b] = [was.answers[i], now.answers[i]];
      if (!a || !b) continue;
      const example = `${now.name}, request ${i + 1} (${now.paths[i] ?? '?'})`;
      if (a.status !== b.status) seen.push({ id: 'behaviour-status-changed', level: 'ERR', operation, what: `Answered ${b.status}, was ${a.status}`, example });
      else if (a.contentType !== b.contentType)
        seen.push({
          id: 'behaviour-content-type-changed',
          level: 'ERR',
          operation,
          what: `The ${a.status} answer's Content-Type is ${b.contentType ?? '(none)'}, was ${a.contentType ?? '(none)'}`,
          example,
        });
      else if (a.text !== b.text) {
        const error = a.status >= 400;
        const what = error
          ? `The ${a.status} body changed from ${JSON.stringify(a.text.slice(0, 120))} to ${JSON.stringify(b.text.slice(0, 120))}`
          : `The ${a.status} body changed (${bodyDifference(a.text, b.text) || 'its text'}): a client reading the same fields may see other values`;
        seen.push({ id: error ? 'behaviour-error-body-changed' : 'behaviour-body-changed', level: error ? 'ERR' : 'WARN', operation, what, example });
      }
    }
    if (was.state !== now.state)
      seen.push({
        id: 'behaviour-state-changed',
        level: 'WARN',
        operation,
        what: 'The state it leaves differs (what a later read sees changed)',
        example: now.name,
      });
  }
  for (const gone of unpaired)
    seen.push({ id: 'behaviour-case-removed', level: 'INFO', operation: operationOf(gone, document), what: 'Behaviour cases are gone', example: gone.name });
  const grouped = new Map<string, Seen[]>();
  for (const s of seen) {
    const key = JSON.stringify([s.id, s.operation, s.what]);
    grouped.set(key, [...(grouped.get(key) ?? []), s]);
  }
  return [...grouped.values()].map((group) => {
    const [first] = group;
    if (!first) throw new Error('an empty group');
    const cases = group.length === 1 ? '1 case' : `${group.length} cases`;
    return change({
      id: first.id,
      level: first.level,
      direction: 'response',
      operations: first.operation === null ? [] : [first.operation],
      pointer: `#/x-behaviour/${first.id}`,
      message: `${first.what}: ${cases}, e.g. ${first.example}.`,
    });
  });
}

/** The contract suite of `suite` (a checkout) against the mock of `mock` (another): exit code and failed tests. */
async function suiteAgainst(suite: string, mock: string): Promise<{ code: number; failed: string[]; summary: string }> {
  const child = spawn(process.execPath, [join(mock, 'mock', 'src', 'main.ts'), '--port', '0'], {
    cwd: mock,
    env: { ...process.env, PORT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout.on('data', (d: Buffer) => (printed += d.toString()));
  try {
    const deadline = Date.now() + 20_000;
    while (!/^port: \d+/m.test(printed)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new DiffInputError(`the revision's mock did not start: ${printed.slice(0, 200)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const port = /^port: (\d+)/m.exec(printed)?.[1];
    const report = join(mkdtempSync(join(tmpdir(), 'api-behaviour-junit-')), 'junit.xml');
    // The suite reads everything else from the mock's fixtures: none of the caller's CONTRACT_ variables.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CONTRACT_')));
    // The command line's place at that ref: cli/ since it had a folder of its own, mock/src/ before.
    const bin = [join(suite, 'cli', 'bin.cjs'), join(suite, 'mock', 'src', 'bin.cjs')].find((file) => existsSync(file)) ?? join(suite, 'cli', 'bin.cjs');
    const ran = await run(process.execPath, [bin, 'contract', '--base-url', `http://127.0.0.1:${port}`, '--report', report], suite, env);
    const xml = existsSync(report) ? readFileSync(report, 'utf8') : '';
    rmSync(dirname(report), { recursive: true, force: true });
    const failed = [...xml.matchAll(/<testcase[^>]*name="([^"]*)"[^>]*>\s*<failure/g)].map((m) =>
      (m[1] ?? '')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>'),
    );
    const summary =
      ran.stdout
        .trim()
        .split('\n')
        .filter((l) => /passed.*failed/.test(l))
        .at(-1) ?? `exit ${ran.code}`;
    return { code: ran.code, failed, summary };
  } finally {
    child.kill('SIGTERM');
  }
}

/** A checkout prepared by the caller (the working tree a release stages, say), named `name` in messages. */
export type PreparedCheckout = { dir: string; name: string };

/**
 * The behaviour changes between two git refs (or a git ref and a checkout the caller prepared: `release` runs the
 * working tree it releases), and (unless `suite` is false) where the base's contract suite disagrees.
 */
export async function behaviourDiff(
  baseRef: string,
  revisionRef: string | PreparedCheckout,
  revisionDocument: Record<string, unknown>,
  documentChanges: ReadonlyArray<Change>,
  options: { suite: boolean } = { suite: true },
): Promise<{ changes: Change[]; notes: string[] }> {
  const base = await worktree(baseRef);
  try {
    const revision =
      typeof revisionRef === 'string' ? await worktree(revisionRef) : { dir: revisionRef.dir, commit: revisionRef.name, remove: async () => undefined };
    const revisionName = typeof revisionRef === 'string' ? revisionRef : revisionRef.name;
    try {
      const [before, after] = await Promise.all([
        behaviourOf(base.dir, `git:${baseRef}`),
        behaviourOf(revision.dir, typeof revisionRef === 'string' ? `git:${revisionRef}` : revisionName),
      ]);
      const changes = compareBehaviour(before, after, revisionDocument);
      // A release wants the changes only; the base's suite against the revision's mock is the command's cross-check.
      if (!options.suite) return { changes, notes: [] };
      const suite = await suiteAgainst(base.dir, revision.dir);
      const notes = [`the contract suite of ${baseRef} against the mock of ${revisionName}: ${suite.summary}`];
      const breaking = [...documentChanges, ...changes].filter((c) => c.level === 'ERR' && c.id !== 'api-version-not-bumped');
      if (breaking.length > 0 && suite.failed.length === 0 && suite.code === 0)
        notes.push(
          `disagreement: ${breaking.length} ERR change(s) that no check of the base's suite noticed: ${[...new Set(breaking.map((c) => c.id))].join(', ')}`,
        );
      if (breaking.length === 0) for (const name of suite.failed) notes.push(`disagreement: the base's suite fails with no ERR change to explain it: ${name}`);
      if (breaking.length > 0) for (const name of suite.failed) notes.push(`fails, as the ERR changes predict: ${name}`);
      return { changes, notes };
    } finally {
      await revision.remove();
    }
  } finally {
    await base.remove();
  }
}
