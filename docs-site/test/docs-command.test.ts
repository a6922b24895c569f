// `docs --out`: a path ending in / or an existing directory gets index.html inside it (folders
// made as needed), a .html path is the page itself, and anything else is one line naming what to write instead, never
// a file named like the folder the user meant (`--out site` used to write a FILE `site`, and `--out site/` then
// failed with EEXIST).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { docsTarget, placePage } from '../command.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'docs-out-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const built = join(work, 'built.html');
writeFileSync(built, '<!DOCTYPE html><title>page</title>');
mkdirSync(join(work, 'existing'));
writeFileSync(join(work, 'afile'), 'not a folder');

describe('docs --out', () => {
  it.each([
    [undefined, 'api-docs.html'],
    ['site/', 'site/index.html'],
    ['public/docs/', 'public/docs/index.html'],
    ['existing', 'existing/index.html'],
    ['existing/', 'existing/index.html'],
    ['page.html', 'page.html'],
    ['nested/deeper/Page.HTM', 'nested/deeper/Page.HTM'],
  ])('%j writes %s, folders made as needed', (out, file) => {
    const target = docsTarget(out, work);
    expect(target).toEqual({ file: join(work, file) });
    if (!('file' in target)) return;
    expect(placePage(built, target.file)).toBeUndefined();
    expect(readFileSync(target.file, 'utf8')).toBe('<!DOCTYPE html><title>page</title>');
  });

  it('writes into a folder it made before when asked again (no EEXIST)', () => {
    for (let i = 0; i < 2; i++) {
      const target = docsTarget('again/', work);
      if (!('file' in target)) throw new Error(target.error);
      expect(placePage(built, target.file)).toBeUndefined();
    }
    expect(readFileSync(join(work, 'again', 'index.html'), 'utf8')).toContain('page');
  });

  it.each([
    ['web', '--out "web": name a page ending in .html (web.html) or a directory ending in / (web/)'],
    ['notes.txt', '--out "notes.txt": name a page ending in .html (notes.txt.html) or a directory ending in / (notes.txt/)'],
    ['afile/', `--out "afile/": ${join(work, 'afile')} is a file, not a directory`],
    ['  ', '--out must name a file or a directory'],
  ])('%j: one line saying what to write instead, nothing written', (out, error) => {
    expect(docsTarget(out, work)).toEqual({ error });
  });

  it('the command says it in one line on stderr, exit 2, and writes nothing', () => {
    const cwd = mkdtempSync(join(work, 'cli-'));
    const ran = spawnSync(process.execPath, [join(ROOT, 'cli', 'bin.cjs'), 'docs', '--out', 'site'], { cwd, encoding: 'utf8', timeout: 30_000 });
    expect([ran.status, ran.stdout, ran.stderr]).toEqual([
      2,
      '',
      'docs: --out "site": name a page ending in .html (site.html) or a directory ending in / (site/)\n',
    ]);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('refuses a page whose folder is a file, in one line naming it', () => {
    expect(placePage(built, join(work, 'afile', 'page.html'))).toBe(
      `cannot write ${join(work, 'afile', 'page.html')}: ${join(work, 'afile')} is a file, not a directory`,
    );
    expect(readFileSync(join(work, 'afile'), 'utf8')).toBe('not a folder');
  });

  it('refuses a .html name that is a directory', () => {
    mkdirSync(join(work, 'dir.html'));
    // An existing directory is a directory first: the page goes inside it.
    expect(docsTarget('dir.html', work)).toEqual({ file: join(work, 'dir.html', 'index.html') });
  });
});
