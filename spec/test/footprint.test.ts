// What the package costs a frontend team, measured where they install it: a fresh project with only msw, then the
// packed tarball added beside it (npm's layout, nested packages counted). The package adds the 9 packages and the
// megabytes README.md says, and none of vitest, vite, express or ioredis anywhere; a command whose optional peers are
// not installed exits 2 with the line that installs them; `service-external-api/msw` bundled for a browser stays within its byte limits.
// The tarball is the one the `package` project packed for its files (tarball.setup.ts).
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { explain, ROOT, run } from './run.ts';
import { BUNDLE_LIMITS, measureBrowserBundle, type BundleReport } from '../../mock/bench/bundle.ts';

const LIMITS = { packages: 9, bytes: 9 * 1024 * 1024 } as const;
/** What README.md's install section says the package adds beside msw (9 packages, 8.8 MB): exactly these. */
const ADDED = [
  'ajv',
  'ajv-formats',
  'fast-deep-equal',
  'fast-uri',
  'json-schema-traverse',
  'openapi-fetch',
  'openapi-typescript-helpers',
  'require-from-string',
  'service-external-api',
];
const NEVER = ['vitest', 'vite', 'express', 'ioredis'];

type Footprint = { packages: Map<string, number>; bytes: number };

/** Every package under node_modules (nested ones too) by its path, with the bytes of its files; symlinks not followed. */
function footprint(project: string): Footprint {
  const packages = new Map<string, number>();
  let total = 0;
  const sizeOf = (dir: string): number => {
    let bytes = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') bytes += sizeOf(path);
      else if (entry.isFile()) bytes += statSync(path).size;
    }
    return bytes;
  };
  const walk = (modules: string): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(modules, entry.name);
      if (lstatSync(path).isSymbolicLink() || !entry.isDirectory()) continue;
      const roots = entry.name.startsWith('@') ? readdirSync(path).map((name) => join(path, name)) : [path];
      for (const root of roots) {
        if (!existsSync(join(root, 'package.json'))) continue;
        const bytes = sizeOf(root);
        packages.set(root.slice(project.length + 1), bytes);
        total += bytes;
        walk(join(root, 'node_modules'));
      }
    }
  };
  walk(join(project, 'node_modules'));
  return { packages, bytes: total };
}

const nameOf = (path: string): string => path.split('node_modules/').pop() ?? path;
const mswVersion = (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'msw', 'package.json'), 'utf8')) as { version: string }).version;

let work = '';
let bare: Footprint;
let withPackage: Footprint;
let app = '';
let bundle: BundleReport;

/** npm install in the project, with npm's cache first. */
async function install(dir: string, specs: ReadonlyArray<string>): Promise<void> {
  const result = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...specs], { cwd: dir, timeout: 240_000 });
  expect(result.status, explain(result)).toBe(0);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'service-external-api-footprint-'));
  // As a frontend team meets it: the project has msw, then adds the package (the tarball the `package` project packed).
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }, null, 2));
  await install(app, [`msw@${mswVersion}`]);
  bare = footprint(app);
  await install(app, [inject('tarball').file]);
  withPackage = footprint(app);
  bundle = await measureBrowserBundle(join(app, 'node_modules', 'service-external-api', 'dist', 'mock', 'src', 'msw.js'));
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a frontend project with msw, then this package beside it', () => {
  it(`adds at most ${LIMITS.packages} packages and ${LIMITS.bytes / 1024 / 1024} MB, nested ones counted`, () => {
    const added = [...withPackage.packages.keys()].filter((path) => !bare.packages.has(path));
    const bytes = withPackage.bytes - bare.bytes;
    const report = `${added.length} packages, ${(bytes / 1024 / 1024).toFixed(1)} MB added: ${added.map(nameOf).join(', ')}`;
    expect(added.length, report).toBeLessThanOrEqual(LIMITS.packages);
    expect(bytes, report).toBeLessThanOrEqual(LIMITS.bytes);
    // The README's numbers: these nine packages (yaml, for `diff` only, is an optional peer), 8 to 9 MB in all.
    expect(added.map(nameOf).sort(), report).toEqual(ADDED);
    expect(bytes, report).toBeGreaterThan(8 * 1024 * 1024);
    const said = /(\d+) packages and (\d+(?:\.\d)?) MB\s+beside msw/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(Number(said?.[1]), 'README.md: "N packages and X MB beside msw"').toBe(added.length);
    // Within half a megabyte: the README and the CHANGELOG the tarball ships grow a little with every change.
    expect(Math.abs(Number(said?.[2]) - bytes / 1024 / 1024), report).toBeLessThanOrEqual(0.5);
    // The package itself is among them, with its runtime dependencies: a count of 1 would mean nothing was installed.
    expect(added).toContain('node_modules/service-external-api');
    expect(added.map(nameOf)).toEqual(expect.arrayContaining(['ajv', 'ajv-formats', 'openapi-fetch']));
  });

  it(`has none of ${NEVER.join(', ')} anywhere under node_modules`, () => {
    expect([...withPackage.packages.keys()].filter((path) => NEVER.includes(nameOf(path)))).toEqual([]);
  });

  it('answers a command whose optional peers are missing with exit 2 and the line that installs them; mock needs none', async () => {
    // The mock command serves through node:http and loads no peer: with none installed it gets as far as its options.
    const mock = await run('npx', ['--no-install', 'service-external-api', 'mock', '--port', '0', '--unknown-option'], { cwd: app });
    expect(mock.status, explain(mock)).toBe(2);
    expect(mock.stderr.trim()).toBe('error: unknown option --unknown-option (see --help)');
    const contract = await run('npx', ['--no-install', 'service-external-api', 'contract'], { cwd: app });
    expect(contract.status, explain(contract)).toBe(2);
    expect(
      contract.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('npm warn'))
        .join('\n'),
    ).toMatch(
      /^error: service-external-api contract needs vitest, fast-check \(optional peer dependencies of service-external-api, not installed\): npm install --save-dev 'vitest@[^']+' 'fast-check@[^']+'$/,
    );
  });

  it('still gives every command its --help, and writes the docs page, with no peer installed', async () => {
    // The installed bin itself (npx finds it: the test above): npm's own start-up, five times over, proves nothing more.
    const bin = join(app, 'node_modules', '.bin', 'service-external-api');
    for (const command of ['mock', 'contract', 'proxy', 'docs', 'diff']) {
      const help = await run(process.execPath, [bin, command, '--help'], { cwd: app });
      expect(help.status, `${command} --help: ${explain(help)}`).toBe(0);
      expect(help.stdout).toMatch(/^Usage: /);
    }
    const docs = await run('npx', ['--no-install', 'service-external-api', 'docs', '--out', join(work, 'page.html')], { cwd: app });
    expect(docs.status, explain(docs)).toBe(0);
    expect(readFileSync(join(work, 'page.html'), 'utf8')).toContain('resumeProject');
  });
});

describe('a browser project type-checks ./msw and ./client with strict settings and no @types/node', () => {
  it('tsc: strict, noUncheckedIndexedAccess, exactOptionalPropertyTypes, skipLibCheck false, types []', async () => {
    const dir = join(app, 'strict');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          lib: ['es2022', 'dom', 'dom.iterable'],
          types: [],
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['app.ts'],
      }),
    );
    writeFileSync(
      join(dir, 'app.ts'),
      [
        "import { setupWorker } from 'msw/browser';",
        "import { createMockHandlers } from 'service-external-api/msw';",
        "import { createClient } from 'service-external-api/client';",
        "const mock = createMockHandlers({ baseUrl: 'https://api.example.com' });",
        'await setupWorker(...mock).start();',
        'const fixtures = await mock.fixtures();',
        'const token: string = fixtures.tokens.full_access;',
        'const paused: string = fixtures.projects.paused;',
        'const open: string = fixtures.goals.open;',
        "const api = createClient({ baseUrl: 'https://api.example.com', token });",
        'const resumed = await api.resumeProject({ project_id: paused, message: \'{"type":"doc","content":[]}\' });',
        'if (resumed.status === 200) console.log(resumed.body.project.state satisfies string, open);',
        'export {};',
      ].join('\n'),
    );
    const tsc = await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--listFiles'], {
      cwd: dir,
      timeout: 120_000,
    });
    expect(tsc.status, explain(tsc)).toBe(0);
    // msw's dependencies happen to install @types/node; with `types: []` nothing may pull it in all the same.
    expect(tsc.stdout.split('\n').filter((file) => file.includes('/@types/node/'))).toEqual([]);
  });
});

describe("mock/README's browser snippet in a vite build of a consumer app", () => {
  it('builds with no warning, no asset copied from the package, and the mock in chunks of their own', async () => {
    const { build, createLogger } = await import('vite');
    const web = join(app, 'web');
    mkdirSync(web);
    const snippet = /In a browser app, with `msw\/browser`[\s\S]*?```ts\n([\s\S]*?)```/.exec(
      readFileSync(join(ROOT, 'mock', 'docs', 'in-process.md'), 'utf8'),
    )?.[1];
    if (!snippet) throw new Error('mock/docs/in-process.md has no browser snippet');
    writeFileSync(join(web, 'main.ts'), `${snippet}export {};\n`);
    writeFileSync(join(web, 'index.html'), '<!doctype html><script type="module" src="./main.ts"></script>');
    const warnings: string[] = [];
    const logger = createLogger('warn');
    logger.warn = (message) => void warnings.push(message);
    logger.warnOnce = (message) => void warnings.push(message);
    process.env['VITE_API_MOCK'] = '1';
    try {
      await build({ root: web, configFile: false, logLevel: 'warn', customLogger: logger, build: { outDir: join(web, 'dist'), target: 'es2022' } });
    } finally {
      delete process.env['VITE_API_MOCK'];
    }
    expect(warnings).toEqual([]);
    const assets = readdirSync(join(web, 'dist', 'assets'));
    expect(assets.filter((file) => !file.endsWith('.js'))).toEqual([]);
    // The entry, msw, the mock, its validators and Ajv: the mock is never in the entry chunk.
    expect(assets.length).toBeGreaterThanOrEqual(3);
  });
});

describe('service-external-api/msw bundled for a browser (esbuild, minified, msw external)', () => {
  it(`is at most ${BUNDLE_LIMITS.total_gzip / 1024} KB gzip in all, chunks loaded later included`, () => {
    expect(bundle.total_gzip, JSON.stringify(bundle.chunks)).toBeLessThanOrEqual(BUNDLE_LIMITS.total_gzip);
  });

  it(`loads at most ${BUNDLE_LIMITS.first_answer_gzip / 1024} KB gzip before its first answer (the entry and its static imports)`, () => {
    expect(bundle.first_answer_gzip, JSON.stringify(bundle.chunks)).toBeLessThanOrEqual(BUNDLE_LIMITS.first_answer_gzip);
    // The validators and Ajv's compiler are chunks of their own, loaded later.
    expect(bundle.chunks.filter((chunk) => chunk.loaded === 'later').length).toBeGreaterThanOrEqual(2);
  });

  it('holds no YAML parser, no lodash, no OpenAPI 2.0 meta-schema and no router package', () => {
    expect(bundle.packages).toEqual(expect.arrayContaining(['ajv']));
    const modules = bundle.packages;
    for (const heavy of ['js-yaml', 'yaml', 'lodash', 'openapi-schema-validator', 'openapi-backend', '@apidevtools/json-schema-ref-parser'])
      expect(modules, heavy).not.toContain(heavy);
  });
});
