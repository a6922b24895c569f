// The package as its users get it: `npm pack`, installed from the tarball into a fresh consumer project outside this
// repository, then used there with plain `node`, `npx` and `tsc` (nodenext, strict, skipLibCheck: false). Also the
// package's shape (publint, arethetypeswrong) and the Node.js check every entry point makes first.
// The tarball is the one the `package` project packed for its files (tarball.setup.ts).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import { problemAffectsResolutionKind } from '@arethetypeswrong/core/problems';
import { BIN, explain, ROOT, run } from './run.ts';
import { texts } from '../lib/messages.ts';
import { loadDocument } from '../lib/openapi.ts';
import { PERSONAS } from '../../generated/mock-fixtures.ts';
import { SAMPLE_LANGUAGES, sampleLanguageList } from '../../docs-site/sample-languages.ts';
import { MSW_PACKAGES } from '../../mock/test/msw-majors.ts';
import { nodeSatisfies } from '../../cli/peers.ts';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  exports: Record<string, string | Record<string, string>>;
  bin: Record<string, string>;
  peerDependencies: Record<string, string>;
};
/** The version of a package this repository installed (a devDependency, or an alias of one: `msw3` is msw 3). */
const installedVersion = (name: string): string =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const operationIds = Object.values(loadDocument()['paths'] as Record<string, Record<string, { operationId: string }>>).flatMap((item) =>
  Object.values(item).map((op) => op.operationId),
);

let work = '';
let consumer = '';
let tarball = '';
let files: string[] = [];

/**
 * The peer matrix: consumer projects that pin the oldest and the newest of each major package.json's peer ranges
 * admit, combined so that installs are few. With `consumer` (below: the versions this repository tests with, the
 * newest of everything) they are the four projects each entry point runs in, on Node.js 20 and on Node.js 24.
 */
const MATRIX = [
  {
    name: 'oldest of every older major',
    peers: { vitest: '3.0.0', 'fast-check': '3.22.0', express: '4.21.0', '@types/express': '4.17.21', msw: '2.0.0' },
  },
  {
    name: 'newest of every older major',
    peers: { vitest: '4.1.12', 'fast-check': '3.23.2', express: '4.22.3', '@types/express': '4.17.25', msw: '2.15.0' },
  },
  {
    name: 'oldest of the newest majors',
    peers: { vitest: '5.0.0', 'fast-check': '4.0.0', express: '5.0.0', '@types/express': '5.0.0', msw: '3.0.0' },
  },
] as const;
type Project = { name: string; dir: string; peers: Readonly<Record<string, string>> };
const projects: Project[] = [];

/** The machine's own Node.js 20 (the first `node` on PATH outside node_modules), or undefined on a machine without one. */
const NODE_20 = (process.env['PATH'] ?? '')
  .split(delimiter)
  .filter((dir) => dir && !dir.includes('node_modules'))
  .map((dir) => join(dir, 'node'))
  .find((file) => existsSync(file) && spawnSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.startsWith('20.'));
/** The Node.js versions each project runs on: the repository's Node 24 (this process's) and the machine's Node 20. */
const NODES: ReadonlyArray<{ label: string; node: string | undefined }> = [
  { label: 'Node 24', node: process.execPath },
  { label: 'Node 20', node: NODE_20 },
];

/** Runs the jobs at most `lanes` at once (the machine has two cores). */
async function inLanes<T>(jobs: ReadonlyArray<() => Promise<T>>, lanes = 2): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let i = next++; i < jobs.length; i = next++) results[i] = await (jobs[i] as () => Promise<T>)();
    }),
  );
  return results;
}

/** npm install in a fresh project: the tarball and the given packages, with npm's cache first. */
async function installProject(dir: string, specs: ReadonlyArray<string>): Promise<void> {
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer-app', private: true, type: 'module' }, null, 2));
  // A plain `npm install` (no --legacy-peer-deps): an optional peer the project already has must never stop it.
  const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, ...specs], { cwd: dir, timeout: 240_000 });
  expect(install.status, explain(install)).toBe(0);
  expect(install.stderr).not.toMatch(/ERESOLVE|Conflicting peer/);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'service-external-api-consumer-'));
  ({ file: tarball, files } = inject('tarball'));
  consumer = join(work, 'app');
  // Offline first: `npm ci` of this repository has put the newest project's packages into npm's cache (the matrix's
  // older versions come from the registry the first time). The optional peers the commands need are installed beside
  // the package, as the README says (Redocly, for `diff`, is added by its own test; footprint.test.ts covers the
  // project without them).
  const newest = Object.fromEntries(['express', '@types/express', 'vitest', 'fast-check', 'ioredis'].map((name) => [name, installedVersion(name)] as const));
  const newestPeers = { ...newest, msw: installedVersion(MSW_PACKAGES.at(-1) ?? 'msw') };
  projects.push({ name: 'newest of everything', dir: consumer, peers: newestPeers });
  for (const [i, { name, peers }] of MATRIX.entries()) projects.push({ name, dir: join(work, `matrix-${i + 1}`), peers });
  await inLanes(
    projects.map(
      (project) => () =>
        installProject(
          project.dir,
          Object.entries(project.peers).map(([name, version]) => `${name}@${version}`),
        ),
    ),
  );
}, 420_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the tarball', () => {
  it('holds the compiled package and nothing of the repository around it', () => {
    expect(files).toContain('package.json');
    expect(files).toContain('README.md');
    expect(files).toContain('CHANGELOG.md');
    for (const file of files)
      expect(file, file).toMatch(
        /^(package\.json|README\.md|CHANGELOG\.md|RULES\.md|(mock|contract-tests|docs-site|spec|generated)\/README\.md|mock\/docs\/[a-z-]+\.md|dist\/.+)$/,
      );
    expect(
      files.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts')),
      'no TypeScript sources: Node never strips types under node_modules',
    ).toEqual([]);
    // The contract suite's own files (contract-tests/tests/) ship: `service-external-api contract` runs them.
    expect(files.filter((f) => /\/(test|bench|fuzz|results)\//.test(f) || /(^|\/)\.ci\//.test(f))).toEqual([]);
  });

  it('has source maps whose every source resolves: embedded (sourcesContent) or a file the package ships', () => {
    const installed = join(consumer, 'node_modules', 'service-external-api');
    const maps = files.filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(50);
    const unresolved: string[] = [];
    for (const file of maps) {
      const map = JSON.parse(readFileSync(join(installed, file), 'utf8')) as { sources: string[]; sourceRoot?: string; sourcesContent?: Array<string | null> };
      expect(map.sources.length, file).toBeGreaterThan(0);
      map.sources.forEach((source, i) => {
        const embedded = typeof map.sourcesContent?.[i] === 'string' && (map.sourcesContent[i] ?? '').length > 0;
        if (!embedded && !existsSync(join(installed, dirname(file), map.sourceRoot ?? '', source))) unresolved.push(`${file} → ${source}`);
      });
    }
    expect(unresolved).toEqual([]);
  });

  it('has every export target and the bin in it', () => {
    const targets = Object.values(manifest.exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t)));
    for (const target of [...targets, ...Object.values(manifest.bin)]) expect(files, target).toContain(target.replace(/^\.\//, ''));
  });

  it('passes publint (strict) with no problem', async () => {
    const result = await run(process.execPath, [join(ROOT, 'node_modules', 'publint', 'src', 'cli.js'), 'run', tarball, '--strict'], { cwd: work });
    expect(result.status, explain(result)).toBe(0);
    expect(result.stdout).toContain('All good!');
  }, 60_000);

  it('passes arethetypeswrong for an ESM-only package with no problem', async () => {
    // arethetypeswrong's own analysis of the tarball (@arethetypeswrong/core, what its CLI runs), with the CLI's
    // esm-only profile: a problem counts when it affects a resolution an ESM-only package serves (node16's import, a
    // bundler); node10 and require() under node16 are what such a package leaves out on purpose.
    const analysis = await checkPackage(createPackageFromTarballData(new Uint8Array(readFileSync(tarball))));
    if (analysis.types === false) throw new Error('arethetypeswrong found no types in the package');
    const served = ['node16-esm', 'bundler'] as const;
    const counted = analysis.problems
      .filter((problem) => served.some((kind) => problemAffectsResolutionKind(problem, kind, analysis)))
      .map((problem) => `${problem.kind} ${'entrypoint' in problem ? problem.entrypoint : ''} ${'resolutionKind' in problem ? problem.resolutionKind : ''}`);
    expect(counted).toEqual([]);
    expect(Object.keys(analysis.entrypoints).sort()).toEqual(Object.keys(manifest.exports).sort());
  }, 60_000);
});

describe('a consumer project with the tarball installed', () => {
  it('plain node imports /mock and /client, starts createMockApp() and gets the seeded project back, resumed', async () => {
    writeFileSync(
      join(consumer, 'resume.mjs'),
      `import { createMockApp } from 'service-external-api/mock';
import { createClient } from 'service-external-api/client';
const app = createMockApp();
const server = app.listen(0, '127.0.0.1', async () => {
  const baseUrl = 'http://127.0.0.1:' + server.address().port;
  const fixtures = await (await fetch(baseUrl + '/__mock/fixtures')).json();
  const api = createClient({ baseUrl, token: fixtures.tokens.full_access });
  const result = await api.resumeProject({ project_id: fixtures.projects.paused, message: JSON.stringify({ type: 'doc', content: [] }) });
  console.log(JSON.stringify({ paused: fixtures.projects.paused, status: result.status, id: result.body.project.id, state: result.body.project.state }));
  server.close();
});
`,
    );
    const result = await run(process.execPath, ['resume.mjs'], { cwd: consumer, timeout: 30_000 });
    expect(result.status, explain(result)).toBe(0);
    const printed = JSON.parse(result.stdout) as { paused: string; status: number; id: string; state: string };
    expect(printed).toEqual({ paused: printed.paused, status: 200, id: printed.paused, state: 'active' });
  }, 40_000);

  it("the README's frontend test example runs green with the consumer's own vitest", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const example = /A frontend test against the mock[^\n]*\n+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'README.md has the frontend test example').toBeDefined();
    expect(example?.split('\n').filter((line) => line.trim() !== '').length).toBeLessThanOrEqual(15);
    mkdirSync(join(consumer, 'test'), { recursive: true });
    writeFileSync(join(consumer, 'test', 'resume.test.ts'), example ?? '');
    const result = await run('npx', ['--no-install', 'vitest', 'run', '--root', consumer, '--reporter', 'verbose'], {
      cwd: consumer,
      env: { CI: '1' },
      timeout: 90_000,
    });
    expect(result.status, explain(result)).toBe(0);
    expect(stripVTControlCharacters(result.stdout)).toMatch(/✓ test\/resume\.test\.ts > resumes the paused project/);
  }, 100_000);

  it("the README's quick-start install line brings every package tsc loads for its frontend example (strict, skipLibCheck: false): @types/express too", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const line = /A frontend test against the mock[^\n]*`npm install -D ([^`]+)`/.exec(readme)?.[1];
    expect(line, 'README.md gives the install line of the frontend example').toBeDefined();
    const named = (line ?? '').split(' ').filter((word) => word !== '');
    const example = /A frontend test against the mock[^\n]*\n+```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    mkdirSync(join(consumer, 'quick-start'), { recursive: true });
    writeFileSync(join(consumer, 'quick-start', 'resume.test.ts'), example);
    writeFileSync(
      join(consumer, 'tsconfig.quick-start.json'),
      JSON.stringify({
        // `types: []`: only what the example's imports reach is loaded, not every @types package the other tests
        // installed here (with the default, tsc would load those too, and a user's project has none of them).
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, skipLibCheck: false, noEmit: true, types: [] },
        files: ['quick-start/resume.test.ts'],
      }),
    );
    const result = await run(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.quick-start.json', '--traceResolution'],
      {
        cwd: consumer,
        timeout: 120_000,
      },
    );
    const errors = result.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(errors).toEqual([]);
    expect(result.status, explain(result)).toBe(0);
    // The packages tsc loaded, by their package ids (`@types/express/index.d.ts@5.0.6` → @types/express).
    const loaded = new Set([...result.stdout.matchAll(/with Package ID '((?:@[^/]+\/)?[^/@]+)\//g)].map((m) => m[1] ?? ''));
    expect(loaded).toContain('service-external-api');
    // What the line installs: its packages and what npm installs with them (dependencies, and peers not optional).
    const lock = JSON.parse(readFileSync(join(consumer, 'node_modules', '.package-lock.json'), 'utf8')) as {
      packages: Record<
        string,
        {
          dependencies?: Record<string, string>;
          optionalDependencies?: Record<string, string>;
          peerDependencies?: Record<string, string>;
          peerDependenciesMeta?: Record<string, { optional?: boolean }>;
        }
      >;
    };
    const installs = new Set<string>();
    const pending = named.map((spec) => spec.replace(/(.)@.*$/, '$1'));
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      if (installs.has(name)) continue;
      installs.add(name);
      const entry = lock.packages[`node_modules/${name}`];
      const peers = Object.keys(entry?.peerDependencies ?? {}).filter((peer) => entry?.peerDependenciesMeta?.[peer]?.optional !== true);
      pending.push(...Object.keys(entry?.dependencies ?? {}), ...Object.keys(entry?.optionalDependencies ?? {}), ...peers);
    }
    expect(
      [...loaded].filter((name) => !installs.has(name)),
      `loaded by tsc but not installed by: npm install -D ${line ?? ''}`,
    ).toEqual([]);
  }, 130_000);

  it('tsc --noEmit (nodenext, strict, skipLibCheck: false) is clean for a file importing every entry point', async () => {
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: false, noEmit: true },
        files: ['every-entry.ts', 'peers-types.ts'],
      }),
    );
    writePeersTypes(consumer);
    writeFileSync(
      join(consumer, 'every-entry.ts'),
      `import { createMockApp, defaultSeed, type MockOptions } from 'service-external-api';
import { createMockApp as createMockAppAgain } from 'service-external-api/mock';
import { createClient } from 'service-external-api/client';
import { checkResponse, readConfig, type Violation } from 'service-external-api/contract';
import type { components, operations } from 'service-external-api/generated/types';
import spec from 'service-external-api/generated/openapi.json' with { type: 'json' };
import acyclic from 'service-external-api/generated/openapi.acyclic.json' with { type: 'json' };

const options: MockOptions = { seed: defaultSeed() };
export const app = createMockApp(options);
export const again = createMockAppAgain();
const api = createClient({ baseUrl: 'http://127.0.0.1:4010', token: 'opk_x' });
export async function resume(id: string): Promise<string | undefined> {
  const result = await api.resumeProject({ project_id: id, message: '{"type":"doc","content":[]}' });
  return result.status === 200 ? result.body.project.state : undefined;
}
export const violations: Violation[] = checkResponse('resumeProject', { status: 200, headers: {}, text: '{}' });
export const config = () => readConfig({ CONTRACT_BASE_URL: 'http://127.0.0.1:4010' });
export type Project = components['schemas']['Project'];
export type CloseBody = operations['closeGoal']['requestBody'];
export const title: string = spec.info.title;
export const sameTitle: boolean = acyclic.info.title === spec.info.title;
// @ts-expect-error -- the typed client rejects a close without success_status
export const wrong = () => api.closeGoal({ goal_id: 'g', success: 'yes', retrospective: '{}' });
`,
    );
    const result = await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
      cwd: consumer,
      timeout: 120_000,
    });
    expect(result.status, explain(result)).toBe(0);
    expect(result.stdout).toBe('');
  }, 130_000);

  it('npx service-external-api --version and --help answer', async () => {
    const version = await run('npx', ['--no-install', 'service-external-api', '--version'], { cwd: consumer });
    expect(version.status, explain(version)).toBe(0);
    expect(version.stdout.trim()).toBe(manifest.version);
    const help = await run('npx', ['--no-install', 'service-external-api', '--help'], { cwd: consumer });
    expect(help.status, explain(help)).toBe(0);
    for (const command of ['mock', 'contract', 'proxy', 'docs']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const unknown = await run('npx', ['--no-install', 'service-external-api', 'serve'], { cwd: consumer });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown command "serve"; the commands are mock, contract, proxy, docs/m);
  }, 60_000);

  /** `npx service-external-api mock --port 0` in the consumer, once it has printed its fixtures; stop() ends it. */
  async function startMock(): Promise<{ url: string; stop(): void }> {
    const mock = spawn('npx', ['--no-install', 'service-external-api', 'mock', '--port', '0'], {
      cwd: consumer,
      env: { ...process.env, PATH: `${BIN}${delimiter}${process.env['PATH'] ?? ''}`, PORT: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stop = (): void => {
      if (mock.pid !== undefined && mock.exitCode === null) process.kill(-mock.pid, 'SIGTERM');
    };
    let banner = '';
    mock.stdout?.setEncoding('utf8').on('data', (chunk: string) => (banner += chunk));
    mock.stderr?.setEncoding('utf8').on('data', (chunk: string) => (banner += chunk));
    const deadline = Date.now() + 30_000;
    while (!/^fixtures as JSON/m.test(banner)) {
      if (mock.exitCode !== null || Date.now() > deadline) {
        stop();
        throw new Error(`the mock did not start: ${banner}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return { url: /mock listening on (http:\/\/\S+)/.exec(banner)?.[1] ?? '', stop };
  }

  /** The contract run's verdict, which is always its last line. */
  const VERDICT = /^contract: [1-9]\d* passed, 0 failed, 0 skipped, \d+ warnings(, 0 errors)? — PASS$/;
  const lastLine = (stdout: string): string => stdout.trimEnd().split('\n').at(-1) ?? '';

  it('npx service-external-api mock --port 0 starts and answers; contract against it passes, its verdict the last line; proxy in front of it forwards', async () => {
    let proxy: ReturnType<typeof spawn> | undefined;
    const mock = await startMock();
    try {
      const { url } = mock;
      const deadline = Date.now() + 30_000;
      expect((await fetch(`${url}/__mock/fixtures`)).status).toBe(200);
      const report = join(work, 'contract.xml');
      const contract = await run('npx', ['--no-install', 'service-external-api', 'contract', '--base-url', url, '--report', report], {
        cwd: consumer,
        timeout: 120_000,
      });
      expect(contract.status, explain(contract)).toBe(0);
      // The JUnit reporter's own line (`JUNIT report written to …`) comes before the summary, never after the verdict.
      expect(lastLine(contract.stdout), explain(contract)).toMatch(VERDICT);
      expect(readFileSync(report, 'utf8')).toMatch(/<testsuites [^>]*failures="0"/);

      // The validation proxy in front of it: forwards a valid resume unchanged, and finds nothing to report.
      const fixtures = (await (await fetch(`${url}/__mock/fixtures`)).json()) as { tokens: Record<string, string>; projects: Record<string, string> };
      proxy = spawn('npx', ['--no-install', 'service-external-api', 'proxy', '--target', url, '--port', '0'], {
        cwd: consumer,
        env: { ...process.env, PATH: `${BIN}${delimiter}${process.env['PATH'] ?? ''}` },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let proxyBanner = '';
      proxy.stdout?.setEncoding('utf8').on('data', (chunk: string) => (proxyBanner += chunk));
      proxy.stderr?.setEncoding('utf8').on('data', (chunk: string) => (proxyBanner += chunk));
      while (!/^port: \d+/m.test(proxyBanner)) {
        if (proxy.exitCode !== null || Date.now() > deadline + 30_000) throw new Error(`the proxy did not start: ${proxyBanner}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const proxyUrl = `http://127.0.0.1:${/^port: (\d+)/m.exec(proxyBanner)?.[1] ?? ''}`;
      const resumed = await fetch(`${proxyUrl}/api/external/v1/projects/resume`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fixtures.tokens['full_access'] ?? ''}`, 'content-type': 'application/json' },
        body: JSON.stringify({ project_id: fixtures.projects['paused'], message: '{"type":"doc","content":[]}' }),
      });
      expect(resumed.status).toBe(200);
      expect(((await resumed.json()) as { project: { id: string } }).project.id).toBe(fixtures.projects['paused']);
      expect(resumed.headers.get('x-contract-violations')).toBeNull();
      const violations = await fetch(`${proxyUrl}/__proxy/violations`);
      expect(violations.status).toBe(200);
    } finally {
      if (proxy?.pid !== undefined) process.kill(-proxy.pid, 'SIGTERM');
      mock.stop();
    }
  }, 150_000);

  it("the README's QA line runs as pasted in CI, where npm's yes is false: npx --yes installs what it names without asking, and the suite passes", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const line = /QA, against staging[^\n]*\n+```sh\n([^\n]+)\n```/.exec(readme)?.[1] ?? '';
    const words = line.split(' ');
    const npx = words.indexOf('npx');
    expect(npx, line).toBeGreaterThan(0);
    expect(words.slice(npx)).toContain('--yes');
    const mock = await startMock();
    try {
      const fixtures = (await (await fetch(`${mock.url}/__mock/fixtures`)).json()) as { tokens: Record<string, string> };
      // The line as written, but: the package from the tarball, its peers at the versions this repository tests with
      // (from npm's cache), the mock's URL for staging's, and the mock's full-access token for the placeholder.
      const peers = new Set(['vitest', 'fast-check']);
      const args = words.slice(npx + 1).map((word, i, all) => {
        if (all[i - 1] === '-p') return word === manifest.name ? tarball : peers.has(word) ? `${word}@${installedVersion(word)}` : word;
        return all[i - 1] === '--base-url' ? mock.url : word;
      });
      const env = Object.fromEntries(words.slice(0, npx).map((word) => word.split('=') as [string, string]));
      expect(Object.keys(env)).toContain('CONTRACT_TOKEN');
      env['CONTRACT_TOKEN'] = fixtures.tokens['full_access'] ?? '';
      const qa = join(work, 'qa');
      mkdirSync(qa, { recursive: true });
      const ci = { ...env, npm_config_yes: 'false', npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' };
      // Without --yes, npx refuses there: what QA met.
      const asked = await run(
        'npx',
        args.filter((word) => word !== '--yes'),
        { cwd: qa, env: ci, timeout: 60_000 },
      );
      expect(asked.status, explain(asked)).not.toBe(0);
      expect(asked.stderr).toMatch(/npx canceled due to missing packages and no YES option/);
      const result = await run('npx', args, { cwd: qa, env: ci, timeout: 240_000 });
      expect(result.status, explain(result)).toBe(0);
      expect(lastLine(result.stdout), explain(result)).toMatch(VERDICT);
    } finally {
      mock.stop();
    }
  }, 320_000);

  it('npx service-external-api mock --store names a Redis it cannot reach in one line and exits 2 (the Redis store ships)', async () => {
    const result = await run('npx', ['--no-install', 'service-external-api', 'mock', '--port', '0', '--store', 'redis://127.0.0.1:1/0'], {
      cwd: consumer,
      env: { MOCK_STORE: '' },
      timeout: 60_000,
    });
    expect(result.status, explain(result)).toBe(2);
    expect(
      result.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('npm warn')),
    ).toEqual([expect.stringMatching(/^error: cannot use Redis at redis:\/\/127\.0\.0\.1:1\/0: /)]);
  }, 70_000);

  it('npx service-external-api contract with no URL is exit 2 with one line naming the variable', async () => {
    const result = await run('npx', ['--no-install', 'service-external-api', 'contract'], { cwd: consumer, env: { CONTRACT_BASE_URL: '' } });
    expect(result.status, explain(result)).toBe(2);
    expect(
      result.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('npm warn')),
    ).toEqual([expect.stringMatching(/^contract: .*CONTRACT_BASE_URL/)]);
  }, 60_000);

  it('npx service-external-api docs --out writes the self-contained page with both operations', async () => {
    const out = join(consumer, 'reference', 'api.html');
    const result = await run('npx', ['--no-install', 'service-external-api', 'docs', '--out', out], { cwd: consumer });
    expect(result.status, explain(result)).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    for (const id of operationIds) expect(html).toContain(id);
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
  }, 60_000);

  it('npx service-external-api docs --out DIR writes DIR/index.html, for a directory that exists and for a path ending in /', async () => {
    const existing = join(consumer, 'site');
    mkdirSync(existing);
    const intoExisting = await run('npx', ['--no-install', 'service-external-api', 'docs', '--out', 'site'], { cwd: consumer });
    expect(intoExisting.status, explain(intoExisting)).toBe(0);
    expect(intoExisting.stdout).toContain(`wrote ${join(existing, 'index.html')} (`);
    expect(readFileSync(join(existing, 'index.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/i);
    const intoNew = await run('npx', ['--no-install', 'service-external-api', 'docs', '--out', 'public/docs/'], { cwd: consumer });
    expect(intoNew.status, explain(intoNew)).toBe(0);
    expect(readFileSync(join(consumer, 'public', 'docs', 'index.html'), 'utf8')).toBe(readFileSync(join(existing, 'index.html'), 'utf8'));
  }, 60_000);

  it('npx service-external-api docs --help names every language of the samples the page has', async () => {
    const help = await run('npx', ['--no-install', 'service-external-api', 'docs', '--help'], { cwd: consumer });
    expect(help.status, explain(help)).toBe(0);
    const html = readFileSync(join(consumer, 'node_modules', 'service-external-api', 'dist', 'docs-site', 'index.html'), 'utf8');
    for (const { label } of SAMPLE_LANGUAGES) {
      expect(html, label).toContain(`"label":"${label}"`);
      expect(help.stdout.replace(/\s+/g, ' '), label).toContain(label);
    }
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(`${sampleLanguageList()} samples`);
  }, 60_000);
});

describe('the documentation an npm user can reach from the installed package', () => {
  const installed = (): string => join(consumer, 'node_modules', 'service-external-api');
  const shippedMarkdown = (): string[] => files.filter((file) => file.endsWith('.md'));
  /** Every file of the installed package with its text, for the ones a reader meets: code, types, docs. */
  const shippedText = (): Array<[string, string]> =>
    files.filter((file) => /\.(js|d\.ts|md|cjs)$/.test(file)).map((file) => [file, readFileSync(join(installed(), file), 'utf8')]);

  it('every RULES.md#anchor cited in code, types and docs is an anchor of the shipped RULES.md, and nothing cites a document the package lacks', () => {
    const rules = readFileSync(join(installed(), 'RULES.md'), 'utf8');
    const anchors = new Set([...rules.matchAll(/<a id="([a-z0-9-]+)"><\/a>/g)].map((m) => m[1]));
    const cited = new Map<string, string>();
    const unreachable: string[] = [];
    for (const [file, text] of shippedText()) {
      for (const m of text.matchAll(/RULES\.md((?:#[a-z0-9-]+)(?:(?:,| and) #[a-z0-9-]+)*)/g))
        for (const a of (m[1] ?? '').matchAll(/#([a-z0-9-]+)/g)) cited.set(a[1] ?? '', file);
      for (const m of text.matchAll(/\b(REFERENCE|transport-auth-errors|domain-and-shapes)\.md/g)) unreachable.push(`${file}: ${m[0]}`);
    }
    expect(cited.size).toBeGreaterThan(20);
    expect([...cited].filter(([anchor]) => !anchors.has(anchor)).map(([anchor, file]) => `${file} cites #${anchor}`)).toEqual([]);
    expect(unreachable).toEqual([]);
  });

  it('every relative link of the shipped Markdown leads to a file in the package', () => {
    const broken: string[] = [];
    for (const file of shippedMarkdown()) {
      // Links outside code spans and blocks.
      const text = readFileSync(join(installed(), file), 'utf8')
        .replace(/```[\s\S]*?```/g, '')
        .replace(/`[^`]*`/g, '');
      for (const m of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        const target = m[1] ?? '';
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(installed(), dirname(file), target))) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the shipped docs hold every CONTRACT_ variable and every option each command's --help names", async () => {
    const docs = shippedMarkdown()
      .map((file) => readFileSync(join(installed(), file), 'utf8'))
      .join('\n');
    const { knownVariables } = (await import(join(installed(), 'dist', 'contract-tests', 'io', 'env.js'))) as { knownVariables: () => string[] };
    const runbook = readFileSync(join(installed(), 'contract-tests', 'README.md'), 'utf8');
    expect(knownVariables().filter((name) => !runbook.includes(name))).toEqual([]);
    // Every persona has its row in mock/README.md's table ("Tokens and personas"): adding one names the table here.
    const mockGuide = readFileSync(join(installed(), 'mock', 'README.md'), 'utf8');
    expect(PERSONAS.filter((persona) => !mockGuide.includes(`| \`${persona}\` |`))).toEqual([]);
    const missing: string[] = [];
    // The installed bin itself (the npx tests above show npx finds it).
    const bin = join(consumer, 'node_modules', '.bin', 'service-external-api');
    for (const command of ['mock', 'contract', 'proxy', 'docs', 'diff', 'drift', 'replay', 'coverage']) {
      const help = await run(process.execPath, [bin, command, '--help'], { cwd: consumer });
      expect(help.status, explain(help)).toBe(0);
      for (const option of new Set([...help.stdout.matchAll(/^\s+(--[a-z][a-z-]*)/gm)].map((m) => m[1] ?? '')))
        if (!docs.includes(option)) missing.push(`${command} ${option}`);
    }
    expect(missing).toEqual([]);
  }, 60_000);
});

describe('npx service-external-api diff in the consumer project', () => {
  it('without the optional peer @redocly/cli, exits 2 with one line giving the install command', async () => {
    const result = await run('npx', ['--no-install', 'service-external-api', 'diff', 'a.json', 'b.json'], { cwd: consumer });
    expect(result.status, explain(result)).toBe(2);
    expect(
      result.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('npm warn')),
    ).toEqual([
      existsSync(join(consumer, 'node_modules', 'yaml', 'package.json'))
        ? `error: service-external-api diff needs @redocly/cli (optional peer dependency of service-external-api, not installed): npm install --save-dev '@redocly/cli@${manifest.peerDependencies['@redocly/cli']}'`
        : `error: service-external-api diff needs @redocly/cli, yaml (optional peer dependencies of service-external-api, not installed): npm install --save-dev '@redocly/cli@${manifest.peerDependencies['@redocly/cli']}' 'yaml@${manifest.peerDependencies['yaml']}'`,
    ]);
  }, 60_000);

  it('with the peer installed, grades a breaking edit of the shipped spec ERR (exit 1) and the spec against itself as no change', async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', '@redocly', 'cli', 'package.json'), 'utf8')) as { version: string };
    const install = await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', `@redocly/cli@${manifest.version}`, `yaml@${installedVersion('yaml')}`],
      {
        cwd: consumer,
        timeout: 240_000,
      },
    );
    expect(install.status, explain(install)).toBe(0);
    const shipped = join(consumer, 'node_modules', 'service-external-api', 'dist', 'generated', 'openapi.json');
    const document = JSON.parse(readFileSync(shipped, 'utf8')) as {
      components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> };
    };
    const project = document.components.schemas['Project'];
    if (!project) throw new Error('no Project schema in the shipped spec');
    delete project.properties['name'];
    project.required = project.required.filter((name) => name !== 'name');
    writeFileSync(join(consumer, 'next.json'), JSON.stringify(document));
    const breaking = await run('npx', ['--no-install', 'service-external-api', 'diff', shipped, 'next.json', '--format', 'json'], {
      cwd: consumer,
      timeout: 60_000,
    });
    expect(breaking.status, explain(breaking)).toBe(1);
    const report = JSON.parse(breaking.stdout) as { changes: Array<{ id: string; level: string; operation: string | null }>; counts: Record<string, number> };
    expect(report.changes).toContainEqual(expect.objectContaining({ id: 'property-removed', level: 'ERR', operation: 'resumeProject' }));
    expect(report.changes.map((c) => c.id)).toContain('api-version-not-bumped');
    const same = await run('npx', ['--no-install', 'service-external-api', 'diff', shipped, shipped], { cwd: consumer, timeout: 60_000 });
    expect(same.status, explain(same)).toBe(0);
    expect(same.stdout).toContain('no changes');
    expect(readFileSync(join(consumer, 'node_modules', 'service-external-api', 'CHANGELOG.md'), 'utf8')).toMatch(/^## \d+\.\d+\.\d+ - \d{4}-\d{2}-\d{2}$/m);
  }, 320_000);
});

describe('the Node.js check every entry point makes first', () => {
  /** A preload that makes the process report another Node.js version, to drive entry.cjs's check deterministically. */
  function as(version: string): string {
    const preload = join(work, `node-${version}.cjs`);
    writeFileSync(
      preload,
      `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } });\nObject.defineProperty(process, 'version', { value: 'v${version}' });\n`,
    );
    return preload;
  }

  it('node mock/src/main.ts on Node 20 prints one line of guidance and exits 1, not a loader error', async () => {
    const result = await run(process.execPath, ['--require', as('20.20.2'), join(ROOT, 'mock', 'src', 'main.ts'), '--port', '0'], { cwd: ROOT });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: this is Node\.js v20\.20\.2, and the repository's TypeScript sources need Node\.js 24 .*npm start, npm test.*\n$/);
  });

  it("the installed bin runs on Node 20.19+, names the supported versions below, and says what runs contract where the project's vitest 5 refuses Node 20", async () => {
    const bin = join(consumer, 'node_modules', 'service-external-api', 'dist', 'cli', 'bin.cjs');
    const old = await run(process.execPath, ['--require', as('20.18.1'), bin, '--version'], { cwd: consumer });
    expect(old.status).toBe(1);
    expect(old.stderr).toBe(
      'error: service-external-api needs Node.js ^20.19.0 || ^22.12.0 || >=24 (package.json engines), and this is Node.js v20.18.1; install Node.js 24 LTS.\n',
    );
    const help = await run(process.execPath, ['--require', as('20.20.2'), bin, 'mock', '--help'], { cwd: consumer });
    expect(help.status, explain(help)).toBe(0);
    expect(help.stdout).toMatch(/^Usage: service-external-api mock/);
    const contract = await run(process.execPath, ['--require', as('20.20.2'), bin, 'contract', '--base-url', 'http://127.0.0.1:9'], { cwd: consumer });
    expect(contract.status, explain(contract)).toBe(2);
    expect(contract.stderr).toBe(
      `error: service-external-api contract: this project's vitest ${installedVersion('vitest')} needs Node.js ^22.12.0 || ^24.0.0 || >=26.0.0, and this is Node.js v20.20.2; run the suite with vitest 4, which runs here: (cd "$(mktemp -d)" && npx --yes -p service-external-api@${manifest.version} -p vitest@4 -p fast-check@4 service-external-api contract --base-url http://127.0.0.1:9)\n`,
    );
  });

  it('a real Node.js older than 22 on this machine gets the same line from node mock/src/main.ts', async (context) => {
    // Every PATH entry but the repository's own node_modules/.bin, where npm ci put Node 24.
    const system = (process.env['PATH'] ?? '')
      .split(delimiter)
      .filter((dir) => dir && !dir.includes('node_modules'))
      .map((dir) => join(dir, 'node'))
      .find((file) => existsSync(file));
    const version = system === undefined ? undefined : spawnSync(system, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (system === undefined || version === undefined || Number(version.split('.')[0]) >= 22) {
      context.skip(`the machine's own node is ${version ?? 'missing'}, not older than 22 (the preload tests above cover the check)`);
      return;
    }
    const result = await run(system, [join(ROOT, 'mock', 'src', 'main.ts')], { cwd: ROOT, env: { PATH: dirname(system) } });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^error: this is Node\\.js v${version.replace(/\./g, '\\.')}, and the repository's TypeScript sources need Node\\.js 24`),
    );
    expect(result.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
  });
});

describe("the README's tables are the package's", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  /** The first column of the first table headed `| <header> |` after the line that starts with `after`. */
  const column = (header: string, after = ''): string[] => {
    const lines = readme.split('\n');
    const from = lines.findIndex((line) => line.startsWith(after));
    const start = lines.findIndex((line, i) => i > from && line.startsWith(`| ${header} |`));
    if (start < 0) throw new Error(`README.md has no table headed "${header}"`);
    const rows: string[] = [];
    for (const line of lines.slice(start + 2)) {
      if (!line.startsWith('|')) break;
      rows.push(line);
    }
    return rows.map((row) => row.split(' | ')[0] ?? '');
  };

  it('the entry-point table names exactly the exports of package.json', () => {
    const named = column('entry point').flatMap((cell) => [...cell.matchAll(/`service-external-api(\/[^`]*)?`/g)].map((m) => `.${m[1] ?? ''}`));
    const exported = Object.keys(manifest.exports).filter((key) => key !== './package.json');
    expect([...new Set(named)].sort()).toEqual([...exported].sort());
  });

  it("the command table names exactly the commands of the CLI's --help", async () => {
    const help = await run(process.execPath, [join(ROOT, 'cli', 'bin.cjs'), '--help'], { cwd: ROOT });
    expect(help.status, explain(help)).toBe(0);
    const commands = [...help.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1] ?? '');
    const named = column('command', 'One command line, `service-external-api`').flatMap((cell) =>
      [...cell.matchAll(/`service-external-api ([a-z]+)\b/g)].map((m) => m[1] ?? ''),
    );
    expect(commands.length).toBeGreaterThan(3);
    expect(named.sort()).toEqual(commands.sort());
  });
});

/** mock/README's `listen` options (msw 2 reads one name, msw 3 the other): the form every snippet there shows. */
const LISTEN_OPTIONS = /const strict = (\{ onUnhandledRequest: 'error', onUnhandledFrame: 'error' \}) as const;/.exec(
  readFileSync(join(ROOT, 'mock', 'docs', 'in-process.md'), 'utf8'),
)?.[1];

/** A file that types createMockApp with the project's @types/express and the MSW handlers with its msw, and calls
 * listen with mock/README's options (both names, through a const): strict TypeScript must accept it on msw 2 and 3. */
function writePeersTypes(dir: string): void {
  writeFileSync(
    join(dir, 'peers-types.ts'),
    `import { setupServer } from 'msw/node';
import { createMockHandlers, type MockHandlers } from 'service-external-api/msw';
import { createMockApp, type MockApp } from 'service-external-api/mock';
const mock: MockHandlers = createMockHandlers({ baseUrl: 'https://api.example.test' });
export const server = setupServer(...mock);
const strict = ${LISTEN_OPTIONS ?? '{}'} as const;
server.listen(strict);
export const app: MockApp = createMockApp();
export const port = (): number | undefined => { const address = app.listen(0).address(); return typeof address === 'object' && address !== null ? address.port : undefined; };
export const tokens = async (): Promise<string[]> => Object.values((await mock.fixtures()).tokens);
`,
  );
}

describe('the peer matrix: each entry point in projects with the oldest and newest of each supported major, on Node.js 24 and 20', () => {
  const NAMES = ['newest of everything', ...MATRIX.map((m) => m.name)];
  const project = (name: string): Project => {
    const found = projects.find((p) => p.name === name);
    if (!found) throw new Error(`no project ${name}`);
    return found;
  };
  /** The package's own mock, from the installed tarball, in this process: what each project's contract run checks. */
  let mockUrl = '';
  let mockServer: { close(): void } | undefined;
  beforeAll(async () => {
    const { createMockApp } = (await import(join(consumer, 'node_modules', 'service-external-api', 'dist', 'mock', 'src', 'index.js'))) as {
      createMockApp: () => { listen(port: number, host: string, ready: () => void): { address(): unknown; close(): void } };
    };
    await new Promise<void>((ready) => {
      const server = createMockApp().listen(0, '127.0.0.1', () => ready());
      mockServer = server;
    });
    mockUrl = `http://127.0.0.1:${(mockServer as unknown as { address(): { port: number } }).address().port}`;
  });
  afterAll(() => mockServer?.close());

  it('mock/README shows msw listen options that work on msw 2 and 3', () => {
    expect(LISTEN_OPTIONS).toBeDefined();
  });

  describe.each(NAMES)('%s', (name) => {
    for (const { label, node } of NODES)
      it(`on ${label}: createMockApp with its express, the MSW handlers with its msw (the README listen options refuse an unmatched request), the client`, async (context) => {
        if (node === undefined) {
          context.skip('no Node.js 20 on this machine');
          return;
        }
        const { dir, peers } = project(name);
        const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
        // msw 3 needs Node.js 22.12+ (its engines; on 20 its interceptor calls Promise.withResolvers): a combination
        // msw itself refuses, so there the script leaves msw out, and this says why.
        const msw = JSON.parse(readFileSync(join(dir, 'node_modules', 'msw', 'package.json'), 'utf8')) as { version: string; engines?: { node?: string } };
        const mswRuns = nodeSatisfies(msw.engines?.node ?? '*', version);
        if (!mswRuns) expect([msw.version.split('.')[0], version.split('.')[0]]).toEqual(['3', '20']);
        writeFileSync(
          join(dir, 'entries.mjs'),
          `import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createMockApp } from 'service-external-api/mock';
import { createClient } from 'service-external-api/client';
const version = (name) => JSON.parse(readFileSync('node_modules/' + name + '/package.json', 'utf8')).version;
const out = { express: version('express') };
const app = createMockApp();
const server = app.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const local = 'http://127.0.0.1:' + server.address().port;
const fixtures = await (await fetch(local + '/__mock/fixtures')).json();
const api = createClient({ baseUrl: local, token: fixtures.tokens.full_access });
const resumed = await api.resumeProject({ project_id: fixtures.projects.paused, message: '{"type":"doc","content":[]}' });
out.app = [resumed.status, resumed.body.project.state];
const again = await api.resumeProject({ project_id: fixtures.projects.paused, message: '{"type":"doc","content":[]}' });
out.again = [again.status, again.body.project.state];
const refused = await createClient({ baseUrl: local, token: fixtures.tokens.read_only }).resumeProject({ project_id: fixtures.projects.paused, message: '{"type":"doc","content":[]}' });
out.readOnlyApp = refused.status;
await new Promise((r) => server.close(r));
if (process.argv[2] !== 'no-msw') {
  const { setupServer } = await import('msw/node');
  const { createMockHandlers } = await import('service-external-api/msw');
  out.msw = version('msw');
  // A loopback port nobody listens on, for the request no handler matches.
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => probe.once('listening', r));
  const closed = probe.address().port;
  await new Promise((r) => probe.close(r));
  const baseUrl = 'https://api.example.test';
  const mock = createMockHandlers({ baseUrl });
  const msw = setupServer(...mock);
  const printed = [];
  const error = console.error;
  console.error = (...args) => void printed.push(args.join(' '));
  const strict = ${LISTEN_OPTIONS ?? '{}'};
  msw.listen(strict);
  const mswFixtures = await mock.fixtures();
  const resume = (token) => fetch(baseUrl + '/api/external/v1/projects/resume', { method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body: JSON.stringify({ project_id: mswFixtures.projects.paused, message: '{"type":"doc","content":[]}' }) });
  const readOnly = await resume(mswFixtures.tokens.read_only);
  out.readOnly = [readOnly.status, await readOnly.text()];
  const first = await resume(mswFixtures.tokens.full_access);
  out.first = [first.status, (await first.json()).project.state];
  // Refused by msw itself ('error': an [MSW] Error printed), never sent: one sent would meet the closed port (ECONNREFUSED).
  out.unmatched = await fetch('http://127.0.0.1:' + closed + '/unmatched').then((r) => 'answered ' + r.status, (e) => /ECONNREFUSED/.test(String(e.cause?.code ?? e.cause ?? '')) ? 'sent' : 'refused by msw');
  out.mswError = printed.some((line) => line.startsWith('[MSW] Error'));
  msw.close();
  console.error = error;
}
console.log(JSON.stringify(out));
`,
        );
        const result = await run(node, ['entries.mjs', ...(mswRuns ? [] : ['no-msw'])], { cwd: dir, timeout: 60_000 });
        expect(result.status, explain(result)).toBe(0);
        expect(JSON.parse(result.stdout)).toEqual({
          express: peers['express'],
          app: [200, 'active'],
          again: [200, 'active'],
          readOnlyApp: 403,
          ...(mswRuns ? { msw: peers['msw'], readOnly: [403, texts.readOnly], first: [200, 'active'], unmatched: 'refused by msw', mswError: true } : {}),
        });
      }, 90_000);

    for (const { label, node } of NODES)
      it(`on ${label}: the contract command with its vitest and fast-check (or, where that vitest refuses the Node.js, the one line to run instead)`, async (context) => {
        if (node === undefined) {
          context.skip('no Node.js 20 on this machine');
          return;
        }
        const { dir, peers } = project(name);
        const bin = join(dir, 'node_modules', 'service-external-api', 'dist', 'cli', 'bin.cjs');
        const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
        const vitest = peers['vitest'] ?? '';
        const refused = vitest.startsWith('5.') && version.startsWith('20.');
        const result = await run(node, [bin, 'contract', '--base-url', mockUrl, 'properties'], { cwd: dir, timeout: 120_000 });
        if (!refused) {
          expect(result.status, explain(result)).toBe(0);
          // vitest 3 shows the terminal's cursor again after the verdict (an escape sequence, nothing printed).
          expect(stripVTControlCharacters(result.stdout).trimEnd().split('\n').at(-1)).toMatch(
            /^contract: [1-9]\d* passed, 0 failed, 0 skipped, \d+ warnings(, 0 errors)? — PASS$/,
          );
          return;
        }
        // vitest 5 needs Node.js 22.12+: one line with the command that brings vitest 4 for the run.
        expect(result.status, explain(result)).toBe(2);
        expect(result.stderr).toBe(
          `error: service-external-api contract: this project's vitest ${vitest} needs Node.js ^22.12.0 || ^24.0.0 || >=26.0.0, and this is Node.js v${version}; run the suite with vitest 4, which runs here: (cd "$(mktemp -d)" && npx --yes -p service-external-api@${manifest.version} -p vitest@4 -p fast-check@4 service-external-api contract --base-url ${mockUrl} properties)\n`,
        );
        if (name !== 'oldest of the newest majors') return;
        // The line runs as printed, with Node 20's npm, but for the package from the tarball instead of the registry.
        const line = (result.stderr.split('which runs here: ')[1] ?? '').trim().replace(`service-external-api@${manifest.version}`, tarball);
        const ran = await run('sh', ['-c', line], {
          cwd: dir,
          env: { PATH: `${dirname(node)}${delimiter}/usr/bin${delimiter}/bin`, npm_config_prefer_offline: 'true' },
          timeout: 240_000,
        });
        expect(ran.status, explain(ran)).toBe(0);
        expect(ran.stdout.trimEnd().split('\n').at(-1)).toMatch(/^contract: [1-9]\d* passed, 0 failed, 0 skipped, \d+ warnings(, 0 errors)? — PASS$/);
      }, 300_000);

    // The types of the oldest of each older major (@types/express 4.17.21, msw 2.0.0); the newest of everything's are
    // checked with the file that imports every entry point (above), and the ones between are within these two.
    if (name === 'oldest of every older major')
      it('tsc (nodenext, strict, skipLibCheck: false): createMockApp with its @types/express, the MSW handlers with its msw and the README listen options', async () => {
        const { dir } = project(name);
        writePeersTypes(dir);
        writeFileSync(
          join(dir, 'tsconfig.peers.json'),
          JSON.stringify({
            compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, skipLibCheck: false, noEmit: true },
            files: ['peers-types.ts'],
          }),
        );
        const tsc = await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.peers.json'], {
          cwd: dir,
          timeout: 120_000,
        });
        expect(tsc.stdout, explain(tsc)).toBe('');
        expect(tsc.status, explain(tsc)).toBe(0);
      }, 150_000);
  });
});
