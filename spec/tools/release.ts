// `npm run release -- <version>`: releases the contract as it stands in the working tree (committed or not). Sets
// spec/openapi.yaml's info.version (and, through `npm run generate`, package.json's), keeps the bundled document as
// spec/releases/<version>.json (what the version gate in `npm test` compares every later edit with), puts a section
// for the version at the top of CHANGELOG.md, written from the diff against the last release (the spec's, and the
// behaviour of the working tree's mock against the last release's), and records what it released as a commit of its
// own (spec/releases/<version>.commit; release-tree.ts). Then commit, tag and publish as usual.
//   node spec/tools/release.ts <version>     exit 0 released, 2 a bad version (one line)
//   node spec/tools/release.ts --sync        info.version := package.json's version, and generate (npm's `version`
//                                            lifecycle script: `npm version minor` bumps both)
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Change, compareDocuments, DiffInputError, formatChangelog, loadDocument, semver, withChanges } from '../diff/diff.ts';
import { isObject, listOperations } from '../lib/openapi.ts';
import { bumpNeeded, lintProblems } from './release-checks.ts';
import { commitRecord, isGitRoot, keepReleaseCommit, releaseCommit, releasedCommit, stageWorkingTree } from './release-tree.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RELEASES = join(ROOT, 'spec', 'releases');
const CHANGELOG = join(ROOT, 'CHANGELOG.md');
const SPEC = join(ROOT, 'spec', 'openapi.yaml');

const INTRO = `# Changelog

The changes to the API contract (\`spec/\`), newest first, one section per released version, as
\`service-external-api diff\` grades them for a client written against the version before: **Breaking** (ERR) changes
break such a client, **May break** (WARN) ones can, **Safe** (INFO) ones do not. A breaking change comes with a major
version (a minor one while the version is 0.x). Changes of behaviour the mock shows (ids \`behaviour-…\`) are listed
with them, from what the last release released to what this one does.
`;

/** Refuses the release: thrown, so the staging copy is removed, and printed as one line, exit 2, by the entry below. */
function fail(message: string): never {
  throw new DiffInputError(message);
}

/** The released versions, oldest first (spec/releases/<version>.json). */
export function releasedVersions(): string[] {
  if (!existsSync(RELEASES)) return [];
  const versions = readdirSync(RELEASES)
    .map((file) => /^(.+)\.json$/.exec(file)?.[1])
    .filter((v): v is string => v !== undefined && semver(v) !== undefined);
  const key = (v: string): number[] => semver(v) ?? [0, 0, 0];
  return versions.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return (x[0] ?? 0) - (y[0] ?? 0) || (x[1] ?? 0) - (y[1] ?? 0) || (x[2] ?? 0) - (y[2] ?? 0);
  });
}

/** spec/openapi.yaml's text with info.version set, or undefined when it has no info.version line. */
function withSpecVersion(text: string, version: string): string | undefined {
  const next = text.replace(/^(info:\n(?:[ \t].*\n)*? {2}version: ).*$/m, `$1${version}`);
  return next === text && !text.includes(`  version: ${version}\n`) ? undefined : next;
}

function setSpecVersion(version: string): void {
  const next = withSpecVersion(readFileSync(SPEC, 'utf8'), version);
  if (next === undefined) fail('spec/openapi.yaml has no info.version line to set');
  writeFileSync(SPEC, next);
}

type Ran = { code: number; stdout: string; stderr: string };
const run = (file: string, args: ReadonlyArray<string>, cwd: string): Promise<Ran> =>
  new Promise((done) => {
    execFile(file, args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 600_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });

/** The line of a tool's output that says what failed (the first naming an error, else the last), for a one-line error. */
const lastWords = (ran: Ran): string => {
  const lines = `${ran.stderr}\n${ran.stdout}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^at /.test(l) && !/^Node\.js v/.test(l));
  return (lines.find((l) => /\b\w*Error\b|\berror\b/i.test(l)) ?? lines.at(-1) ?? `exit ${ran.code}`).slice(0, 300);
};

function generate(): Promise<Ran> {
  return run(process.execPath, [join(ROOT, 'spec', 'tools', 'generate.ts')], ROOT);
}

/**
 * The changelog with a section for `version` at the top: the graded changes, then what stood under `## Unreleased`
 * (notes on the package's other parts, written as they landed), whose heading goes.
 */
export function withRelease(changelog: string, version: string, date: string, section: string): string {
  const unreleased = /^## Unreleased[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog);
  const existing = unreleased ? changelog.replace(unreleased[0], '') : changelog;
  const notes = unreleased?.[1]?.trim() ?? '';
  const body = [section.trim(), notes].filter(Boolean).join('\n\n');
  const at = existing.search(/^## /m);
  const top = at < 0 ? `${existing.trimEnd()}\n\n` : existing.slice(0, at);
  const tail = at < 0 ? '' : existing.slice(at);
  return `${top}## ${version} - ${date}\n\n${body}\n\n${tail}`.replace(/\n{3,}/g, '\n\n').replace(/\n*$/, '\n');
}

/**
 * Writes every file to a temporary name beside it, then renames them all: the release changes every file or none
 * (a failure before the renames leaves only the temporary files, which are removed).
 */
function writeAll(files: ReadonlyMap<string, string>): void {
  const staged: Array<[string, string]> = [];
  try {
    for (const [path, content] of files) {
      mkdirSync(dirname(path), { recursive: true });
      const temporary = join(dirname(path), `.${basename(path)}.release-${process.pid}`);
      writeFileSync(temporary, content);
      staged.push([temporary, path]);
    }
  } catch (error) {
    for (const [temporary] of staged) rmSync(temporary, { force: true });
    throw error;
  }
  for (const [temporary, path] of staged) renameSync(temporary, path);
}

/**
 * Releases `version`: everything is built in a staging copy of the working tree first (the spec with the new version,
 * linted and generated; the diff against the last release, with the behaviour diff of the staged tree's mock against
 * the last release's), the bump is checked against what the changes need, and only then every file is written, at
 * once, with the commit that records them.
 */
async function release(version: string, options: { behaviour: boolean }): Promise<void> {
  const parsed = semver(version);
  if (!parsed || version !== `${parsed[0]}.${parsed[1]}.${parsed[2]}`) fail(`the version must be MAJOR.MINOR.PATCH, got "${version}"`);
  const released = releasedVersions();
  const last = released.at(-1);
  if (released.includes(version)) fail(`${version} is already released (spec/releases/${version}.json)`);
  const lastParsed = last === undefined ? undefined : semver(last);
  if (lastParsed && (parsed[0] - lastParsed[0] || parsed[1] - lastParsed[1] || parsed[2] - lastParsed[2]) < 0)
    fail(`${version} is below the last release, ${last}`);
  const specText = withSpecVersion(readFileSync(SPEC, 'utf8'), version);
  if (specText === undefined) fail('spec/openapi.yaml has no info.version line to set');

  // The staging copy: the working tree as git would commit it (tracked or new files, ignored ones left out), with the
  // new version; outside a git work tree, the files `npm run generate` reads.
  const inGit = await isGitRoot(ROOT);
  const staged = inGit ? await stageWorkingTree(ROOT) : undefined;
  const stage = staged?.dir ?? mkdtempSync(join(tmpdir(), 'api-release-'));
  try {
    if (!staged) {
      cpSync(join(ROOT, 'spec'), join(stage, 'spec'), { recursive: true, filter: (source) => !source.startsWith(RELEASES) });
      // generated/ too: spec/lib, which the generator imports, reads the current runtime document.
      for (const file of ['mock/openapi.yaml', 'mock/redocly.yaml', 'package.json', 'generated'])
        cpSync(join(ROOT, file), join(stage, file), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'));
    }
    writeFileSync(join(stage, 'spec', 'openapi.yaml'), specText);
    const problems = await lintProblems(stage);
    if (problems.length > 0)
      fail(`the spec does not lint, nothing was released: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more: npm run lint:spec)` : ''}`);
    const generated = join(stage, 'generated-next');
    const ran = await run(process.execPath, [join(stage, 'spec', 'tools', 'generate.ts'), '--generated', generated], stage);
    if (ran.code !== 0) fail(`npm run generate fails, nothing was released: ${lastWords(ran)}`);
    const current = join(generated, 'openapi.json');
    const manifest = readFileSync(join(ROOT, 'package.json'), 'utf8').replace(/^( {2}"version": )"[^"]*"/m, `$1${JSON.stringify(version)}`);
    // The staged tree is now what is released (its generated files and version too): the mock the behaviour diff runs.
    for (const name of readdirSync(generated)) cpSync(join(generated, name), join(stage, 'generated', name));
    writeFileSync(join(stage, 'package.json'), manifest);

    let changes: Change[] = [];
    let section: string;
    if (last === undefined) {
      const document: unknown = JSON.parse(readFileSync(current, 'utf8'));
      const ids = listOperations(isObject(document) ? document : {}).map((o) => o.operationId);
      section = `### Safe\n\n- First release of the contract: ${ids.join(', ')}.\n`;
    } else {
      const base = await loadDocument(join(RELEASES, `${last}.json`));
      const revision = await loadDocument(current);
      try {
        const report = await compareDocuments(base, revision, { base: `spec/releases/${last}.json`, revision: 'spec/' });
        changes = report.changes.filter((c) => c.id !== 'api-version-changed' && c.id !== 'api-version-not-bumped');
        const since = options.behaviour && inGit ? await releasedCommit(ROOT, RELEASES, last) : undefined;
        if (options.behaviour && since === undefined)
          process.stderr.write(`release: no commit of ${last} in this repository (spec/releases/${last}.commit), so no behaviour diff\n`);
        if (since !== undefined && staged) {
          // What the mock does: the last release's tree against the staged working tree (a status or a text a client sees).
          const { behaviourDiff } = await import('../diff/behaviour.ts');
          const found = await behaviourDiff(since, { dir: stage, name: 'the working tree' }, revision.document, changes, { suite: false });
          changes.push(...found.changes);
        }
      } finally {
        base.cleanup();
        revision.cleanup();
      }
      const needed = bumpNeeded(last, changes);
      if (needed && !needed.allows(version)) fail(`${version} is too small a bump: ${needed.reason}`);
      section = formatChangelog(withChanges({ base: last, revision: version, changes: [], counts: { ERR: 0, WARN: 0, INFO: 0 } }, changes));
    }

    // Every file the release writes, then written at once.
    const files = new Map<string, string>();
    files.set(SPEC, specText);
    for (const name of readdirSync(generated)) files.set(join(ROOT, 'generated', name), readFileSync(join(generated, name), 'utf8'));
    files.set(join(ROOT, 'package.json'), manifest);
    files.set(join(RELEASES, `${version}.json`), readFileSync(current, 'utf8'));
    const date = new Date().toISOString().slice(0, 10);
    files.set(CHANGELOG, withRelease(existsSync(CHANGELOG) ? readFileSync(CHANGELOG, 'utf8') : INTRO, version, date, section));
    // What is released, recorded as a commit of its own (the working tree with these files), for the next release.
    const recorded = inGit ? await releaseCommit(ROOT, files, `Release ${version} of the API contract (the working tree as released)`) : undefined;
    if (recorded) files.set(join(RELEASES, `${version}.commit`), commitRecord(recorded));
    writeAll(files);
    if (recorded) await keepReleaseCommit(ROOT, version, recorded.commit);
    process.stdout.write(`released ${version}: ${[...files.keys()].map((f) => relative(ROOT, f)).join(', ')}\n`);
  } finally {
    if (staged) staged.remove();
    else rmSync(stage, { recursive: true, force: true });
  }
}

const [first, ...rest] = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    if (first === '--sync') {
      const manifest: unknown = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
      const version = typeof manifest === 'object' && manifest !== null && 'version' in manifest ? manifest.version : undefined;
      if (typeof version !== 'string') fail('package.json has no version');
      setSpecVersion(version);
      const ran = await generate();
      if (ran.code !== 0) fail(`npm run generate fails: ${lastWords(ran)}`);
    } else if (first === undefined || first === '--help') {
      process.stdout.write('usage: npm run release -- <version> [--no-behaviour]   (node spec/tools/release.ts <version>)\n');
      if (first === undefined) process.exitCode = 2;
    } else {
      const unknown = rest.filter((arg) => arg !== '--no-behaviour');
      if (unknown.length > 0) fail(`unknown option ${unknown[0]} (usage: npm run release -- <version> [--no-behaviour])`);
      await release(first, { behaviour: !rest.includes('--no-behaviour') });
    }
  } catch (error) {
    // Never a stack trace: one line, exit 2 for input the release refuses, 1 for anything else.
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    process.stderr.write(`error: ${message}\n`);
    process.exit(error instanceof DiffInputError ? 2 : 1);
  }
}
