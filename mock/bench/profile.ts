// Where our mock's time goes per request: runs the mock as `npm start` does (its node flags, from launch.ts) under
// V8's CPU profiler (`--cpu-prof`), loads it with the bench worker, stops it with SIGINT (which writes the profile), and prints the top self-time functions and
// the self time per module group (our code, Express, openapi-backend, Ajv, JSON, Node, GC), over the load window.
// V8 samples wall time while the thread runs: a write to a loopback socket that wakes the load generator is where
// the mock gets preempted on a busy machine, so `socket write` can hold time that is waiting, not work; compare
// with the worker's server CPU µs/req (from /proc), printed first.
//
//   node mock/bench/profile.ts [--scenario resumeProject|closeGoal|unauthorized|sessions] [--duration S]
//                              [--connections N] [--self-check always|sample|off] [--dir DIR] [--top N]
//   node mock/bench/profile.ts --summarise FILE.cpuprofile [--top N]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Job, WorkerResult } from './job.ts';
import { clkTck, MOCK_MAIN, startFlags } from './proc.ts';
import { mockCheck, parseFixtures, scenarios } from './scenarios.ts';
import { isSelfCheckMode, SELF_CHECK_MODES } from '../src/answers/reply.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// ── the profile ────────────────────────────────────────────────────────────────────────────────────────────────────

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readProfile(path: string): Profile {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isRecord(parsed) || !Array.isArray(parsed['nodes']) || !Array.isArray(parsed['samples']) || !Array.isArray(parsed['timeDeltas']))
    throw new Error(`${path} is not a .cpuprofile`);
  // V8's .cpuprofile format (Profiler.Profile of the DevTools protocol), checked above at its top level.
  return parsed as unknown as Profile;
}

/** Express and the packages it brings (router, body parsing, HTTP helpers). */
const EXPRESS = new Set([
  'express',
  'router',
  'body-parser',
  'raw-body',
  'iconv-lite',
  'type-is',
  'media-typer',
  'mime-types',
  'mime-db',
  'content-type',
  'on-finished',
  'ee-first',
  'finalhandler',
  'send',
  'serve-static',
  'qs',
  'debug',
  'ms',
  'depd',
  'http-errors',
  'statuses',
  'setprototypeof',
  'inherits',
  'toidentifier',
  'parseurl',
  'path-to-regexp',
  'accepts',
  'negotiator',
  'vary',
  'cookie',
  'cookie-signature',
  'encodeurl',
  'escape-html',
  'fresh',
  'etag',
  'merge-descriptors',
  'proxy-addr',
  'forwarded',
  'ipaddr.js',
  'range-parser',
  'safe-buffer',
  'safer-buffer',
  'bytes',
  'unpipe',
  'content-disposition',
  'is-promise',
  'methods',
  'utils-merge',
  'call-bind-apply-helpers',
  'get-intrinsic',
  'side-channel',
  'object-inspect',
  'once',
  'wrappy',
  'es-errors',
  'math-intrinsics',
  'gopd',
  'has-symbols',
  'function-bind',
  'hasown',
  'dunder-proto',
  'es-object-atoms',
  'get-proto',
  'es-define-property',
  'call-bound',
  'side-channel-list',
  'side-channel-map',
  'side-channel-weakmap',
]);

function packageOf(url: string): string | undefined {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  return match?.[1];
}

/** The group a function's self time is counted under. */
function groupOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)' || functionName === '(root)') return 'V8/native (program)';
  if (url === '' && /^(writeUtf8String|writeLatin1String|writeAsciiString|writeUcs2String|writeBuffer|writev)$/.test(functionName))
    return 'socket write (syscall)';
  if (url === '' && /^validate\d+$/.test(functionName)) return 'ajv (generated validators)';
  if (url === '' && /^(stringify|parse|JSON\.|SerializeJSON|JsonStringify|JsonParse)/.test(functionName)) return 'JSON (native)';
  const pkg = packageOf(url);
  if (pkg) {
    if (EXPRESS.has(pkg)) return 'express (+deps)';
    if (pkg === 'openapi-backend' || pkg === 'openapi-types' || pkg === 'mock-json-schema' || pkg === 'bath-es5' || pkg === 'lodash')
      return pkg === 'lodash' ? 'lodash (openapi-backend)' : 'openapi-backend';
    if (
      pkg === 'ajv' ||
      pkg === 'ajv-formats' ||
      pkg === 'fast-uri' ||
      pkg === 'fast-deep-equal' ||
      pkg === 'json-schema-traverse' ||
      pkg === 'require-from-string'
    )
      return 'ajv';
    return pkg;
  }
  if (url.includes('/mock/src/') || url.includes('/spec/lib/') || url.includes('/generated/')) return 'our code';
  if (url.startsWith('node:')) return 'node internals';
  if (url === '') return 'V8 builtins (other)';
  return 'other';
}

function where(frame: CallFrame): string {
  if (!frame.url) return '(native)';
  const pkg = packageOf(frame.url);
  const path = pkg
    ? frame.url.slice(frame.url.indexOf(`node_modules/${pkg}/`) + 'node_modules/'.length)
    : frame.url.startsWith('file://')
      ? relative(ROOT, fileURLToPath(frame.url))
      : frame.url;
  return `${path}:${frame.lineNumber + 1}`;
}

export type Summary = {
  total_ms: number;
  idle_ms: number;
  top_self: Array<{ function: string; where: string; group: string; self_ms: number; percent: number }>;
  groups: Array<{ group: string; self_ms: number; percent: number }>;
  top_inclusive_ours: Array<{ function: string; where: string; total_ms: number; percent: number }>;
};

/**
 * Self time per function and per group, and inclusive time of our own functions, over the non-idle samples; with a
 * window (CLOCK_MONOTONIC µs, the clock of both V8's profile and process.hrtime), only the samples inside it.
 */
export function summarise(profile: Profile, top = 15, window?: { from: number; to: number }): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let idle = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (!node || (window && (at < window.from || at > window.to))) return;
    if (node.callFrame.functionName === '(idle)') idle += delta;
    else selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const keyOf = (f: CallFrame): string => `${f.functionName || '(anonymous)'}\u0000${where(f)}`;

  const perFunction = new Map<string, { frame: CallFrame; us: number }>();
  const perGroup = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const key = keyOf(node.callFrame);
    const entry = perFunction.get(key) ?? { frame: node.callFrame, us: 0 };
    entry.us += us;
    perFunction.set(key, entry);
    const group = groupOf(node.callFrame);
    perGroup.set(group, (perGroup.get(group) ?? 0) + us);
  }

  // Inclusive time of our functions: each sample counts once per function on its stack (recursion counted once).
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, { frame: CallFrame; us: number }>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const node = byId.get(current);
      if (!node || groupOf(node.callFrame) !== 'our code') continue;
      const key = keyOf(node.callFrame);
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = inclusive.get(key) ?? { frame: node.callFrame, us: 0 };
      entry.us += us;
      inclusive.set(key, entry);
    }
  }

  const pct = (us: number): number => Number(((us / Math.max(1, total)) * 100).toFixed(1));
  const ms = (us: number): number => Number((us / 1000).toFixed(1));
  return {
    total_ms: ms(total),
    idle_ms: ms(idle),
    top_self: [...perFunction.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({ function: e.frame.functionName || '(anonymous)', where: where(e.frame), group: groupOf(e.frame), self_ms: ms(e.us), percent: pct(e.us) })),
    groups: [...perGroup.entries()].sort((a, b) => b[1] - a[1]).map(([group, us]) => ({ group, self_ms: ms(us), percent: pct(us) })),
    top_inclusive_ours: [...inclusive.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({ function: e.frame.functionName || '(anonymous)', where: where(e.frame), total_ms: ms(e.us), percent: pct(e.us) })),
  };
}

function print(summary: Summary, requests?: number): void {
  const perRequest = (ms: number): string => (requests ? `${((ms * 1000) / requests).toFixed(1).padStart(7)} µs/req` : '');
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  out(
    `busy ${summary.total_ms} ms, idle ${summary.idle_ms} ms${requests ? `, ${requests} requests: ${((summary.total_ms * 1000) / requests).toFixed(0)} µs of profiled CPU per request` : ''}`,
  );
  out('\ntop self time');
  for (const e of summary.top_self)
    out(
      `${e.percent.toFixed(1).padStart(5)}%  ${e.self_ms.toFixed(0).padStart(6)} ms ${perRequest(e.self_ms)}  ${e.group.padEnd(26)} ${e.function}  ${e.where}`,
    );
  out('\nself time by group');
  for (const g of summary.groups) out(`${g.percent.toFixed(1).padStart(5)}%  ${g.self_ms.toFixed(0).padStart(6)} ms ${perRequest(g.self_ms)}  ${g.group}`);
  out('\nour functions, inclusive (self + callees)');
  for (const e of summary.top_inclusive_ours)
    out(`${e.percent.toFixed(1).padStart(5)}%  ${e.total_ms.toFixed(0).padStart(6)} ms ${perRequest(e.total_ms)}  ${e.function}  ${e.where}`);
}

// ── the run ────────────────────────────────────────────────────────────────────────────────────────────────────────

async function profileMock(
  scenario: string,
  duration: number,
  connections: number,
  dir: string,
  selfCheck: string | undefined,
): Promise<{ file: string; result: WorkerResult; window: { from: number; to: number } }> {
  mkdirSync(dir, { recursive: true });
  const before = new Set(readdirSync(dir));
  // Exactly `npm start -- --port 0 [--self-check MODE]`, plus the profiler's flags.
  const args = [
    ...startFlags(),
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    MOCK_MAIN,
    '--port',
    '0',
    ...(selfCheck === undefined ? [] : ['--self-check', selfCheck]),
  ];
  const mock = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const stopMock = (): void => void mock.kill('SIGKILL');
  process.once('exit', stopMock);
  let banner = '';
  mock.stdout.on('data', (chunk: Buffer) => {
    banner += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => mock.once('exit', () => resolve()));
  let port: number | undefined;
  for (let waited = 0; port === undefined; waited += 10) {
    port = Number(/^port: (\d+)$/m.exec(banner)?.[1]) || undefined;
    if (waited > 30_000) throw new Error('the mock printed no port');
    await sleep(10);
  }
  const base = `http://127.0.0.1:${port}`;
  const fixtures = parseFixtures(await (await fetch(`${base}/__mock/fixtures`)).json());
  const chosen = scenarios(fixtures, 50).find((s) => s.name === scenario);
  if (!chosen) throw new Error(`--scenario must be resumeProject, closeGoal, unauthorized or sessions, got "${scenario}"`);
  const job: Job = {
    url: base,
    serverPid: mock.pid ?? 0,
    clkTck: clkTck(),
    connections,
    warmupSeconds: 0,
    durationSeconds: duration,
    requests: chosen.requests,
    expectStatus: chosen.expectStatus,
    check: mockCheck(chosen, fixtures),
  };
  const from = Number(process.hrtime.bigint() / 1000n);
  const worker = spawn(process.execPath, ['mock/bench/worker.ts'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  worker.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  worker.stdin.end(JSON.stringify(job));
  await new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const to = Number(process.hrtime.bigint() / 1000n);
  const result: unknown = JSON.parse(output.trim().split('\n').pop() ?? '{}');
  if (!isRecord(result) || typeof result['rps'] !== 'number') throw new Error('the load worker printed no result');
  mock.kill('SIGINT');
  await exited;
  process.removeListener('exit', stopMock);
  const written = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && !before.has(f));
  const file = written[0];
  if (!file) throw new Error(`no .cpuprofile was written to ${dir}`);
  // Written by worker.ts: the WorkerResult shape.
  return { file: join(dir, file), result: result as unknown as WorkerResult, window: { from, to } };
}

const USAGE = `Usage: node mock/bench/profile.ts [options]   where our mock's time goes under load (see mock/bench/README.md)

  --scenario NAME     resumeProject (default), closeGoal, unauthorized or sessions
  --duration S        seconds of load (10)
  --connections N     autocannon connections (50)
  --self-check MODE   always, sample or off, passed to the mock (default: the mock's own, always)
  --dir DIR           where the .cpuprofile goes (a new temporary folder)
  --top N             functions listed (15)
  --summarise FILE    only summarise an existing .cpuprofile
  --help              this text`;

let parsed: ReturnType<typeof parseOptions>;
try {
  parsed = parseOptions();
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message.split('\n')[0] : String(error)} (see --help)\n`);
  process.exit(2);
}

function parseOptions() {
  return parseArgs({
    options: {
      help: { type: 'boolean' },
      scenario: { type: 'string', default: 'resumeProject' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      dir: { type: 'string' },
      top: { type: 'string', default: '15' },
      summarise: { type: 'string' },
      'self-check': { type: 'string' },
    },
  });
}
const { values } = parsed;
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const selfCheck = values['self-check'];
if (selfCheck !== undefined && !isSelfCheckMode(selfCheck)) {
  process.stderr.write(`error: --self-check must be ${SELF_CHECK_MODES.join(', ')}, got "${selfCheck}"\n`);
  process.exit(2);
}
const top = Number(values.top);
if (values.summarise) {
  print(summarise(readProfile(values.summarise), top));
} else {
  const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'mock-prof-'));
  const { file, result, window } = await profileMock(values.scenario, Number(values.duration), Number(values.connections), dir, selfCheck);
  process.stdout.write(
    `${values.scenario}${selfCheck === undefined ? '' : ` (--self-check ${selfCheck})`}: ${result.responses} responses in ${result.duration_s} s (${result.rps} req/s), ${result.mismatches + result.unexpected_status} wrong, server CPU ${result.server_cpu_us_per_request} µs/req\nprofile: ${file}\n\n`,
  );
  // Only the load window: the start-up (document loading, validator compilation) is not per-request cost.
  print(summarise(readProfile(file), top, window), result.responses);
}
