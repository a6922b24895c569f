// `npm run compat`: the mainstream OpenAPI tools, each run on the literal bundle (generated/openapi.json) and on the
// acyclic export (generated/openapi.acyclic.json), each run in its own process group with a time limit. Prints a
// markdown table: tool, version, file, result, time, first error line (or what was measured). Opt-in: the tools the
// package never imports are this folder's own dependencies (package.json here, pinned by its package-lock.json), which
// `npm run compat` installs into spec/compat/node_modules before the first run; Prism, Redocly, openapi-typescript,
// TypeScript and playwright-core come from the root's install. swagger-ui runs in Debian's chromium.
//
//   node spec/compat/compat.ts [--timeout S] [--tool NAME]... [--file literal|acyclic]
//   node spec/compat/compat.ts --probe NAME --file PATH     (one probe; prints one JSON line; used by the table)
//
// The Prism probes and the helpers are spec/tools/prism.ts, which npm test runs without this folder's install
// (spec/test/compat.test.ts); this folder's own tests (compat.test.ts) run with `npm --prefix spec/compat test`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { isObject } from '../lib/openapi.ts';
import {
  binOf,
  FILES,
  firstErrorLine,
  packageDir,
  packageVersion,
  prismMock,
  prismProxy,
  ROOT,
  seconds,
  type FileName,
  type ProbeResult,
} from '../tools/prism.ts';

type Probe = (file: string, work: string) => Promise<ProbeResult>;
type Tool = { name: string; packageName: string; probe: Probe } | { name: string; packageName: string; skip: string };

// ── helpers ──────────────────────────────────────────────────────────────────────────────────────────────────────

type Run = { status: number | null; output: string };

function run(script: string, args: ReadonlyArray<string>, cwd: string): Run {
  const result = spawnSync(process.execPath, [script, ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** A folder whose node_modules holds exactly the packages given (symlinks), so generated code resolves them. */
function projectWith(work: string, packages: Record<string, string>): void {
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'package.json'), '{ "type": "module", "private": true }\n');
  for (const [name, dir] of Object.entries(packages)) {
    mkdirSync(dirname(join(work, 'node_modules', name)), { recursive: true });
    symlinkSync(dir, join(work, 'node_modules', name), 'dir');
  }
}

/** The directory of the package `name` as `from` (a package directory) resolves it. */
function resolvedFrom(from: string, name: string): string {
  let dir = dirname(createRequire(join(from, 'package.json')).resolve(`${name}/package.json`));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

/** tsc (the repository's TypeScript) on the given files, strict, emitting ES modules into `outDir`. */
function compile(files: ReadonlyArray<string>, outDir: string, cwd: string): { errors: number; first: string } {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = run(
    tsc,
    [
      '--strict',
      '--skipLibCheck',
      '--rewriteRelativeImportExtensions',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--outDir',
      outDir,
      ...files,
    ],
    cwd,
  );
  const errors = result.output.split('\n').filter((l) => /error TS\d+/.test(l));
  return { errors: errors.length, first: errors[0]?.trim() ?? (result.status === 0 ? '' : firstErrorLine(result.output)) };
}

function filesUnder(dir: string, extension: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => extname(f) === extension)
    .map((f) => join(dir, f));
}

function sizeOf(files: ReadonlyArray<string>): string {
  const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
  return bytes > 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** A command-line generator passes when it exits 0 and writes something. */
function cliProbe(packageName: string, command: string | undefined, args: (file: string, out: string) => string[], outName: string): Probe {
  return async (file, work) => {
    const out = join(work, outName);
    const result = run(binOf(packageName, command), args(file, out), work);
    const written = existsSync(out) ? (statSync(out).isDirectory() ? filesUnder(out, '.ts').concat(filesUnder(out, '.json')) : [out]) : [];
    if (result.status !== 0) return { ok: false, note: firstErrorLine(result.output) };
    if (written.length === 0) return { ok: false, note: `exit 0 but nothing written: ${firstErrorLine(result.output)}` };
    return { ok: true, note: `wrote ${sizeOf(written)}` };
  };
}

// ── the probes ───────────────────────────────────────────────────────────────────────────────────────────────────

/** @apidevtools/swagger-parser `validate()`: schema-valid OpenAPI and every `$ref` resolves. */
export async function swaggerParserValidate(file: string): Promise<ProbeResult> {
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  try {
    await SwaggerParser.validate(file);
    return { ok: true, note: 'valid' };
  } catch (error) {
    // "Swagger schema validation failed." comes first; the line after it names the place.
    const lines = (error instanceof Error ? error.message : String(error))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    return { ok: false, note: lines.slice(0, 2).join(' ') };
  }
}

/** openapi-zod-client's output compiles with tsc (strict) against the zod and @zodios/core it depends on, and imports. */
export async function zodClient(file: string, work: string): Promise<ProbeResult> {
  const generator = packageDir('openapi-zod-client');
  projectWith(work, { zod: resolvedFrom(generator, 'zod'), '@zodios/core': resolvedFrom(generator, '@zodios/core') });
  const source = join(work, 'client.ts');
  const generated = run(binOf('openapi-zod-client'), [file, '-o', source], work);
  if (generated.status !== 0 || !existsSync(source)) return { ok: false, note: `generation failed: ${firstErrorLine(generated.output)}` };
  const compiled = compile([source], join(work, 'out'), work);
  if (compiled.errors > 0) return { ok: false, note: `${compiled.errors} tsc errors, first: ${compiled.first}` };
  const imported = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(join(work, 'out', 'client.js')).href)}); console.log(Object.keys(m.schemas ?? {}).length)`,
    ],
    { cwd: work, encoding: 'utf8' },
  );
  if (imported.status !== 0) return { ok: false, note: `compiles, import fails: ${firstErrorLine(imported.stderr)}` };
  return { ok: true, note: `0 tsc errors, imports (${imported.stdout.trim()} schemas, ${sizeOf([source])})` };
}

/** kubb 4: @kubb/plugin-oas + @kubb/plugin-zod (zod 4), then tsc on the output. */
async function kubbZod(file: string, work: string): Promise<ProbeResult> {
  const core = await import('@kubb/core');
  const { pluginOas } = await import('@kubb/plugin-oas');
  const { pluginZod } = await import('@kubb/plugin-zod');
  projectWith(work, { zod: packageDir('zod') });
  // kubb writes some of its output (the oas plugin's JSON schemas, the barrel file) relative to the working
  // directory whatever `root` says; this probe runs in a process of its own, so it can move there.
  process.chdir(work);
  const { error } = await core.safeBuild({
    config: { root: work, input: { path: file }, output: { path: 'gen', clean: true }, plugins: [pluginOas({ validate: false }), pluginZod({ version: '4' })] },
  });
  if (error) return { ok: false, note: `generation failed: ${firstErrorLine(error.message)}` };
  const files = filesUnder(join(work, 'gen'), '.ts');
  if (files.length === 0) return { ok: false, note: 'generated nothing' };
  const compiled = compile(files, join(work, 'out'), work);
  return compiled.errors > 0
    ? { ok: false, note: `${compiled.errors} tsc errors, first: ${compiled.first}` }
    : { ok: true, note: `0 tsc errors (${files.length} files, ${sizeOf(files)})` };
}

/** msw-auto-mock: exits 0 with no circular-reference warning; the note gives the handlers' size. */
async function mswAutoMock(file: string, work: string): Promise<ProbeResult> {
  const out = join(work, 'mock');
  const result = run(binOf('msw-auto-mock'), [file, '-o', out], work);
  const circular = result.output.split('\n').filter((l) => /circular/i.test(l)).length;
  const files = filesUnder(out, '.js').concat(filesUnder(out, '.ts'));
  if (result.status !== 0 || files.length === 0) return { ok: false, note: firstErrorLine(result.output) || `exit ${result.status}` };
  return { ok: circular === 0, note: `${circular} circular-reference warnings, handlers ${sizeOf(files)}` };
}

/** openapi-typescript: the output has named types for Project, Goal and Person. */
async function openapiTypescript(file: string, work: string): Promise<ProbeResult> {
  const out = join(work, 'types.ts');
  const result = run(binOf('openapi-typescript'), [file, '-o', out], work);
  if (result.status !== 0 || !existsSync(out)) return { ok: false, note: firstErrorLine(result.output) };
  const text = readFileSync(out, 'utf8');
  const missing = ['Project', 'Goal', 'Person'].filter((name) => !new RegExp(`^ {8}${name}: \\{`, 'm').test(text));
  const unknowns = (text.match(/\bunknown\b/g) ?? []).length;
  return missing.length > 0
    ? { ok: false, note: `no named type for ${missing.join(', ')}` }
    : { ok: true, note: `named Project, Goal, Person; ${unknowns} \`unknown\`s, ${sizeOf([out])}` };
}

async function scalar(file: string): Promise<ProbeResult> {
  const { validate, dereference } = await import('@scalar/openapi-parser');
  const content = readFileSync(file, 'utf8');
  const result = await validate(content);
  if (!result.valid) return { ok: false, note: firstErrorLine(JSON.stringify(result.errors?.[0] ?? 'invalid')) };
  const dereferenced = await dereference(content);
  return dereferenced.errors && dereferenced.errors.length > 0
    ? { ok: false, note: firstErrorLine(JSON.stringify(dereferenced.errors[0])) }
    : { ok: true, note: 'valid, dereferences' };
}

async function spectral(file: string, work: string): Promise<ProbeResult> {
  const ruleset = join(work, '.spectral.yaml');
  writeFileSync(ruleset, 'extends: ["spectral:oas"]\n');
  const result = run(binOf('@stoplight/spectral-cli'), ['lint', file, '--ruleset', ruleset, '--fail-severity', 'error', '--format', 'text'], work);
  const problems = result.output.split('\n').filter((l) => /\b(error|warning)\b/.test(l) && /:\d+:\d+/.test(l));
  const errors = problems.filter((l) => /\berror\b/.test(l)).length;
  if (result.status !== 0) return { ok: false, note: `${errors} errors, first: ${firstErrorLine(problems.join('\n') || result.output)}` };
  return { ok: true, note: `spectral:oas, ${problems.length} warnings` };
}

async function redocly(file: string, work: string): Promise<ProbeResult> {
  const result = run(binOf('@redocly/cli', 'redocly'), ['lint', file, '--config', join(ROOT, 'spec', 'redocly.yaml'), '--format', 'stylish'], work);
  return result.status === 0 ? { ok: true, note: 'spec/redocly.yaml rules, 0 problems' } : { ok: false, note: firstErrorLine(result.output) };
}

/** swagger-ui 5 in headless Chromium: each operation opens (its responses render) with under 3 s of main-thread work. */
async function swaggerUi(file: string): Promise<ProbeResult> {
  const chromium = '/usr/bin/chromium';
  if (!existsSync(chromium)) return { ok: false, note: 'needs Debian chromium at /usr/bin/chromium (apt-get install chromium)' };
  const dist = packageDir('swagger-ui-dist');
  const page = `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/ui/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/ui/swagger-ui-bundle.js"></script><script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui' });</script></body></html>`;
  const server: Server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (url === '/') response.writeHead(200, { 'content-type': 'text/html' }).end(page);
    else if (url === '/openapi.json') response.writeHead(200, { 'content-type': 'application/json' }).end(readFileSync(file));
    else if (url.startsWith('/ui/') && existsSync(join(dist, url.slice(4))))
      response.writeHead(200, { 'content-type': url.endsWith('.css') ? 'text/css' : 'text/javascript' }).end(readFileSync(join(dist, url.slice(4))));
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  const { chromium: launcher } = await import('playwright-core');
  const browser = await launcher.launch({
    executablePath: chromium,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const tab = await browser.newPage();
    await tab.route(
      (url) => !url.href.startsWith(origin),
      (route) => route.abort(),
    );
    await tab.goto(origin);
    const summaries = tab.locator('.opblock .opblock-summary');
    await summaries.first().waitFor({ timeout: 60_000 });
    const count = await summaries.count();
    // The main thread's CPU time is what opening costs; on a busy machine the wall time also holds other processes'
    // turns, so both are reported and the CPU time is judged.
    const cdp = await tab.context().newCDPSession(tab);
    await cdp.send('Performance.enable');
    const busy = async (): Promise<number> => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')?.value ?? 0;
    const wall: number[] = [];
    const work: number[] = [];
    for (let i = 0; i < count; i++) {
      const since = performance.now();
      const before = await busy();
      await summaries.nth(i).click({ timeout: 60_000 });
      await tab.locator('.opblock').nth(i).locator('.responses-table .response').first().waitFor({ timeout: 60_000 });
      work.push((await busy()) - before);
      wall.push((performance.now() - since) / 1000);
      await summaries.nth(i).click({ timeout: 60_000 });
    }
    const slowest = Math.max(...work);
    const list = (values: number[]): string => values.map((t) => t.toFixed(1)).join(', ');
    const note = `opened ${count} operations: main-thread CPU ${list(work)} s (wall ${list(wall)} s)`;
    return { ok: count > 0 && slowest < 3, note: slowest < 3 ? note : `${note}, over 3 s` };
  } finally {
    await browser.close();
    server.close();
  }
}

async function openapiToPostman(file: string, work: string): Promise<ProbeResult> {
  const out = join(work, 'collection.json');
  const result = run(binOf('openapi-to-postmanv2'), ['-s', file, '-o', out], work);
  if (result.status !== 0 || !existsSync(out)) return { ok: false, note: firstErrorLine(result.output) };
  const collection: unknown = JSON.parse(readFileSync(out, 'utf8'));
  const items = isObject(collection) && Array.isArray(collection['item']) ? collection['item'].length : 0;
  return items > 0 ? { ok: true, note: `collection with ${items} folders, ${sizeOf([out])}` } : { ok: false, note: 'empty collection' };
}

export const TOOLS: ReadonlyArray<Tool> = [
  { name: 'prism mock', packageName: '@stoplight/prism-cli', probe: (file) => prismMock(file) },
  { name: 'prism proxy (in front of npm start)', packageName: '@stoplight/prism-cli', probe: (file) => prismProxy(file) },
  { name: 'openapi-zod-client (+ tsc, import)', packageName: 'openapi-zod-client', probe: zodClient },
  { name: 'kubb zod plugin (+ tsc)', packageName: '@kubb/plugin-zod', probe: kubbZod },
  { name: 'msw-auto-mock', packageName: 'msw-auto-mock', probe: mswAutoMock },
  { name: 'swagger-ui (open each operation)', packageName: 'swagger-ui-dist', probe: (file) => swaggerUi(file) },
  { name: 'swagger-parser validate()', packageName: '@apidevtools/swagger-parser', probe: (file) => swaggerParserValidate(file) },
  { name: 'orval', packageName: 'orval', probe: cliProbe('orval', 'orval', (file, out) => ['--input', file, '--output', out], 'orval.ts') },
  {
    name: '@hey-api/openapi-ts',
    packageName: '@hey-api/openapi-ts',
    probe: cliProbe('@hey-api/openapi-ts', 'openapi-ts', (file, out) => ['-i', file, '-o', out], 'hey-api'),
  },
  { name: 'openapi-typescript', packageName: 'openapi-typescript', probe: openapiTypescript },
  { name: 'oazapfts', packageName: 'oazapfts', probe: cliProbe('oazapfts', 'oazapfts', (file, out) => [file, out], 'oazapfts.ts') },
  {
    name: 'swagger-typescript-api',
    packageName: 'swagger-typescript-api',
    probe: cliProbe('swagger-typescript-api', 'swagger-typescript-api', (file, out) => ['generate', '--path', file, '--output', out], 'sta'),
  },
  { name: 'Spectral (spectral:oas)', packageName: '@stoplight/spectral-cli', probe: spectral },
  { name: 'Redocly lint', packageName: '@redocly/cli', probe: redocly },
  { name: 'Scalar openapi-parser', packageName: '@scalar/openapi-parser', probe: (file) => scalar(file) },
  { name: 'openapi-to-postmanv2', packageName: 'openapi-to-postmanv2', probe: openapiToPostman },
  {
    name: 'Dredd',
    packageName: 'dredd',
    skip: 'not installed: archived upstream (the apiaryio organization, November 2024; last release 14.1.0 in 2021), OpenAPI 3.0 support experimental and 3.1 unsupported, and about 170 packages (53 MB) on every npm ci; npm run contract checks a server against the spec here',
  },
];

// ── the table ────────────────────────────────────────────────────────────────────────────────────────────────────

export type Row = { tool: string; version: string; file: FileName; result: 'ok' | 'FAIL' | 'TIMEOUT' | 'skipped'; time: string; note: string };

/** Runs one probe in its own process group, killed (with everything it started) after `timeoutS` seconds. */
function runProbe(tool: string, file: FileName, timeoutS: number): Promise<Omit<Row, 'tool' | 'version' | 'file'>> {
  const since = performance.now();
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--probe', tool, '--file', FILES[file]], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutS * 1000);
    child.once('exit', () => {
      clearTimeout(timer);
      const time = seconds(since);
      if (timedOut) return resolve({ result: 'TIMEOUT', time, note: `no result within ${timeoutS} s${stderr ? `: ${firstErrorLine(stderr)}` : ''}` });
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        const parsed: unknown = JSON.parse(line);
        if (isObject(parsed) && typeof parsed['ok'] === 'boolean' && typeof parsed['note'] === 'string')
          return resolve({ result: parsed['ok'] ? 'ok' : 'FAIL', time, note: parsed['note'] });
      } catch {
        // not a result line: the probe crashed
      }
      resolve({ result: 'FAIL', time, note: `crashed: ${firstErrorLine(stderr || stdout)}` });
    });
  });
}

export function markdownTable(rows: ReadonlyArray<Row>): string {
  const cell = (s: string): string => s.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const lines = ['| tool | version | file | result | time | first error line / measured |', '|---|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${cell(r.tool)} | ${r.version} | ${r.file} | ${r.result} | ${r.time} | ${cell(r.note)} |`);
  return lines.join('\n');
}

async function probeMain(name: string, file: string): Promise<void> {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool || !('probe' in tool)) throw new Error(`no probe named ${name}`);
  const work = mkdtempSync(join(tmpdir(), 'compat-'));
  try {
    const result = await tool.probe(file, work);
    process.stdout.write(`\n${JSON.stringify(result)}\n`);
  } catch (error) {
    process.stdout.write(`\n${JSON.stringify({ ok: false, note: firstErrorLine(error instanceof Error ? `${error.message}` : String(error)) })}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.exit(0);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { timeout: { type: 'string' }, tool: { type: 'string', multiple: true }, file: { type: 'string' }, probe: { type: 'string' } },
  });
  if (values.probe !== undefined) return probeMain(values.probe, values.file ?? '');
  const timeoutS = Number(values.timeout ?? '120');
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new Error('--timeout takes a number of seconds');
  const files: FileName[] = values.file === undefined ? ['literal', 'acyclic'] : [values.file === 'literal' ? 'literal' : 'acyclic'];
  const tools = values.tool === undefined ? TOOLS : TOOLS.filter((t) => values.tool?.some((wanted) => t.name.toLowerCase().startsWith(wanted.toLowerCase())));
  const rows: Row[] = [];
  for (const tool of tools) {
    for (const file of files) {
      const version = packageVersion(tool.packageName);
      if ('skip' in tool)
        rows.push({ tool: tool.name, version: version === 'not installed' ? '—' : version, file, result: 'skipped', time: '—', note: tool.skip });
      else rows.push({ tool: tool.name, version, file, ...(await runProbe(tool.name, file, timeoutS)) });
      const row = rows[rows.length - 1];
      if (row) process.stderr.write(`${row.result.padEnd(7)} ${row.tool} on ${row.file} (${row.time}): ${row.note}\n`);
    }
  }
  console.log(
    `\nnpm run compat, ${new Date().toISOString().slice(0, 10)}, time limit ${timeoutS} s per run; literal = ${relative(ROOT, FILES.literal)}, acyclic = ${relative(ROOT, FILES.acyclic)}\n`,
  );
  console.log(markdownTable(rows));
}

if (import.meta.main) await main();
