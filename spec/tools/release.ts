// `npm run release -- <version>`: releases the contract as it stands. Sets spec/openapi.yaml's info.version (and, through
// `npm run generate`, package.json's), keeps the bundled document as spec/releases/<version>.json (what the version
// gate in `npm test` compares every later edit with), and puts a section for the version at the top of CHANGELOG.md,
// written from the diff against the last release. Then commit, tag and publish as usual.
//   node spec/tools/release.ts <version>     exit 0 released, 2 a bad version (one line)
//   node spec/tools/release.ts --sync        info.version := package.json's version, and generate (npm's `version`
//                                            lifecycle script: `npm version minor` bumps both)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareDocuments, formatMarkdown, loadDocument, semver } from '../diff/diff.ts';
import { isObject, listOperations } from '../lib/openapi.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RELEASES = join(ROOT, 'spec', 'releases');
const CHANGELOG = join(ROOT, 'CHANGELOG.md');
const SPEC = join(ROOT, 'spec', 'openapi.yaml');

const INTRO = `# Changelog

The changes to the API contract (\`spec/\`), newest first, one section per released version, as
\`service-external-api diff\` grades them for a client written against the version before: **Breaking** (ERR) changes
break such a client, **May break** (WARN) ones can, **Safe** (INFO) ones do not. A breaking change comes with a major
version (a minor one while the version is 0.x).
`;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
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

function setSpecVersion(version: string): void {
  const text = readFileSync(SPEC, 'utf8');
  const next = text.replace(/^(info:\n(?:[ \t].*\n)*? {2}version: ).*$/m, `$1${version}`);
  if (next === text && !text.includes(`  version: ${version}\n`)) fail('spec/openapi.yaml has no info.version line to set');
  writeFileSync(SPEC, next);
}

function generate(): void {
  execFileSync(process.execPath, [join(ROOT, 'spec', 'tools', 'generate.ts')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function release(version: string): Promise<void> {
  const parsed = semver(version);
  if (!parsed || version !== `${parsed[0]}.${parsed[1]}.${parsed[2]}`) fail(`the version must be MAJOR.MINOR.PATCH, got "${version}"`);
  const released = releasedVersions();
  const last = released.at(-1);
  if (released.includes(version)) fail(`${version} is already released (spec/releases/${version}.json)`);
  const lastParsed = last === undefined ? undefined : semver(last);
  if (lastParsed && (parsed[0] - lastParsed[0] || parsed[1] - lastParsed[1] || parsed[2] - lastParsed[2]) < 0)
    fail(`${version} is below the last release, ${last}`);
  setSpecVersion(version);
  generate();
  const current = join(ROOT, 'generated', 'openapi.json');
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
      const contract = { ...report, changes: report.changes.filter((c) => c.id !== 'api-version-changed') };
      section = formatMarkdown(contract);
    } finally {
      base.cleanup();
      revision.cleanup();
    }
  }
  mkdirSync(RELEASES, { recursive: true });
  writeFileSync(join(RELEASES, `${version}.json`), readFileSync(current, 'utf8'));
  const date = new Date().toISOString().slice(0, 10);
  const existing = existsSync(CHANGELOG) ? readFileSync(CHANGELOG, 'utf8') : INTRO;
  const at = existing.search(/^## /m);
  const head = at < 0 ? `${existing.trimEnd()}\n\n` : existing.slice(0, at);
  const tail = at < 0 ? '' : existing.slice(at);
  writeFileSync(CHANGELOG, `${head}## ${version} - ${date}\n\n${section.trimEnd()}\n\n${tail}`.replace(/\n{3,}/g, '\n\n').replace(/\n*$/, '\n'));
  process.stdout.write(`released ${version}: spec/releases/${version}.json, CHANGELOG.md, spec/openapi.yaml and package.json set to ${version}\n`);
}

const [first] = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1]}`) {
  if (first === '--sync') {
    const manifest: unknown = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const version = typeof manifest === 'object' && manifest !== null && 'version' in manifest ? manifest.version : undefined;
    if (typeof version !== 'string') fail('package.json has no version');
    setSpecVersion(version);
    generate();
  } else if (first === undefined || first === '--help') {
    process.stdout.write('usage: npm run release -- <version>   (node spec/tools/release.ts <version>)\n');
    if (first === undefined) process.exitCode = 2;
  } else await release(first);
}
