// `npm run build` (and `prepack`): compiles what the package ships into dist/ — ESM JavaScript, .d.ts and source maps —
// with tsconfig.json's own compiler options (relative `.ts` imports rewritten to `.js`), then copies the files the
// compiled code reads at run time: the generated spec and validators, the CommonJS entry points, and the docs page.
//   node spec/tools/build.ts        exit 0 with dist/ written, 1 with the compiler's diagnostics
//   … --no-check                    emit without type checking (npm test's checks run the type check beside it)
// Node never strips types under node_modules, so nothing under dist/ is TypeScript but the .d.ts files.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(ROOT, 'dist');
const CHECK = !process.argv.slice(2).includes('--no-check');

/** package.json's export targets (`./dist/<path>.js`) as the sources they are compiled from (`<path>.ts`). */
function exportedSources(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
  return Object.values(manifest.exports)
    .flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)))
    .flatMap((target) => /^\.\/dist\/(.+)\.js$/.exec(target)?.[1] ?? [])
    .map((path) => `${path}.ts`);
}

/** The modules users import or run; the compiler follows their imports (dynamic ones included). */
const ENTRY_POINTS = [
  ...exportedSources(),
  // The bin (bin.cjs, copied below) loads the command line, which loads each command when asked for.
  'cli/cli.ts',
  // The contract suite as vitest loads it: its config names these by path, so nothing imports them.
  'contract-tests/vitest.config.ts',
  'contract-tests/harness/setup.ts',
  'contract-tests/harness/reporter.ts',
  ...readdirSync(join(ROOT, 'contract-tests', 'tests'))
    .filter((file) => file.endsWith('.contract.test.ts'))
    .map((file) => `contract-tests/tests/${file}`),
];

/** Files the compiled code reads or runs as they are, by path relative to the root (dist/ mirrors the tree). */
const ASSETS = [
  'generated/openapi.json',
  'generated/openapi.runtime.json',
  'generated/openapi.acyclic.json',
  'generated/response-validators.js',
  'generated/response-validators.d.ts',
  'cli/entry.cjs',
  'cli/bin.cjs',
];

function compile(): readonly ts.Diagnostic[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('tsconfig.json could not be read');
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    outDir: OUT,
    rootDir: ROOT,
    declaration: true,
    // Maps to the TypeScript's files and lines (a stack trace under --enable-source-maps names them, a debugger shows
    // them), with the sources embedded (sourcesContent): the package ships no .ts file, so a map that only named
    // mock/src/*.ts would point at nothing (spec/test/package.test.ts resolves every `sources` entry).
    sourceMap: true,
    inlineSources: true,
    rewriteRelativeImportExtensions: true,
    allowImportingTsExtensions: false,
    // The sources are checked by `npm run typecheck`; the emitted .d.ts files are checked by the consumer test.
    skipLibCheck: true,
    // `--no-check`: emit without type checking, for `npm test`, which runs `npm run typecheck` beside the build.
    noCheck: !CHECK,
  };
  const program = ts.createProgram(
    ENTRY_POINTS.map((file) => join(ROOT, file)),
    options,
  );
  // A module of types alone compiles to `export {};`: it ships without a source map, which would only embed its
  // whole source again (generated/types.ts's map alone was 134 KB).
  const outputs = new Map<string, string>();
  const result = program.emit(undefined, (fileName, text) => outputs.set(fileName, text));
  for (const [fileName, text] of outputs) {
    const typesOnly = (js: string | undefined): boolean =>
      js !== undefined && /^(\s*\/\/[^\n]*\n)*\s*export \{\};\s*(\/\/# sourceMappingURL=\S+\s*)?$/.test(js);
    if (fileName.endsWith('.js.map') && typesOnly(outputs.get(fileName.slice(0, -'.map'.length)))) continue;
    mkdirSync(dirname(fileName), { recursive: true });
    writeFileSync(fileName, fileName.endsWith('.js') && typesOnly(text) ? text.replace(/\/\/# sourceMappingURL=\S+\s*$/, '') : text);
  }
  const before = CHECK ? ts.getPreEmitDiagnostics(program) : [...program.getOptionsDiagnostics(), ...program.getSyntacticDiagnostics()];
  return [...before, ...result.diagnostics];
}

rmSync(OUT, { recursive: true, force: true });
const diagnostics = compile();
if (diagnostics.length > 0) {
  const host: ts.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
  process.stderr.write(ts.formatDiagnostics(diagnostics, host));
  process.stderr.write(`build: ${diagnostics.length} compiler error(s); dist/ is incomplete\n`);
  process.exit(1);
}
for (const asset of ASSETS) {
  mkdirSync(dirname(join(OUT, asset)), { recursive: true });
  copyFileSync(join(ROOT, asset), join(OUT, asset));
}

// The docs page, so `service-external-api docs` needs no Redocly: built here, from the same spec, every time. The docs'
// own command builds it, as a process: the spec's tools sit below the docs and import nothing of them
// (spec/test/layers.test.ts).
const docs = spawnSync(process.execPath, [join(ROOT, 'docs-site', 'build.ts'), join(OUT, 'docs-site', 'index.html')], { encoding: 'utf8' });
if (docs.status !== 0) {
  process.stderr.write(
    `${docs.stdout}${docs.stderr}build: the docs page was not built (node docs-site/build.ts exited ${String(docs.status ?? docs.signal)})\n`,
  );
  process.exit(1);
}
process.stderr.write(`build: ${docs.stdout.trim()}\n`);

if (!existsSync(join(OUT, 'cli', 'cli.js'))) throw new Error('build: dist/cli/cli.js was not written');
const written = readdirSync(OUT, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
process.stderr.write(`build: wrote ${written.length} files to ${relative(process.cwd(), OUT) || OUT}/\n`);
