// The layers of the mock, of the contract suite and of the spec are folders, and imports between them run one way,
// downwards: a newcomer can tell from a file's folder what it may use. mock/README.md ("Where things are") and
// contract-tests/README.md name the layers; this test holds the code to them, import by import (TypeScript's own
// preprocessor lists a file's imports, dynamic `import()` included).
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './run.ts';

/** A folder's layers, top first: a file may import its own layer's files and those of the layers below it. */
type Layering = {
  folder: string;
  layers: ReadonlyArray<string> /** files outside the layers (entry points on top, leaves that import nothing). */;
  free: ReadonlyArray<string>;
};

const MOCK: Layering = {
  folder: 'mock/src',
  layers: ['server', 'core', 'operations', 'storage', 'answers', 'domain'],
  free: ['index.ts', 'msw.ts', 'main.ts', 'limits.ts', 'stages.ts'],
};
/**
 * The suite's layers, with its commands on top: replay re-sends what drift reads, drift runs the proxy's filing over a
 * recording, the proxy checks live traffic with the model and records it through har/, which the coverage command
 * reads too; harness, io and model are the suite's own.
 */
const SUITE: Layering = { folder: 'contract-tests', layers: ['replay', 'drift', 'coverage', 'proxy', 'har', 'harness', 'io', 'model'], free: [] };

/** What crosses between the two folders, and why (README.md, `cli/`'s row). Anything else is a finding. */
const CROSSING: ReadonlyArray<[from: RegExp, to: RegExp]> = [
  // The proxy, a local server like the mock's, answers the same Host and Origin checks and reads options the same way.
  [/^contract-tests\/proxy\//, /^mock\/src\/(core\/guard|server\/hosts|server\/options)\.ts$/],
  // The proxy's bench starts the mock the way the mock's bench does.
  [/^contract-tests\/proxy\/bench\.ts$/, /^mock\/bench\/launch\.ts$/],
];

/**
 * The spec's own folders, bottom up, and the folders each may import besides its own: generated/ holds the tool
 * output everything reads, spec/lib the spec model on top of it, and the spec's tools sit on the model. None of them
 * may use the mock, the suite, the docs or the CLI above them (`npm run build` runs the docs' build as a process), so
 * no circle through spec/lib can form. The spec's tests (spec/test/) may use anything, like every folder's tests.
 */
const SPEC_FOLDERS: ReadonlyArray<{ folder: string; may: ReadonlyArray<string> }> = [
  { folder: 'generated', may: [] },
  { folder: 'spec/lib', may: ['generated'] },
  { folder: 'spec/diff', may: ['spec/lib', 'generated'] },
  { folder: 'spec/tools', may: ['spec/diff', 'spec/lib', 'generated'] },
  { folder: 'spec/compat', may: ['spec/tools', 'spec/lib', 'generated'] },
];

/** Of the spec's folders, only the model (spec/lib) and generated/ are for the code above: the rest is tooling. */
const SPEC_FOR_ALL = ['spec/lib/', 'generated/'];
/** Test folders, which may use anything, and cli/, the top, which runs the spec's diff command. */
const ANY_SPEC = /^(spec\/test|mock\/test|contract-tests\/selftest|docs-site\/test|cli)\//;

const inFolder = (file: string, folder: string): boolean => file.startsWith(`${folder}/`);

/** Every import out of a spec folder into a folder it may not use, and every use of the spec's tooling from above. */
function specImports(graph: ReadonlyMap<string, ReadonlyArray<string>>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const own = SPEC_FOLDERS.find(({ folder }) => inFolder(from, folder));
    for (const to of targets) {
      if (own) {
        if (!inFolder(to, own.folder) && !own.may.some((folder) => inFolder(to, folder)))
          found.push(`${from} → ${to} (${own.folder} may use ${own.may.join(', ') || 'nothing'})`);
      } else if (
        (to.startsWith('spec/') || to.startsWith('generated/')) &&
        !from.startsWith('spec/') &&
        !ANY_SPEC.test(from) &&
        !SPEC_FOR_ALL.some((p) => to.startsWith(p))
      )
        found.push(`${from} → ${to} (only spec/lib and generated/ are for the code above the spec)`);
    }
  }
  return found;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|cjs|mjs)$/.test(entry.name) && !entry.parentPath.includes('node_modules'))
    .map((entry) => posix.join(relative(ROOT, entry.parentPath).split('\\').join('/'), entry.name));
}

/** The repository files a file imports (relative specifiers only: packages are not layers). */
function importsOf(file: string, text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => posix.normalize(posix.join(posix.dirname(file), name)));
}

/** The layer index of a file in a layering (0 is the top), `free` for the files outside them, undefined outside the folder. */
function layerOf(layering: Layering, file: string): number | 'free' | undefined {
  if (!file.startsWith(`${layering.folder}/`)) return undefined;
  const rest = file.slice(layering.folder.length + 1);
  if (layering.free.includes(rest)) return 'free';
  const index = layering.layers.indexOf(rest.split('/')[0] ?? '');
  return index === -1 ? undefined : index;
}

/** Every import that runs upwards, or into a file of no layer, as `from → to`. */
function upwardImports(layering: Layering, graph: ReadonlyMap<string, ReadonlyArray<string>>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const own = layerOf(layering, from);
    if (own === undefined || own === 'free') continue;
    for (const to of targets) {
      const theirs = layerOf(layering, to);
      if (theirs === 'free') {
        if (to !== `${layering.folder}/limits.ts` && to !== `${layering.folder}/stages.ts`) found.push(`${from} → ${to} (an entry point)`);
      } else if (theirs !== undefined && theirs < own) found.push(`${from} → ${to} (${layering.layers[own]} may not use ${layering.layers[theirs]})`);
    }
  }
  return found;
}

/** The import circles of a graph (Tarjan's strongly connected components of two files or more), each as its files. */
function circles(graph: ReadonlyMap<string, ReadonlyArray<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    for (const to of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(to) ?? 0));
      } else if (stack.includes(to)) low.set(file, Math.min(low.get(file) ?? 0, index.get(to) ?? 0));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let top: string | undefined;
    do {
      top = stack.pop();
      if (top !== undefined) component.push(top);
    } while (top !== undefined && top !== file);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const graph = new Map<string, string[]>();
for (const file of ['mock', 'contract-tests', 'docs-site', 'cli', 'spec', 'generated'].flatMap(filesUnder)) {
  graph.set(file, importsOf(file, readFileSync(join(ROOT, file), 'utf8')));
}

describe('the layers are folders, and imports run downwards', () => {
  it('mock/src: server → core → operations → storage → answers → domain, and nothing in a layer uses an entry point', () => {
    const layered = [...graph.keys()].filter((file) => file.startsWith('mock/src/'));
    expect(layered.filter((file) => layerOf(MOCK, file) === undefined)).toEqual([]);
    expect(upwardImports(MOCK, graph)).toEqual([]);
  });

  it('the contract suite: replay → drift → coverage → proxy → har → harness → io → model, and the tests use them from outside', () => {
    const layered = [...graph.keys()].filter((file) => /^contract-tests\/[^/]+\//.test(file) && !/^contract-tests\/(selftest|tests)\//.test(file));
    expect(layered.filter((file) => layerOf(SUITE, file) === undefined)).toEqual([]);
    expect(upwardImports(SUITE, graph)).toEqual([]);
  });

  it('the suite and the mock do not import each other, except what README.md says the proxy shares', () => {
    const crossings = [...graph].flatMap(([from, targets]) =>
      targets
        .filter(
          (to) =>
            (from.startsWith('contract-tests/') && !from.startsWith('contract-tests/selftest/') && to.startsWith('mock/')) ||
            (from.startsWith('mock/') && !from.startsWith('mock/test/') && to.startsWith('contract-tests/')),
        )
        .filter((to) => !CROSSING.some(([a, b]) => a.test(from) && b.test(to)))
        .map((to) => `${from} → ${to}`),
    );
    expect(crossings).toEqual([]);
  });

  it('spec/: generated ← spec/lib ← spec/diff ← spec/tools ← spec/compat, and only the model and generated/ are for the code above', () => {
    expect([...graph.keys()].filter((file) => file.startsWith('spec/lib/'))).toContain('spec/lib/openapi.ts');
    expect(specImports(graph)).toEqual([]);
  });

  it('has no import circle, type-only imports included: each file can be read before the files that use it', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('finds an import that runs upwards, one into an entry point, and a circle', () => {
    expect(
      circles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', ['a.ts', 'd.ts']],
          ['d.ts', []],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    const made = new Map([
      ['mock/src/domain/state.ts', ['mock/src/server/app.ts', 'mock/src/limits.ts']],
      ['mock/src/core/core.ts', ['mock/src/domain/state.ts', 'mock/src/index.ts']],
    ]);
    expect(upwardImports(MOCK, made)).toEqual([
      'mock/src/domain/state.ts → mock/src/server/app.ts (domain may not use server)',
      'mock/src/core/core.ts → mock/src/index.ts (an entry point)',
    ]);
    // The spec's folders: the build importing the docs (upward), the model importing the mock (a circle with the
    // mock's import of the model), code above the spec using the spec's tooling.
    const spec = new Map([
      ['spec/tools/build.ts', ['docs-site/build.ts', 'spec/lib/files.ts']],
      ['spec/lib/openapi.ts', ['generated/types.ts', 'mock/src/domain/state.ts']],
      ['mock/src/domain/state.ts', ['spec/lib/openapi.ts']],
      ['docs-site/build.ts', ['spec/tools/generate.ts', 'spec/lib/openapi.ts']],
      ['cli/cli.ts', ['spec/diff/command.ts']],
      ['spec/test/x.test.ts', ['mock/src/index.ts']],
    ]);
    expect(specImports(spec)).toEqual([
      'spec/tools/build.ts → docs-site/build.ts (spec/tools may use spec/diff, spec/lib, generated)',
      'spec/lib/openapi.ts → mock/src/domain/state.ts (spec/lib may use generated)',
      'docs-site/build.ts → spec/tools/generate.ts (only spec/lib and generated/ are for the code above the spec)',
    ]);
    expect(circles(spec)).toEqual([['mock/src/domain/state.ts', 'spec/lib/openapi.ts']]);
    expect(importsOf('mock/src/core/core.ts', "import a from './x.ts'; const b = await import('../domain/y.ts'); import c from 'vitest';")).toEqual([
      'mock/src/core/x.ts',
      'mock/src/domain/y.ts',
    ]);
  });
});
