// README.md's map (its first section): every folder and file it names exists, and each change task's guide links to
// a heading that exists, so the first thing a newcomer reads cannot point at a folder that moved.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './run.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const map = readme.slice(readme.indexOf('## The map'), readme.indexOf('\n## ', readme.indexOf('## The map') + 1));

/** The repository paths a text names: `a/b/`, `a/b.ts` in the diagram's labels and in backticks. */
function namedPaths(text: string): string[] {
  const found = text.match(/(?<![\w./#<-])(?:[\w.-]+\/)+(?:[\w.-]+\.\w+)?(?![\w/#-])/g) ?? [];
  return [...new Set(found.filter((path) => !path.startsWith('http') && !path.startsWith('api/')))];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/\s/g, '-');

describe("README.md's map", () => {
  it('is the first section, after the two commands, with a Mermaid diagram of the core, the adapters and the extras', () => {
    expect(readme.indexOf('npm ci && npm start')).toBeLessThan(readme.indexOf('## The map'));
    expect(readme.indexOf('## The map')).toBe(readme.indexOf('\n## ') + 1);
    expect(map).toContain('```mermaid\nflowchart');
    for (const group of ['subgraph core [Core]', 'subgraph adapters [Adapters]', 'subgraph extras [Extras]']) expect(map).toContain(group);
  });

  it('names only folders and files that exist', () => {
    const paths = namedPaths(map);
    expect(paths).toEqual(expect.arrayContaining(['spec/lib/', 'mock/src/core/', 'mock/src/operations/', 'contract-tests/model/', 'mock/bench/']));
    expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('links each change task to a heading of its guide', () => {
    const links = [...map.matchAll(/\]\(([^)#]+)#([^)]+)\)/g)].map((m) => [m[1] ?? '', m[2] ?? ''] as const);
    expect(links.map(([, id]) => id)).toEqual(['add-an-operation', 'change-a-production-text', 'add-a-persona']);
    for (const [file, id] of links) {
      const headings = [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1] ?? ''));
      expect(headings, `${file}#${id}`).toContain(id);
    }
  });

  it('finds the paths a text names, and not the words around them', () => {
    expect(namedPaths('x["bench<br/>mock/bench/ · spec/tools/release.ts"] `cli/` and/or POST /api/external/v1')).toEqual([
      'mock/bench/',
      'spec/tools/release.ts',
      'cli/',
    ]);
  });
});
