// The contract through change: compares two OpenAPI 3.1 documents and grades every change by what it does to a
// client written against the base. The structural comparison, and the rule ids where it has them, are Redocly's
// (`redocly diff`, a dependency of the package already); what this adds is the level a client reads (ERR breaks a
// client that follows the old contract, WARN may break one and says why, INFO is safe), the direction (request,
// response, document), the operation, `git:` refs, and the version policy (`api-version-not-bumped`).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { isObject } from '../lib/openapi.ts';
import { type Change, change, LEVELS, type Level } from './change.ts';
import { exampleChanges } from './example-changes.ts';
import { copySpecFiles, DiffInputError, READ_LIMITS, readSpecFiles } from './read-spec-files.ts';
import { type Direction, directionsOf, METHODS, operationsAt, reachOf, unescapePointer } from './reach.ts';

export { type Change, change, LEVELS, type Level } from './change.ts';

export type DiffReport = { base: string; revision: string; changes: Change[]; counts: Record<Level, number> };

export { DiffInputError } from './read-spec-files.ts';

// ── loading ─────────────────────────────────────────────────────────────────────────────────────────────────────

/** The repository root of this file (spec/diff/ → ../..), or of the compiled file (dist/spec/diff/ → ../../..). */
function repositoryRoot(): string {
  const here = dirname(new URL(import.meta.url).pathname);
  for (const up of ['../..', '../../..']) {
    const root = resolve(here, up);
    if (existsSync(join(root, 'spec', 'openapi.yaml')) && existsSync(join(root, '.git'))) return root;
  }
  return process.cwd();
}

function run(
  file: string,
  args: ReadonlyArray<string>,
  options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((done) => {
    const settings = { cwd: options.cwd, env: options.env, timeout: options.timeout ?? 0, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' } as const;
    const child = execFile(file, args, settings, (error, stdout, stderr) => {
      const code = error && typeof error.code === 'number' ? error.code : error ? 1 : 0;
      done({ code, stdout, stderr, timedOut: error?.killed === true && error.signal === 'SIGTERM' });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** The Redocly CLI's entry, from wherever the package's dependencies are installed (an optional peer when installed). */
export function redoclyEntry(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const manifest = require.resolve('@redocly/cli/package.json');
    const bin: unknown = JSON.parse(readFileSync(manifest, 'utf8')).bin;
    const relative = typeof bin === 'string' ? bin : isObject(bin) && typeof bin['redocly'] === 'string' ? bin['redocly'] : undefined;
    return relative ? join(dirname(manifest), relative) : undefined;
  } catch {
    return undefined;
  }
}

/** How long one Redocly run may take on documents within the read limits. */
const REDOCLY_TIMEOUT_MS = 60_000;

/**
 * Redocly, run offline on files this process wrote: in an empty folder of its own (no redocly.yaml of anyone's is read),
 * with its telemetry and update check off (no request leaves the machine), for at most REDOCLY_TIMEOUT_MS.
 */
async function redocly(args: ReadonlyArray<string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const entry = redoclyEntry();
  if (!entry) throw new DiffInputError('the diff needs @redocly/cli: npm install --save-dev @redocly/cli');
  const cwd = mkdtempSync(join(tmpdir(), 'api-diff-cwd-'));
  try {
    const env = {
      ...process.env,
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SDK_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
      REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
      NO_UPDATE_NOTIFIER: '1',
    };
    const ran = await run(process.execPath, [entry, ...args], { cwd, env, timeout: REDOCLY_TIMEOUT_MS });
    if (ran.timedOut) throw new DiffInputError(`redocly ${args[0] ?? ''} took over ${REDOCLY_TIMEOUT_MS / 1000} s`);
    return ran;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** A document as given: its text on disk (one file, JSON or YAML), ready for Redocly; `cleanup` removes what was made. */
type Loaded = { file: string; document: Record<string, unknown>; cleanup(): void };

/** One entry of `git ls-tree -r -l -z`: its mode, type, object, size in bytes ('-' for none) and path. */
type TreeEntry = { mode: string; type: string; object: string; size: number; path: string };

function treeEntries(listing: string): TreeEntry[] {
  return listing
    .split('\0')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      const [mode = '', type = '', object = '', size = '-'] = line.slice(0, tab).split(/ +/);
      return { mode, type, object, size: size === '-' ? 0 : Number(size), path: line.slice(tab + 1) };
    });
}

/**
 * `git:<ref>`: this repository's spec/ at that ref, written to a temporary folder (split files and all). Its size is
 * checked from git's listing before anything is written out (READ_LIMITS.treeBytes, treeFiles), and each file is
 * written from its blob as it is (no `git archive`: its export-subst attribute, which a commit can set, would expand
 * text past what was checked). A symlink is written as a symlink, which readSpecFiles then confines.
 */
async function fromGit(ref: string): Promise<{ file: string; cleanup(): void }> {
  const root = repositoryRoot();
  if (!existsSync(join(root, '.git'))) throw new DiffInputError(`git:${ref}: git refs need a git checkout of this repository (none at ${root})`);
  if (!/^[\w./~^@{}:-]+$/.test(ref) || ref.startsWith('-')) throw new DiffInputError(`git:${ref}: not a git ref`);
  const verified = await run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: root });
  if (verified.code !== 0) throw new DiffInputError(`git:${ref}: unknown git ref in ${root}`);
  const commit = verified.stdout.trim();
  const listed = await run('git', ['ls-tree', '-r', '-l', '-z', '--full-tree', commit, '--', 'spec/'], { cwd: root });
  if (listed.code !== 0) throw new DiffInputError(`git:${ref}: cannot list spec/ (${listed.stderr.trim().split('\n')[0] ?? ''})`);
  const entries = treeEntries(listed.stdout).filter((e) => e.type === 'blob');
  const bytes = entries.reduce((sum, e) => sum + e.size, 0);
  if (entries.length > READ_LIMITS.treeFiles)
    throw new DiffInputError(`git:${ref}: spec/ holds ${entries.length} files, over the ${READ_LIMITS.treeFiles} the diff reads at a git ref`);
  if (bytes > READ_LIMITS.treeBytes)
    throw new DiffInputError(
      `git:${ref}: spec/ holds ${(bytes / 1024 / 1024).toFixed(1)} MB, over the ${READ_LIMITS.treeBytes / 1024 / 1024} MB the diff reads at a git ref`,
    );
  if (!entries.some((e) => e.path === 'spec/openapi.yaml')) throw new DiffInputError(`git:${ref}: has no spec/openapi.yaml`);
  const dir = mkdtempSync(join(tmpdir(), 'api-diff-'));
  try {
    // Every blob at once, in the order listed: `<object> blob <size>\n<bytes>\n` each.
    const blobs = await new Promise<Buffer>((done, refuse) => {
      const child = execFile(
        'git',
        ['cat-file', '--batch'],
        { cwd: root, encoding: 'buffer', maxBuffer: bytes + entries.length * 64 + 1024, timeout: 120_000 },
        (error, stdout) => (error ? refuse(new DiffInputError(`git:${ref}: cannot read spec/ (${firstLine(error)})`)) : done(stdout)),
      );
      child.stdin?.end(entries.map((e) => `${e.object}\n`).join(''));
    });
    let at = 0;
    for (const entry of entries) {
      const newline = blobs.indexOf(10, at);
      const size = Number(/ (\d+)$/.exec(blobs.subarray(at, newline).toString('latin1'))?.[1] ?? Number.NaN);
      if (size !== entry.size) throw new DiffInputError(`git:${ref}: spec/ changed while it was read`);
      const content = blobs.subarray(newline + 1, newline + 1 + size);
      at = newline + 1 + size + 1;
      const target = resolve(dir, entry.path);
      if (!target.startsWith(`${dir}/`) || entry.path.split('/').includes('..')) throw new DiffInputError(`git:${ref}: an odd path in spec/`);
      mkdirSync(dirname(target), { recursive: true });
      if (entry.mode === '120000') symlinkSync(content.toString('utf8'), target);
      else writeFileSync(target, content);
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { file: join(dir, 'spec', 'openapi.yaml'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]?.slice(0, 160) ?? '';

/**
 * A document named on the command line, bundled into one JSON document (a split root's relative $refs resolved).
 * JSON with only local refs is read as it is; anything else goes through `redocly bundle`.
 */
export async function loadDocument(given: string): Promise<Loaded> {
  return bundleRead(await readDocument(given));
}

/** A document read and checked (every file within the limits, every reference confined), not yet bundled. */
type Read = { given: string; file: string; read: ReturnType<typeof readSpecFiles>; made: Array<() => void> };

const cleanupAll = (made: Array<() => void>): void => {
  for (const fn of made.reverse()) fn();
};

async function readDocument(given: string): Promise<Read> {
  const made: Array<() => void> = [];
  try {
    let file = given;
    if (given.startsWith('git:')) {
      const checkout = await fromGit(given.slice(4));
      made.push(checkout.cleanup);
      file = checkout.file;
    } else if (!existsSync(given)) throw new DiffInputError(`${given}: no such file`);
    // Every file read within the limits, every reference confined to the document's folder (spec/ at a git ref).
    return { given, file, read: readSpecFiles(file, dirname(resolve(file)), given), made };
  } catch (error) {
    cleanupAll(made);
    throw error;
  }
}

async function bundleRead({ given, file, read, made }: Read): Promise<Loaded> {
  const cleanup = (): void => cleanupAll(made);
  try {
    let document: unknown = read.files.size === 1 ? [...read.files.values()][0] : undefined;
    if (document === undefined || hasExternalReference(document)) {
      const dir = mkdtempSync(join(tmpdir(), 'api-diff-'));
      made.push(() => rmSync(dir, { recursive: true, force: true }));
      const copy = copySpecFiles(read, file, join(dir, 'in'));
      const out = join(dir, 'bundled.json');
      const bundled = await redocly(['bundle', copy, '--ext', 'json', '--output', out, '--lint-config', 'off']);
      const unresolved = /Can't resolve \$ref[^\n]*|Failed to resolve[^\n]*|ENOENT[^\n]*/.exec(`${bundled.stderr}\n${bundled.stdout}`);
      if (unresolved) throw new DiffInputError(`${given}: a $ref cannot be resolved (${unresolved[0].trim().slice(0, 200)})`);
      if (bundled.code !== 0 || !existsSync(out))
        throw new DiffInputError(`${given}: not an OpenAPI document Redocly can read (${(bundled.stderr.trim().split('\n').at(-1) ?? '').slice(0, 200)})`);
      document = JSON.parse(readFileSync(out, 'utf8'));
    }
    if (!isObject(document) || typeof document['openapi'] !== 'string' || !document['openapi'].startsWith('3.'))
      throw new DiffInputError(`${given}: not an OpenAPI 3 document (no "openapi: 3.x" at its root)`);
    const dir = mkdtempSync(join(tmpdir(), 'api-diff-'));
    made.push(() => rmSync(dir, { recursive: true, force: true }));
    const out = join(dir, 'document.json');
    writeFileSync(out, JSON.stringify(document));
    return { file: out, document, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** Whether a document names anything outside itself (a $ref, externalValue … that is not `#…`). */
function hasExternalReference(document: unknown): boolean {
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const item = stack.pop();
    // One push at a time: spreading an array of a million items into push() overflows the stack.
    if (Array.isArray(item)) for (const v of item) stack.push(v);
    else if (isObject(item)) {
      for (const key of ['$ref', 'externalValue']) if (typeof item[key] === 'string' && !String(item[key]).startsWith('#')) return true;
      for (const v of Object.values(item)) stack.push(v);
    }
  }
  return false;
}

// ── Redocly's report ────────────────────────────────────────────────────────────────────────────────────────────

type Verdict = { ruleId: string; impact: string; message: string; location?: { pointer?: string } };
type RedoclyChange = {
  path: string;
  typeName?: string;
  kind: string;
  impact: string;
  property?: string;
  verdicts: Verdict[];
  base?: { pointer?: string; value?: unknown };
  revision?: { pointer?: string; value?: unknown };
};

function redoclyChanges(report: unknown): RedoclyChange[] {
  if (!isObject(report) || !Array.isArray(report['changes'])) throw new Error('redocly diff answered no changes list');
  return report['changes'].filter(isObject).map((c) => ({
    path: String(c['path'] ?? ''),
    typeName: typeof c['typeName'] === 'string' ? c['typeName'] : undefined,
    kind: String(c['kind'] ?? ''),
    impact: String(c['impact'] ?? ''),
    property: typeof c['property'] === 'string' ? c['property'] : undefined,
    verdicts: Array.isArray(c['verdicts']) ? (c['verdicts'].filter(isObject) as unknown as Verdict[]) : [],
    base: isObject(c['base']) ? (c['base'] as RedoclyChange['base']) : undefined,
    revision: isObject(c['revision']) ? (c['revision'] as RedoclyChange['revision']) : undefined,
  }));
}

// ── grading ─────────────────────────────────────────────────────────────────────────────────────────────────────

/** The operation and direction a change is seen through, from the path Redocly walked to it. */
function placeOf(path: string, base: Record<string, unknown>, revision: Record<string, unknown>): { operation: string | null; direction: Direction } {
  const segments = path.replace(/^#\//, '').split('/');
  let operation: string | null = null;
  if (segments[0] === 'paths' && segments[1] !== undefined && segments[2] !== undefined && METHODS.has(segments[2])) {
    const route = unescapePointer(segments[1]);
    for (const document of [revision, base]) {
      const paths = document['paths'];
      const item = isObject(paths) ? paths[route] : undefined;
      const op = isObject(item) ? item[segments[2]] : undefined;
      if (isObject(op) && typeof op['operationId'] === 'string') {
        operation = op['operationId'];
        break;
      }
    }
  }
  const direction: Direction = segments.includes('responses')
    ? 'response'
    : segments.includes('requestBody') || segments.includes('parameters')
      ? 'request'
      : 'document';
  return { operation, direction };
}

/** Rules Redocly applies in one direction only: the direction a change is reported in, whatever path found it. */
const RULE_DIRECTION: Record<string, Direction> = {
  'enum-values-removed': 'request',
  'required-properties-added': 'request',
  'request-body-removed': 'request',
  'request-body-became-required': 'request',
  'parameter-removed': 'request',
  'parameter-became-required': 'request',
  'parameter-serialization-changed': 'request',
  'enum-values-added': 'response',
  'required-properties-removed': 'response',
  'response-removed': 'response',
  'response-header-removed': 'response',
};

const DOCUMENTATION = new Set([
  'description',
  'summary',
  'example',
  'examples',
  'title',
  'externalDocs',
  'tags',
  'deprecated',
  'contact',
  'license',
  'termsOfService',
  'x-tagGroups',
]);
const LOWER_BOUNDS = new Set(['minLength', 'minItems', 'minimum', 'exclusiveMinimum', 'minProperties']);
const UPPER_BOUNDS = new Set(['maxLength', 'maxItems', 'maximum', 'exclusiveMaximum', 'maxProperties']);

/** Whether a bound moved so that fewer values are valid (undefined: it cannot be told, e.g. a new pattern). */
function tightened(property: string | undefined, before: unknown, after: unknown): boolean | undefined {
  if (property === undefined) return undefined;
  const number = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  const [a, b] = [number(before), number(after)];
  if (LOWER_BOUNDS.has(property)) return a === undefined ? b !== undefined : b === undefined ? false : b > a;
  if (UPPER_BOUNDS.has(property)) return a === undefined ? b !== undefined : b === undefined ? false : b < a;
  if (property === 'uniqueItems') return after === true;
  return undefined;
}

/** The types a schema allows, from `type` (a string or a list). */
function typesOf(value: unknown): Set<string> {
  return new Set(typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : []);
}

type Graded = Pick<Change, 'id' | 'level' | 'message'>;

/**
 * One verdict of Redocly's, graded for the direction it was seen in. Redocly rates every rule `major`; where that
 * hides a risk or overstates one, the level follows what a client written to the base meets (spec/README.md, "The
 * contract through change", the rule table).
 */
function gradeVerdict(verdict: Verdict, change: RedoclyChange, direction: Direction): Graded {
  const id = verdict.ruleId;
  const message = verdict.message;
  const before = change.base?.value;
  const after = change.revision?.value;
  switch (id) {
    case 'enum-values-added':
      // Redocly reports it for responses only: a value the old client never saw.
      return { id, level: 'WARN', message: `${message} A client that switches over the old values meets one it does not know.` };
    case 'required-properties-added':
      return direction === 'response' ? { id, level: 'INFO', message: `${message} The response now always sends them.` } : { id, level: 'ERR', message };
    case 'required-properties-removed':
      return direction === 'request' ? { id, level: 'INFO', message: `${message} Clients may now leave them out.` } : { id, level: 'ERR', message };
    case 'schema-type-changed': {
      const [was, now] = [typesOf(before), typesOf(after)];
      const widened = [...was].every((t) => now.has(t)) && now.size > was.size;
      const narrowed = [...now].every((t) => was.has(t)) && now.size < was.size;
      if (direction === 'request' && widened) return { id, level: 'INFO', message: `${message} Requests may now send more.` };
      if (direction === 'response' && narrowed) return { id, level: 'INFO', message: `${message} Responses send less than before.` };
      return { id, level: 'ERR', message };
    }
    case 'schema-constraint-changed': {
      const tighter = tightened(change.property, before, after);
      if (direction === 'request')
        return tighter === false ? { id, level: 'INFO', message: `${message} Requests may now send more.` } : { id, level: 'ERR', message };
      if (direction === 'response')
        return tighter === true
          ? { id, level: 'INFO', message: `${message} Responses stay within the old bound.` }
          : { id, level: 'WARN', message: `${message} A client that relies on the old bound may get values outside it.` };
      return { id, level: 'ERR', message };
    }
    default:
      return { id, level: verdict.impact === 'major' ? 'ERR' : 'INFO', message };
  }
}

const kebab = (text: string): string =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();

/** A change Redocly has no rule for: graded by what changed where. */
function gradeUnruled(change: RedoclyChange, direction: Direction): Graded {
  const what = change.typeName ?? 'node';
  const property = change.property;
  // Where it is in the document (not the path Redocly walked to it through every $ref).
  const located = (change.kind === 'removed' ? change.base?.pointer : change.revision?.pointer) ?? change.path;
  const where = (property !== undefined && located.endsWith(`/${property}`) ? located.slice(0, -property.length - 1) : located).replace(/^#/, '') || '/';
  const did = change.kind === 'modified' ? 'changed' : change.kind === 'added' ? 'was added' : change.kind === 'removed' ? 'was removed' : change.kind;
  if (property !== undefined && (DOCUMENTATION.has(property) || property.startsWith('x-')))
    return { id: 'documentation-changed', level: 'INFO', message: `The ${property} at ${where} ${did}.` };
  const before = change.base?.value;
  const after = change.revision?.value;
  // Redocly rules only the dangerous direction of these; the other direction is graded here, under the same ids.
  if (property === 'required' && change.kind === 'modified') {
    const [was, now] = [new Set(Array.isArray(before) ? before : []), new Set(Array.isArray(after) ? after : [])];
    const added = [...now].filter((n) => !was.has(n)).map(String);
    const removed = [...was].filter((n) => !now.has(n)).map(String);
    if (added.length > 0 && direction !== 'request')
      return { id: 'required-properties-added', level: 'INFO', message: `Properties at ${where} are now always sent: \`${added.join('`, `')}\`.` };
    if (removed.length > 0 && direction === 'request')
      return { id: 'required-properties-removed', level: 'INFO', message: `Inputs at ${where} are no longer required: \`${removed.join('`, `')}\`.` };
  }
  if (property !== undefined && (LOWER_BOUNDS.has(property) || UPPER_BOUNDS.has(property))) {
    const tighter = tightened(property, before, after);
    const moved = `${property} at ${where} changed from ${JSON.stringify(before) ?? 'none'} to ${JSON.stringify(after) ?? 'none'}.`;
    if (direction === 'request')
      return tighter
        ? { id: 'schema-constraint-changed', level: 'ERR', message: moved }
        : { id: 'schema-constraint-changed', level: 'INFO', message: `${moved} Requests may now send more.` };
    if (direction === 'response')
      return tighter
        ? { id: 'schema-constraint-changed', level: 'INFO', message: `${moved} Responses stay within the old bound.` }
        : { id: 'schema-constraint-changed', level: 'WARN', message: `${moved} A client that relies on the old bound may get values outside it.` };
  }
  if (property === 'type' && change.kind === 'modified') {
    const message = `The type at ${where} changed from ${JSON.stringify(before)} to ${JSON.stringify(after)}.`;
    return gradeVerdict({ ruleId: 'schema-type-changed', impact: 'major', message }, change, direction);
  }
  if (what === 'PathItem' && change.kind === 'added') return { id: 'operation-added', level: 'INFO', message: `New operations at ${where}.` };
  if (what === 'Response' && change.kind === 'added') {
    const status = where.split('/').at(-1) ?? '';
    return {
      id: 'response-added',
      level: 'WARN',
      message: `Status ${status} is now documented: a client that handles every documented status needs a branch for it.`,
    };
  }
  if (what === 'Operation' && change.kind === 'added') return { id: 'operation-added', level: 'INFO', message: `A new operation at ${where}.` };
  if (what === 'Schema' && change.kind === 'added' && property === undefined) {
    const name = where.split('/').at(-1) ?? '';
    return direction === 'response'
      ? { id: 'response-property-added', level: 'INFO', message: `Property \`${name}\` was added to the response at ${where}.` }
      : { id: 'request-property-added', level: 'INFO', message: `Optional property \`${name}\` was added to the request at ${where}.` };
  }
  if (property === 'enum' && direction === 'request')
    return { id: 'request-enum-widened', level: 'INFO', message: `The request enum at ${where} accepts more values.` };
  if (property === 'default')
    return { id: 'default-changed', level: 'WARN', message: `The default at ${where} changed: a client that leaves the field out gets another value.` };
  if (property === 'readOnly' || property === 'writeOnly')
    return {
      id: `schema-${kebab(property)}-changed`,
      level: 'WARN',
      message: `${property} at ${where} changed: generated clients send or expect the field differently.`,
    };
  return {
    id: `${kebab(what)}${property ? `-${kebab(property)}` : ''}-${change.kind}`,
    level: change.impact === 'major' ? 'ERR' : 'INFO',
    message: `${what}${property ? ` ${property}` : ''} at ${where} ${did}.`,
  };
}

// ── versions ────────────────────────────────────────────────────────────────────────────────────────────────────

/** A semver version's numbers (prerelease and build ignored), or undefined. */
export function semver(text: unknown): [number, number, number] | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.+-]*)?$/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** The latest version released into `dir` (its `<version>.json` files, by semver), or undefined when there is none. */
export function latestRelease(dir: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const versions = names.map((f) => /^(.+)\.json$/.exec(f)?.[1]).filter((v): v is string => v !== undefined && semver(v) !== undefined);
  const key = (v: string): [number, number, number] => semver(v) ?? [0, 0, 0];
  return versions.sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1] || key(a)[2] - key(b)[2]).at(-1);
}

/** Whether `to` is outside `^from` and above it: the bump a breaking change needs (major, or minor for 0.x). */
export function breakingBump(from: string, to: string): boolean {
  const [a, b] = [semver(from), semver(to)];
  if (!a || !b) return false;
  if (a[0] > 0) return b[0] > a[0];
  if (a[1] > 0) return b[0] > 0 || b[1] > a[1];
  return b[0] > 0 || b[1] > 0 || b[2] > a[2];
}

function infoVersion(document: Record<string, unknown>): string | undefined {
  const info = document['info'];
  return isObject(info) && typeof info['version'] === 'string' ? info['version'] : undefined;
}

// ── the comparison ──────────────────────────────────────────────────────────────────────────────────────────────

const ORDER: Record<Level, number> = { ERR: 0, WARN: 1, INFO: 2 };

/** Compares two loaded documents and grades every change. */
export async function compareDocuments(base: Loaded, revision: Loaded, names: { base: string; revision: string }): Promise<DiffReport> {
  const changes: Change[] = [];
  if (JSON.stringify(base.document) !== JSON.stringify(revision.document)) {
    const answered = await redocly(['diff', base.file, revision.file, '--format', 'json', '--fail-on', 'none', '--lint-config', 'off']);
    let report: unknown;
    try {
      report = JSON.parse(answered.stdout);
    } catch {
      throw new DiffInputError(`redocly diff could not compare them (${(answered.stderr.trim().split('\n').at(-1) ?? '').slice(0, 200)})`);
    }
    const reach = { base: reachOf(base.document), revision: reachOf(revision.document) };
    for (const found of redoclyChanges(report)) {
      // info.version is graded below, with the version policy.
      if (found.typeName === 'Info' && found.property === 'version') continue;
      const place = placeOf(found.path, base.document, revision.document);
      const pointer = (found.kind === 'removed' ? found.base?.pointer : found.revision?.pointer) ?? found.path;
      // A removal is named as the base had it; anything else as the revision has it (the base when it names none).
      const [seen, other] = found.kind === 'removed' ? [reach.base, reach.revision] : [reach.revision, reach.base];
      for (const verdict of found.verdicts.length > 0 ? found.verdicts : [undefined]) {
        const at = verdict?.location?.pointer ?? pointer;
        // Redocly finds a shared component through whichever operation it walked first, once. A one-directional rule
        // is reported in its own direction; any other change to a component once for each direction that shows it.
        const fixed = verdict ? RULE_DIRECTION[verdict.ruleId] : undefined;
        const shown = directionsOf(at, seen);
        const directions: Direction[] = fixed ? [fixed] : shown.length > 0 ? shown : [place.direction];
        for (const direction of directions) {
          const graded = verdict ? gradeVerdict(verdict, found, direction) : gradeUnruled(found, direction);
          let operations = operationsAt(at, direction, seen);
          if (operations.length === 0) operations = operationsAt(at, direction, other);
          if (operations.length === 0 && place.operation !== null) operations = [place.operation];
          // A renamed operation is named by both names: the old one is what its clients know.
          if (graded.id === 'operation-id-changed') operations = [...new Set([...operations, ...operationsAt(at, direction, reach.base)])];
          changes.push(change({ id: graded.id, level: graded.level, direction, operations, pointer: at, message: graded.message }));
        }
      }
    }
    // Redocly compares no examples; their values are graded here.
    changes.push(...exampleChanges(base.document, revision.document));
  }
  const [from, to] = [infoVersion(base.document), infoVersion(revision.document)];
  if (from !== to)
    changes.push({
      id: 'api-version-changed',
      level: 'INFO',
      direction: 'document',
      operation: null,
      operations: [],
      pointer: '#/info/version',
      message: `info.version went from ${from ?? '(none)'} to ${to ?? '(none)'}.`,
    });
  if (changes.some((c) => c.level === 'ERR') && !(from !== undefined && to !== undefined && breakingBump(from, to))) {
    changes.push({
      id: 'api-version-not-bumped',
      level: 'ERR',
      direction: 'document',
      operation: null,
      operations: [],
      pointer: '#/info/version',
      message: `Breaking changes need info.version bumped past ^${from ?? '?'} (${semver(from)?.[0] === 0 ? 'a minor bump for 0.x' : 'a major bump'}), and it is ${to ?? '(none)'}.`,
    });
  }
  return withChanges({ base: names.base, revision: names.revision, changes: [], counts: { ERR: 0, WARN: 0, INFO: 0 } }, changes);
}

/** The report with these changes, sorted (level, then operation, then pointer) and counted. */
export function withChanges(report: DiffReport, changes: ReadonlyArray<Change>): DiffReport {
  const sorted = [...changes].sort(
    (a, b) => ORDER[a.level] - ORDER[b.level] || (a.operation ?? '~').localeCompare(b.operation ?? '~') || a.pointer.localeCompare(b.pointer),
  );
  const counts: Record<Level, number> = { ERR: 0, WARN: 0, INFO: 0 };
  for (const c of sorted) counts[c.level]++;
  return { base: report.base, revision: report.revision, changes: sorted, counts };
}

/** Loads both documents, compares them, and removes what loading made. */
export async function diffDocuments(base: string, revision: string): Promise<DiffReport> {
  // Both are read and checked before either is bundled: odd input is refused before any slow work starts.
  const reads = await Promise.allSettled([readDocument(base), readDocument(revision)]);
  const [readBase, readRevision] = reads;
  if (readBase?.status !== 'fulfilled' || readRevision?.status !== 'fulfilled') {
    for (const r of reads) if (r.status === 'fulfilled') cleanupAll(r.value.made);
    throw reads.find((r) => r.status === 'rejected')?.reason;
  }
  const [loadedBase, loadedRevision] = await Promise.allSettled([bundleRead(readBase.value), bundleRead(readRevision.value)]);
  try {
    if (loadedBase.status === 'rejected') throw loadedBase.reason;
    if (loadedRevision.status === 'rejected') throw loadedRevision.reason;
    return await compareDocuments(loadedBase.value, loadedRevision.value, { base, revision });
  } finally {
    for (const loaded of [loadedBase, loadedRevision]) if (loaded.status === 'fulfilled') loaded.value.cleanup();
  }
}

// ── output ──────────────────────────────────────────────────────────────────────────────────────────────────────

const COLOURS: Record<Level, string> = { ERR: '\u001b[31m', WARN: '\u001b[33m', INFO: '\u001b[2m' };

function groups(report: DiffReport): Array<[string, Change[]]> {
  const byOperation = new Map<string, Change[]>();
  for (const change of report.changes)
    for (const key of change.operations.length > 0 ? change.operations : ['(document)']) byOperation.set(key, [...(byOperation.get(key) ?? []), change]);
  return [...byOperation.entries()];
}

/**
 * One line per change under each operation it reaches; the levels coloured when `colour`. The header counts the lines
 * printed; when a change reaching several operations makes that more than the changes, it says how many changes.
 */
export function formatText(report: DiffReport, colour: boolean): string {
  const paint = (level: Level): string => (colour ? `${COLOURS[level]}${level}\u001b[0m` : level);
  const printed: Record<Level, number> = { ERR: 0, WARN: 0, INFO: 0 };
  const body: string[] = [];
  for (const [operation, changes] of groups(report)) {
    body.push('', operation);
    for (const c of changes) {
      printed[c.level]++;
      body.push(`  ${paint(c.level)}${' '.repeat(5 - c.level.length)}${c.direction.padEnd(9)}${c.id}: ${c.message} (${c.pointer})`);
    }
  }
  const count = (counts: Record<Level, number>): string => LEVELS.map((level) => `${counts[level]} ${level}`).join(', ');
  const same = LEVELS.every((level) => printed[level] === report.counts[level]);
  const header = `${report.base} → ${report.revision}: ${count(printed)}${
    same ? '' : ` (${count(report.counts)} changes: a change is listed under each operation it reaches)`
  }`;
  return `${[header, ...(report.changes.length === 0 ? ['no changes'] : []), ...body].join('\n')}\n`;
}

const HEADINGS: Record<Level, string> = { ERR: 'Breaking', WARN: 'May break', INFO: 'Safe' };

/** The changes as markdown: a heading per level (Breaking, May break, Safe), a bullet per change and operation it reaches. */
export function formatMarkdown(report: DiffReport, heading = '###'): string {
  const out: string[] = [];
  for (const level of LEVELS) {
    const changes = report.changes.filter((c) => c.level === level);
    if (changes.length === 0) continue;
    out.push(`${heading} ${HEADINGS[level]}`, '');
    for (const c of changes)
      for (const operation of c.operations.length > 0 ? c.operations : [undefined])
        out.push(`- ${operation ? `\`${operation}\`: ` : ''}${c.message.replace(/\s+/g, ' ')} (${c.direction}, \`${c.id}\`)`);
    out.push('');
  }
  return out.length ? `${out.join('\n')}` : '- No change to the contract.\n';
}

// ── the CHANGELOG ───────────────────────────────────────────────────────────────────────────────────────────────

/**
 * INFO changes a consumer can act on (something new to use, an input made optional, a bound loosened): listed one by
 * one. Every other INFO change (descriptions, examples, the spec's own structure, the mock's test table) is folded
 * into a line per kind: it changes nothing a client sends or reads.
 */
const ACTIONABLE_INFO = new Set([
  'operation-added',
  'response-property-added',
  'request-property-added',
  'request-enum-widened',
  'required-properties-added',
  'required-properties-removed',
  'schema-type-changed',
  'schema-constraint-changed',
  'property-removed',
  'enum-values-removed',
  'enum-values-added',
]);

/** The kind an INFO change that is not listed one by one is folded into, with the line that says what it means. */
function foldedKind(c: Change): { key: string; line: (count: number, where: string) => string } | undefined {
  if (c.level !== 'INFO' || ACTIONABLE_INFO.has(c.id)) return undefined;
  const plural = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;
  if (c.id === 'behaviour-case-added' || c.id === 'behaviour-case-removed')
    return {
      key: 'cases',
      line: (count, where) =>
        `The mock's behaviour table checks ${plural(count, 'case', 'cases')} more or fewer${where}: what is tested, not what a client gets.`,
    };
  if (c.id === 'documentation-changed' || c.id === 'example-value-changed' || c.id.startsWith('spec-extension-'))
    return {
      key: 'documentation',
      line: (count, where) =>
        `Documentation: ${plural(count, 'description, example or note', 'descriptions, examples or notes')} edited${where}; no change to what a client sends or reads.`,
    };
  if (/^headers?-/.test(c.id) || /\/headers(\/|$)/.test(c.pointer))
    return {
      key: 'headers',
      line: (count, where) =>
        `Response headers described more precisely: ${plural(count, 'edit', 'edits')} of the spec${where}; the headers sent are unchanged.`,
    };
  return {
    key: 'structure',
    line: (count, where) =>
      `The spec's structure: ${plural(count, 'edit', 'edits')} with no effect on a client${where} (\`service-external-api diff\` lists each).`,
  };
}

const operationList = (operations: ReadonlyArray<string>): string => operations.map((o) => `\`${o}\``).join(', ');

/**
 * The changes as a release's CHANGELOG section, for the people who consume the API: a heading per level (Breaking, May
 * break, Safe), one line per change they can act on, naming every operation it reaches once (a change reported in
 * both directions or by several paths, with the same words, is one line), and one line per kind of change that asks
 * nothing of them (documentation, header descriptions, the spec's structure), with how many and where.
 */
export function formatChangelog(report: DiffReport, heading = '###'): string {
  const out: string[] = [];
  for (const level of LEVELS) {
    const listed = new Map<string, { change: Change; operations: Set<string>; directions: Set<string> }>();
    const folded = new Map<string, { line: (count: number, where: string) => string; count: number; operations: Set<string>; document: boolean }>();
    for (const c of report.changes.filter((x) => x.level === level)) {
      const kind = foldedKind(c);
      if (kind) {
        const entry = folded.get(kind.key) ?? { line: kind.line, count: 0, operations: new Set<string>(), document: false };
        entry.count++;
        for (const o of c.operations) entry.operations.add(o);
        if (c.operations.length === 0) entry.document = true;
        folded.set(kind.key, entry);
        continue;
      }
      const key = JSON.stringify([c.id, c.message.replace(/\s+/g, ' ')]);
      const entry = listed.get(key) ?? { change: c, operations: new Set<string>(), directions: new Set<string>() };
      for (const o of c.operations) entry.operations.add(o);
      entry.directions.add(c.direction);
      listed.set(key, entry);
    }
    if (listed.size === 0 && folded.size === 0) continue;
    out.push(`${heading} ${HEADINGS[level]}`, '');
    for (const { change: c, operations, directions } of listed.values()) {
      const names = [...operations].sort();
      out.push(`- ${names.length > 0 ? `${operationList(names)}: ` : ''}${c.message.replace(/\s+/g, ' ')} (${[...directions].join(', ')}, \`${c.id}\`)`);
    }
    for (const { line, count, operations, document } of folded.values()) {
      const names = [...operations].sort();
      const where = names.length === 0 ? '' : ` (${operationList(names)}${document ? ' and the document as a whole' : ''})`;
      out.push(`- ${line(count, where)}`);
    }
    out.push('');
  }
  return out.length ? `${out.join('\n')}` : '- No change to the contract.\n';
}
