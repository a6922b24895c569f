// The version policy, enforced: the spec's info.version is semver and is the package's version, and the
// contract as it stands is compared with the last released one (spec/releases/<version>.json): a breaking change
// with no version bump fails `npm test`, listing what broke, until `npm run release -- <version>` (or a bump of
// info.version and `npm run generate`) says so. The changelog has a section for every release.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffDocuments, semver } from '../diff/diff.ts';
import { releasedVersions } from '../tools/release.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const read = (path: string): unknown => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));
const specVersion = (): unknown => {
  const document = read('generated/openapi.json');
  return typeof document === 'object' &&
    document !== null &&
    'info' in document &&
    typeof document.info === 'object' &&
    document.info !== null &&
    'version' in document.info
    ? document.info.version
    : undefined;
};

describe('the version policy', () => {
  it("info.version is semver and is package.json's version", () => {
    const manifest = read('package.json');
    const version = typeof manifest === 'object' && manifest !== null && 'version' in manifest ? manifest.version : undefined;
    expect(semver(specVersion()), `info.version ${String(specVersion())} is not MAJOR.MINOR.PATCH`).toBeDefined();
    expect(version, "package.json's version follows the spec's info.version: run `npm run generate`").toBe(specVersion());
  });

  it('the contract breaks nothing the last release promised, unless the version says so', async () => {
    const last = releasedVersions().at(-1);
    expect(last, 'spec/releases/ holds the released contracts (npm run release -- <version>)').toBeDefined();
    const report = await diffDocuments(join(ROOT, 'spec', 'releases', `${last}.json`), join(ROOT, 'generated', 'openapi.json'));
    const breaking = report.changes.filter((c) => c.level === 'ERR' && c.id !== 'api-version-not-bumped');
    const listed = breaking.map((c) => `  ${c.operation ?? '(document)'} ${c.direction} ${c.id}: ${c.message}`).join('\n');
    expect(
      report.changes.some((c) => c.id === 'api-version-not-bumped'),
      `breaking changes since ${last}, with info.version still ${String(specVersion())}:\n${listed}\nBump the version (npm run release -- <version>, or info.version in spec/openapi.yaml and npm run generate), or undo them.`,
    ).toBe(false);
  });

  it('CHANGELOG.md has a section for every released version, newest first, and ships in the package', () => {
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
    const sections = [...changelog.matchAll(/^## (\S+) - \d{4}-\d{2}-\d{2}$/gm)].map((m) => m[1]);
    expect(sections).toEqual(releasedVersions().reverse());
    const manifest = read('package.json');
    const files = typeof manifest === 'object' && manifest !== null && 'files' in manifest ? manifest.files : undefined;
    expect(files).toContain('CHANGELOG.md');
  });
});
