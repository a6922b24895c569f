// `npm run bench`: the mock against Prism and two bare baselines, in one run, on loopback, with the ratios DESIGN.md
// sets as targets. See mock/bench/README.md for what is measured and how to read it.
//
//   node mock/bench/run.ts [--duration S] [--warmup S] [--rounds N] [--connections N] [--cold-starts N]
//                          [--sessions N] [--prism-probe S] [--out FILE]
//
// Exit 0 when every server answered every request with the expected status and a correct body (targets that are
// not met are reported, not failed); 1 when any did not, when our mock had a socket error or timeout, or when a
// server could not be started; 2 on a bad option.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ACYCLIC_DOCUMENT_URL, dereference, isObject, listOperations, loadDocument, DOCUMENT_URL, type JsonObject } from '../../spec/lib/openapi.ts';
import { bodyMatcher, type BodyCheck, type Job, type RequestSpec, type WorkerResult } from './job.ts';
import { clkTck, machineLoad, rssBytes, serverPid } from './proc.ts';
import { startArgs } from '../src/launch.ts';
import { freePort, REDIS_SERVER, startRedis, type RedisServer } from '../test/redisServer.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MOCK_MAIN = 'mock/src/main.ts';

const BARE = 'mock/bench/bare.ts';
const WORKER = 'mock/bench/worker.ts';
const API = '/api/external/v1';
const RICH_TEXT = JSON.stringify({ type: 'doc', content: [] });

// ── options ────────────────────────────────────────────────────────────────────────────────────────────────────────

const USAGE = `Usage: node mock/bench/run.ts [options]   (npm run bench -- [options])

  --duration S      measured seconds per run (default 3; env BENCH_DURATION)
  --warmup S        warm-up seconds before a server's first run of a scenario (default 2; env BENCH_WARMUP)
  --rounds N        runs per server and scenario, interleaved; the median is reported (default 2; env BENCH_ROUNDS)
  --connections N   concurrent connections (default 50; env BENCH_CONNECTIONS)
  --cold-starts N   starts per server for the cold-start median (default 3)
  --sessions N      X-Mock-Session names the session scenario rotates through (default 50)
  --prism-probe S   seconds to wait for Prism on generated/openapi.json itself before using generated/openapi.acyclic.json
                    (default 5; 0 skips the probe)
  --out FILE        where to write the results (default mock/bench/results/latest.json)
  --help            show this help

Quick smoke run: node mock/bench/run.ts --duration 1 --warmup 1 --rounds 1 --cold-starts 1 --prism-probe 0`;

type Settings = { duration: number; warmup: number; rounds: number; connections: number; coldStarts: number; sessions: number; prismProbe: number; out: string };

function usageError(message: string): never {
  process.stderr.write(`error: ${message} (see --help)\n`);
  process.exit(2);
}

function readSettings(): Settings {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        duration: { type: 'string' },
        warmup: { type: 'string' },
        rounds: { type: 'string' },
        connections: { type: 'string' },
        'cold-starts': { type: 'string' },
        sessions: { type: 'string' },
        'prism-probe': { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    usageError(error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error));
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const number = (name: string, raw: string | undefined, fallback: number, min: number, max: number, integer: boolean): number => {
    if (raw === undefined || raw.trim() === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) usageError(`${name} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${raw}"`);
    return n;
  };
  const env = process.env;
  return {
    duration: number('--duration', values.duration ?? env['BENCH_DURATION'], 3, 0.5, 600, false),
    warmup: number('--warmup', values.warmup ?? env['BENCH_WARMUP'], 2, 0, 600, false),
    rounds: number('--rounds', values.rounds ?? env['BENCH_ROUNDS'], 2, 1, 20, true),
    connections: number('--connections', values.connections ?? env['BENCH_CONNECTIONS'], 50, 1, 1000, true),
    coldStarts: number('--cold-starts', values['cold-starts'], 3, 0, 20, true),
    sessions: number('--sessions', values.sessions, 50, 1, 100, true),
    prismProbe: number('--prism-probe', values['prism-probe'], 5, 0, 600, false),
    out: values.out ?? join(ROOT, 'mock/bench/results/latest.json'),
  };
}

// ── child processes: every one is tracked and ends with us ─────────────────────────────────────────────────────────

type Proc = { name: string; child: ChildProcess; pid: number; stdout: () => string; stderr: () => string; exited: Promise<number | null>; hasExited: () => boolean };

const live = new Set<Proc>();

/** Starts `node <args>` in its own process group (so a signal reaches its children too), stdout and stderr kept. */
function launch(name: string, args: string[], options: { stdin?: string; keepStdout?: 'all' | 'head' } = {}): Proc {
  const child = spawn(process.execPath, args, { cwd: ROOT, detached: true, stdio: [options.stdin === undefined ? 'ignore' : 'pipe', options.keepStdout ? 'pipe' : 'ignore', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  let out = '';
  let err = '';
  // A server's stdout is drained for its whole life; only its head (the banner with the port) is kept.
  child.stdout?.on('data', (chunk: Buffer) => {
    if (options.keepStdout === 'all' || out.length < 65536) out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString('utf8')).slice(-8192);
  });
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      done = true;
      live.delete(proc);
      resolve(code);
    });
  });
  const proc: Proc = { name, child, pid: child.pid, stdout: () => out, stderr: () => err, exited, hasExited: () => done };
  live.add(proc);
  return proc;
}

function signalGroup(proc: Proc, signal: NodeJS.Signals): void {
  try {
    process.kill(-proc.pid, signal);
  } catch {
    // already gone
  }
}

/** SIGTERM to the process group, then SIGKILL if it is still there after `graceMs`. */
async function stop(proc: Proc, graceMs = 3000): Promise<void> {
  if (proc.hasExited()) return;
  signalGroup(proc, 'SIGTERM');
  const timer = sleep(graceMs).then(() => 'timeout' as const);
  if ((await Promise.race([proc.exited, timer])) === 'timeout') {
    signalGroup(proc, 'SIGKILL');
    await proc.exited;
  }
}

async function stopAll(): Promise<void> {
  await Promise.all([...live].map((p) => stop(p)));
}

let redisServer: RedisServer | undefined;
/** Set by SIGINT/SIGTERM/SIGHUP: the run is being torn down, and what fails from here on is not news. */
let interrupted = false;
process.on('exit', () => {
  for (const proc of live) signalGroup(proc, 'SIGKILL');
  try {
    redisServer?.process().kill('SIGKILL');
  } catch {
    // not running
  }
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping ${live.size} child process(es)\n`);
    void stopAll().finally(() => process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1)));
  });
}

async function waitForPort(proc: Proc, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const match = /^port: (\d+)$/m.exec(proc.stdout());
    if (match?.[1]) return Number(match[1]);
    if (proc.hasExited()) throw new Error(`${proc.name} exited before printing its port: ${proc.stderr().trim().split('\n').slice(-3).join(' | ')}`);
    if (performance.now() > deadline) throw new Error(`${proc.name} printed no port within ${timeoutMs} ms`);
    await sleep(2);
  }
}

// ── HTTP from the orchestrator (fixtures, reference bodies, readiness polls) ──────────────────────────────────────

type Reply = { status: number; body: string; headers: Headers };

/** A request that shows a server is up and right: the status and body it must answer with. */
type Probe = { request: { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string }; status: number; check: BodyCheck };

async function send(base: string, request: Probe['request']): Promise<Reply> {
  const response = await fetch(`${base}${request.path}`, { method: request.method, headers: request.headers, body: request.body, signal: AbortSignal.timeout(5000) });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

/** Polls every ~10 ms until the answer has the status and a correct body; the time from `since` to that answer. */
async function firstCorrect(proc: Proc, base: () => string | undefined, probe: Probe, since: number, timeoutMs: number): Promise<number> {
  const { request, status: expectStatus } = probe;
  const matches = bodyMatcher(probe.check);
  let last = 'no answer yet';
  for (;;) {
    const url = base();
    if (url) {
      try {
        const reply = await send(url, request);
        if (reply.status === expectStatus && matches(reply.body)) return performance.now() - since;
        last = `${reply.status} ${reply.body.slice(0, 120)}`;
      } catch (error) {
        last = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      }
    }
    if (proc.hasExited()) throw new Error(`${proc.name} exited before a correct answer: ${proc.stderr().trim().split('\n').slice(-3).join(' | ')}`);
    if (performance.now() - since > timeoutMs) throw new Error(`${proc.name} gave no correct ${expectStatus} within ${Math.round(timeoutMs / 1000)} s (last: ${last})`);
    await sleep(10);
  }
}

// ── the servers ────────────────────────────────────────────────────────────────────────────────────────────────────

const SERVERS = ['mock', 'prism-default', 'prism-warn', 'express', 'http'] as const;
/** Our mock with its state in Redis (--store): one replica, and two replicas with the load split evenly over them. */
const SHARED = ['redis-1', 'redis-2'] as const;
type ServerName = (typeof SERVERS)[number] | (typeof SHARED)[number];
const LABELS: Record<ServerName, string> = {
  mock: 'our mock',
  'prism-default': 'Prism (default)',
  'prism-warn': 'Prism -v warn',
  express: 'bare Express 5',
  http: 'bare node:http',
  'redis-1': 'ours, Redis ×1',
  'redis-2': 'ours, Redis ×2',
};

/** A server; a shared-store mock also has its other replicas and the Redis process, whose CPU counts as its own. */
type Running = { name: ServerName; proc: Proc; pid: number; url: string; readyMs: number; also: Array<{ url: string; pid: number }>; storePid?: number };

type Context = {
  prismEntry: string;
  prismSpec: string;
  /** The Redis the shared-store mocks use (started by the bench), when redis-server is installed. */
  redis?: RedisServer;
  /** What the baselines answer: our mock's real answers, one per scenario. */
  answers: Answer[];
  /** What proves a server is up: resumeProject answered 200 with the body that server must send. */
  probe: (server: ServerName) => Probe;
};

async function startServer(name: ServerName, ctx: Context, readyTimeoutMs = 60_000, probe: Probe = ctx.probe(name)): Promise<Running> {
  if (name === 'redis-1' || name === 'redis-2') return startShared(name, ctx, readyTimeoutMs, probe);
  const since = performance.now();
  let proc: Proc;
  let port: number | undefined;
  let marker: string;
  if (name === 'mock') {
    proc = launch(name, [...startArgs(), '--port', '0'], { keepStdout: 'head' });
    marker = MOCK_MAIN;
  } else if (name === 'express' || name === 'http') {
    proc = launch(name, [BARE, name, '--port', '0'], { stdin: JSON.stringify(ctx.answers), keepStdout: 'head' });
    marker = BARE;
  } else {
    port = await freePort();
    // Prism's request log goes to /dev/null, the cheapest place a log can go.
    proc = launch(name, [ctx.prismEntry, 'mock', ctx.prismSpec, '-h', '127.0.0.1', '-p', String(port), ...(name === 'prism-warn' ? ['-v', 'warn'] : [])]);
    marker = 'prism';
  }
  try {
    let url: string | undefined = port === undefined ? undefined : `http://127.0.0.1:${port}`;
    if (name === 'mock' || name === 'express' || name === 'http') {
      url = `http://127.0.0.1:${await waitForPort(proc, readyTimeoutMs)}`;
    }
    const readyMs = await firstCorrect(proc, () => url, probe, since, readyTimeoutMs);
    if (!url) throw new Error(`${name} has no URL`);
    return { name, proc, pid: serverPid(proc.pid, marker), url, readyMs, also: [] };
  } catch (error) {
    await stop(proc);
    throw error;
  }
}

/** One or two mock processes started as `npm start -- --store redis://… --store-prefix bench-N`, each answering. */
async function startShared(name: 'redis-1' | 'redis-2', ctx: Context, readyTimeoutMs: number, probe: Probe): Promise<Running> {
  if (!ctx.redis) throw new Error('no Redis');
  const since = performance.now();
  const replicas = name === 'redis-1' ? 1 : 2;
  const procs = Array.from({ length: replicas }, (_, i) => launch(`${name} replica ${i + 1}`, [...startArgs(), '--port', '0', '--store', ctx.redis?.url ?? '', '--store-prefix', `bench-${name}`], { keepStdout: 'head' }));
  try {
    const started: Array<{ proc: Proc; url: string; pid: number; readyMs: number }> = [];
    for (const proc of procs) {
      const url = `http://127.0.0.1:${await waitForPort(proc, readyTimeoutMs)}`;
      const readyMs = await firstCorrect(proc, () => url, probe, since, readyTimeoutMs);
      started.push({ proc, url, pid: serverPid(proc.pid, MOCK_MAIN), readyMs });
    }
    const [first, ...rest] = started;
    if (!first) throw new Error(`${name} has no replica`);
    return { name, proc: first.proc, pid: first.pid, url: first.url, readyMs: first.readyMs, also: rest.map((r) => ({ url: r.url, pid: r.pid })), storePid: ctx.redis.process().pid };
  } catch (error) {
    await Promise.all(procs.map((p) => stop(p)));
    throw error;
  }
}

// ── the scenarios ──────────────────────────────────────────────────────────────────────────────────────────────────

const SCENARIOS = ['resumeProject', 'closeGoal', 'unauthorized', 'sessions'] as const;
type ScenarioName = (typeof SCENARIOS)[number];
const SCENARIO_LABELS: Record<ScenarioName, string> = {
  resumeProject: 'resumeProject 200',
  closeGoal: 'closeGoal 200',
  unauthorized: 'no token 401',
  sessions: 'resume, X-Mock-Session',
};

type Scenario = { name: ScenarioName; operationId: 'resumeProject' | 'closeGoal'; path: string; auth: boolean; session: boolean; expectStatus: number; requests: RequestSpec[] };

/** What a baseline server sends for one scenario (bare.ts reads a list of these). */
type Answer = { path: string; auth: boolean; session: boolean; status: number; headers: Record<string, string>; body: string };

type Fixtures = { tokens: Record<string, string>; projects: Record<string, string>; goals: Record<string, string> };

function stringRecord(value: unknown, what: string): Record<string, string> {
  if (!isObject(value)) throw new Error(`fixtures: ${what} is not an object`);
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v;
  return out;
}

function need(record: Record<string, string>, key: string, what: string): string {
  const value = record[key];
  if (value === undefined) throw new Error(`GET /__mock/fixtures has no ${what}.${key}`);
  return value;
}

function scenarios(fixtures: Fixtures, sessions: number): Scenario[] {
  const token = need(fixtures.tokens, 'full_access', 'tokens');
  const json = { 'content-type': 'application/json' };
  const resume: RequestSpec = {
    method: 'POST',
    path: `${API}/projects/resume`,
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ project_id: need(fixtures.projects, 'paused', 'projects'), message: RICH_TEXT }),
  };
  const close: RequestSpec = {
    method: 'POST',
    path: `${API}/goals/close`,
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ goal_id: need(fixtures.goals, 'open', 'goals'), success: 'yes', success_status: 'achieved', retrospective: RICH_TEXT }),
  };
  const anonymous: RequestSpec = { ...resume, headers: json };
  const sessionRequests = Array.from({ length: sessions }, (_, i): RequestSpec => ({ ...resume, headers: { ...resume.headers, 'x-mock-session': `bench-${i}` } }));
  return [
    { name: 'resumeProject', operationId: 'resumeProject', path: resume.path, auth: true, session: false, expectStatus: 200, requests: [resume] },
    { name: 'closeGoal', operationId: 'closeGoal', path: close.path, auth: true, session: false, expectStatus: 200, requests: [close] },
    { name: 'unauthorized', operationId: 'resumeProject', path: resume.path, auth: false, session: false, expectStatus: 401, requests: [anonymous] },
    { name: 'sessions', operationId: 'resumeProject', path: resume.path, auth: true, session: true, expectStatus: 200, requests: sessionRequests },
  ];
}

/** The spec's first example for an operation's status (Prism serves the first one), as Prism would send it. */
function specExample(operationId: string, status: number): BodyCheck {
  const document = loadDocument();
  const operation = listOperations(document).find((o) => o.operationId === operationId);
  if (!operation) throw new Error(`${operationId} is not in the spec`);
  const { value: response } = dereference(document, `${operation.pointer}/responses/${status}`);
  const content = isObject(response) ? response['content'] : undefined;
  const media = isObject(content) ? Object.values(content)[0] : undefined;
  if (!isObject(media)) throw new Error(`${operationId} documents no body for ${status}`);
  let value: unknown;
  if ('example' in media) value = media['example'];
  else if (isObject(media['examples'])) {
    const first = Object.values(media['examples'])[0];
    const example = isObject(first) && typeof first['$ref'] === 'string' ? dereference(document, first['$ref']).value : first;
    if (isObject(example)) value = example['value'];
  }
  if (value === undefined) throw new Error(`${operationId} ${status} has no example`);
  return typeof value === 'string' ? { kind: 'exact', body: value } : { kind: 'json-equal', value };
}

function checkFor(server: ServerName, scenario: Scenario, fixtures: Fixtures, answers: Answer[]): BodyCheck {
  if (server === 'prism-default' || server === 'prism-warn') return specExample(scenario.operationId, scenario.expectStatus);
  if (server === 'express' || server === 'http') {
    const answer = answers.find((a) => a.path === scenario.path && a.auth === scenario.auth && a.session === scenario.session);
    if (!answer) throw new Error(`no baseline answer for ${scenario.name}`);
    return { kind: 'exact', body: answer.body };
  }
  if (scenario.expectStatus === 401) return { kind: 'exact', body: 'Unauthorized' };
  if (scenario.operationId === 'closeGoal') {
    return { kind: 'json-fields', fields: [{ path: ['goal', 'id'], equals: need(fixtures.goals, 'open', 'goals') }, { path: ['goal', 'is_closed'], equals: true }] };
  }
  return { kind: 'json-fields', fields: [{ path: ['project', 'id'], equals: need(fixtures.projects, 'paused', 'projects') }, { path: ['project', 'state'], equals: 'active' }] };
}

/** Our mock's real answer to a scenario's first request, checked, for the baselines to send byte for byte. */
async function referenceAnswer(mock: Running, scenario: Scenario, check: BodyCheck): Promise<Answer> {
  const request = scenario.requests[0];
  if (!request) throw new Error(`${scenario.name} has no request`);
  const reply = await send(mock.url, request);
  if (reply.status !== scenario.expectStatus || !bodyMatcher(check)(reply.body)) {
    throw new Error(`our mock answered ${scenario.name} with ${reply.status} ${reply.body.slice(0, 200)}`);
  }
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'cache-control', 'x-request-id']) {
    const value = reply.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { path: scenario.path, auth: scenario.auth, session: scenario.session, status: reply.status, headers, body: reply.body };
}

// ── Prism's document ───────────────────────────────────────────────────────────────────────────────────────────────

type PrismSpecInfo = {
  used: string;
  literal: { tried: boolean; answered: boolean; waited_s: number; note: string };
  acyclic: { bytes: number } | null;
};

function prismEntry(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@stoplight/prism-cli/package.json');
  const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = isObject(manifest) ? manifest['bin'] : undefined;
  const relativeBin = typeof bin === 'string' ? bin : isObject(bin) && typeof bin['prism'] === 'string' ? bin['prism'] : undefined;
  if (!relativeBin) throw new Error('@stoplight/prism-cli has no prism bin');
  return join(dirname(manifestPath), relativeBin);
}

// ── statistics and printing ────────────────────────────────────────────────────────────────────────────────────────

function median(values: ReadonlyArray<number>): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

type Cell = {
  server: ServerName;
  scenario: ScenarioName;
  runs: WorkerResult[];
  rps: number;
  p50_ms: number;
  p99_ms: number;
  cpu_us_per_request: number;
  server_cpu_percent: number;
  client_cpu_percent: number;
  rss_mb: number | null;
  wrong_bodies: number;
  wrong_statuses: number;
  socket_errors: number;
  timeouts: number;
};

function summarise(server: ServerName, scenario: ScenarioName, runs: WorkerResult[]): Cell {
  const sum = (pick: (r: WorkerResult) => number): number => runs.reduce((a, r) => a + pick(r), 0);
  const last = runs[runs.length - 1];
  return {
    server,
    scenario,
    runs,
    rps: median(runs.map((r) => r.rps)),
    p50_ms: median(runs.map((r) => r.latency_ms.p50)),
    p99_ms: median(runs.map((r) => r.latency_ms.p99)),
    cpu_us_per_request: median(runs.map((r) => r.server_cpu_us_per_request)),
    server_cpu_percent: median(runs.map((r) => r.server_cpu_percent)),
    client_cpu_percent: median(runs.map((r) => r.client_cpu_percent)),
    rss_mb: last?.rss_bytes ? last.rss_bytes / 1048576 : null,
    wrong_bodies: sum((r) => r.mismatches + r.warmup.mismatches),
    wrong_statuses: sum((r) => r.unexpected_status + r.warmup.unexpected_status),
    socket_errors: sum((r) => r.errors - r.timeouts + r.warmup.errors - r.warmup.timeouts),
    timeouts: sum((r) => r.timeouts + r.warmup.timeouts),
  };
}

const fixed = (value: number | null, digits: number): string => (value === null || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits));

function table(rows: string[][], rightAligned: ReadonlyArray<boolean>): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => (rightAligned[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd()).join('\n');
}

function gitRevision(): string | null {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

// ── the run ────────────────────────────────────────────────────────────────────────────────────────────────────────

const TARGETS = { prism_default_ratio: 2.0, bare_express_ratio: 0.8, cold_start_ms: 500, rss_mb: 100 } as const;

async function runWorker(server: Running, scenario: Scenario, check: BodyCheck, settings: Settings, warmup: number): Promise<WorkerResult> {
  const job: Job = {
    url: server.url,
    serverPid: server.pid,
    clkTck: clkTck(),
    connections: settings.connections,
    warmupSeconds: warmup,
    durationSeconds: settings.duration,
    requests: scenario.requests,
    expectStatus: scenario.expectStatus,
    check,
  };
  if (server.also.length > 0) job.alsoUrls = server.also.map((r) => r.url);
  const alsoPids = [...server.also.map((r) => r.pid), ...(server.storePid === undefined ? [] : [server.storePid])];
  if (alsoPids.length > 0) job.alsoPids = alsoPids;
  const worker = launch(`load worker (${server.name}, ${scenario.name})`, [WORKER], { stdin: JSON.stringify(job), keepStdout: 'all' });
  const limit = sleep((warmup + settings.duration + 60) * 1000).then(() => 'timeout' as const);
  if ((await Promise.race([worker.exited, limit])) === 'timeout') {
    await stop(worker);
    throw new Error(`${worker.name} did not finish`);
  }
  const line = worker.stdout().trim().split('\n').pop() ?? '';
  try {
    const parsed: unknown = JSON.parse(line);
    if (!isObject(parsed) || typeof parsed['rps'] !== 'number') throw new Error('not a result');
    // Written by worker.ts from this checkout: the WorkerResult shape.
    return parsed as unknown as WorkerResult;
  } catch {
    throw new Error(`${worker.name} printed no result: ${worker.stderr().trim().split('\n').slice(-5).join(' | ') || line.slice(0, 200)}`);
  }
}

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<number> {
  const settings = readSettings();
  const startedAt = new Date();
  const loadBefore = machineLoad();
  const failures: string[] = [];
  const perRun = settings.warmup / settings.rounds + settings.duration + 0.5;
  const sharedMissing = existsSync(REDIS_SERVER) ? undefined : `${REDIS_SERVER} is not installed (Debian/Ubuntu: sudo apt-get install redis-server)`;
  const servers = SERVERS.length + (sharedMissing ? 0 : SHARED.length);
  const estimate = settings.prismProbe + settings.coldStarts * 4 + servers * SCENARIOS.length * settings.rounds * perRun + 10;
  say(`bench: ${servers} servers × ${SCENARIOS.length} scenarios × ${settings.rounds} rounds, ${settings.duration} s each after ${settings.warmup} s warm-up, ${settings.connections} connections (about ${Math.ceil(estimate / 60)} min)`);
  say(`machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), load ${loadBefore.loadavg_1m} ${loadBefore.loadavg_5m} ${loadBefore.loadavg_15m}, node ${process.version}, CLK_TCK ${clkTck()}`);

  // Prism's document: generated/openapi.json itself if Prism can load it, else the acyclic export beside it.
  const prism: PrismSpecInfo = { used: relative(ROOT, fileURLToPath(DOCUMENT_URL)), literal: { tried: false, answered: false, waited_s: 0, note: '' }, acyclic: null };
  const ctx: Context = {
    prismEntry: prismEntry(),
    prismSpec: fileURLToPath(DOCUMENT_URL),
    answers: [],
    probe: () => {
      throw new Error('no probe before the fixtures are known');
    },
  };

  // Our mock first: its fixtures give the requests, its answers the baselines' bodies.
  const running = new Map<ServerName, Running>();
  const fixturesProbe: Probe = { request: { method: 'GET', path: '/__mock/fixtures', headers: {} }, status: 200, check: { kind: 'json-fields', fields: [] } };
  const mock = await startServer('mock', ctx, 60_000, fixturesProbe);
  running.set('mock', mock);
  const fixturesReply = await fetch(`${mock.url}/__mock/fixtures`);
  const rawFixtures: unknown = await fixturesReply.json();
  if (!isObject(rawFixtures)) throw new Error('GET /__mock/fixtures is not JSON');
  const fixtures: Fixtures = { tokens: stringRecord(rawFixtures['tokens'], 'tokens'), projects: stringRecord(rawFixtures['projects'], 'projects'), goals: stringRecord(rawFixtures['goals'], 'goals') };
  const list = scenarios(fixtures, settings.sessions);
  const resumeScenario = list[0];
  if (!resumeScenario?.requests[0]) throw new Error('no resumeProject scenario');
  for (const scenario of list) ctx.answers.push(await referenceAnswer(mock, scenario, checkFor('mock', scenario, fixtures, [])));
  const resumeRequest = resumeScenario.requests[0];
  ctx.probe = (server) => ({ request: resumeRequest, status: 200, check: checkFor(server, resumeScenario, fixtures, ctx.answers) });

  if (settings.prismProbe > 0) {
    say(`prism: trying generated/openapi.json for up to ${settings.prismProbe} s…`);
    prism.literal.tried = true;
    const since = performance.now();
    try {
      const probe = await startServer('prism-default', ctx, settings.prismProbe * 1000);
      await stop(probe.proc);
      prism.literal = { tried: true, answered: true, waited_s: Number(((performance.now() - since) / 1000).toFixed(1)), note: 'Prism loads generated/openapi.json' };
    } catch (error) {
      prism.literal = { tried: true, answered: false, waited_s: Number(((performance.now() - since) / 1000).toFixed(1)), note: error instanceof Error ? error.message : String(error) };
    }
  }
  if (!prism.literal.answered) {
    const path = fileURLToPath(ACYCLIC_DOCUMENT_URL);
    const bytes = statSync(path).size;
    ctx.prismSpec = path;
    prism.used = relative(ROOT, path);
    prism.acyclic = { bytes };
    say(`prism: ${prism.literal.tried ? `generated/openapi.json gave no answer in ${prism.literal.waited_s} s; ` : ''}serving ${prism.used} (${(bytes / 1024).toFixed(0)} KiB)`);
  }

  // Cold starts: spawn → first correct 200 of resumeProject, each on a fresh process.
  const coldStarts: Record<string, { median_ms: number; samples_ms: number[] }> = {};
  if (settings.coldStarts > 0) {
    for (const name of SERVERS) {
      const samples: number[] = [];
      for (let i = 0; i < settings.coldStarts; i++) {
        try {
          const server = await startServer(name, ctx);
          samples.push(Number(server.readyMs.toFixed(1)));
          await stop(server.proc);
        } catch (error) {
          failures.push(`cold start of ${name}: ${error instanceof Error ? error.message : String(error)}`);
          break;
        }
      }
      coldStarts[name] = { median_ms: Number(median(samples).toFixed(1)), samples_ms: samples };
      say(`cold start ${LABELS[name].padEnd(16)} median ${fixed(median(samples), 0).padStart(5)} ms  (${samples.map((s) => s.toFixed(0)).join(', ')})`);
    }
  }

  for (const name of SERVERS) {
    if (running.has(name)) continue;
    try {
      running.set(name, await startServer(name, ctx));
    } catch (error) {
      failures.push(`could not start ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // Our mock with its state in Redis, on a redis-server of its own (no persistence): one replica, and two.
  if (sharedMissing) say(`shared store: not measured (${sharedMissing})`);
  else {
    try {
      redisServer = await startRedis();
      ctx.redis = redisServer;
      for (const name of SHARED) running.set(name, await startServer(name, ctx));
    } catch (error) {
      failures.push(`could not start the shared-store mocks: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // Load: rounds × scenarios × servers, the server order rotating so no server always runs first or last.
  const results = new Map<string, WorkerResult[]>();
  const present = [...SERVERS, ...SHARED].filter((s) => running.has(s));
  for (let round = 0; round < settings.rounds; round++) {
    for (const [index, scenario] of list.entries()) {
      const shift = (round + index) % present.length;
      for (const name of [...present.slice(shift), ...present.slice(0, shift)]) {
        const server = running.get(name);
        if (!server) continue;
        const check = checkFor(name, scenario, fixtures, ctx.answers);
        const result = await runWorker(server, scenario, check, settings, round === 0 ? settings.warmup : 0);
        const key = `${name} ${scenario.name}`;
        results.set(key, [...(results.get(key) ?? []), result]);
        const bad = result.mismatches + result.unexpected_status + result.errors + result.warmup.mismatches + result.warmup.unexpected_status + result.warmup.errors;
        say(
          `round ${round + 1}/${settings.rounds}  ${scenario.name.padEnd(13)}  ${LABELS[name].padEnd(16)} ${fixed(result.rps, 0).padStart(7)} req/s  p99 ${fixed(result.latency_ms.p99, 1).padStart(6)} ms  ${fixed(result.server_cpu_us_per_request, 0).padStart(5)} µs/req${bad ? `  PROBLEMS ${bad}${result.sample_mismatch ? `: ${result.sample_mismatch.slice(0, 100)}` : ''}` : ''}`,
        );
      }
    }
  }

  // Our mock's state after the load: writes accumulate (activities, threads), which is part of its RSS.
  let mockState: { bytes: number; activities: number; comment_threads: number } | null = null;
  try {
    const text = await (await fetch(`${mock.url}/__mock/state`)).text();
    const state: unknown = JSON.parse(text);
    const count = (key: string): number => (isObject(state) && Array.isArray(state[key]) ? state[key].length : 0);
    mockState = { bytes: text.length, activities: count('activities'), comment_threads: count('comment_threads') };
  } catch {
    mockState = null;
  }
  const finalRss: Record<string, number | null> = {};
  for (const [name, server] of running) finalRss[name] = Number(((rssBytes(server.pid) ?? Number.NaN) / 1048576).toFixed(1));
  await stopAll();
  await redisServer?.stop();
  redisServer = undefined;
  const loadAfter = machineLoad();

  // ── report ──
  const cells: Cell[] = [];
  for (const scenario of list) for (const name of present) cells.push(summarise(name, scenario.name, results.get(`${name} ${scenario.name}`) ?? []));
  const cell = (name: ServerName, scenario: ScenarioName): Cell | undefined => cells.find((c) => c.server === name && c.scenario === scenario);

  say();
  const header = ['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'server CPU%', 'load-gen CPU%', 'RSS MB', 'errors'];
  const rows = [header];
  for (const c of cells) {
    const errors = c.wrong_bodies + c.wrong_statuses + c.socket_errors + c.timeouts;
    const detail = errors ? ` (${[c.wrong_bodies && `${c.wrong_bodies} wrong body`, c.wrong_statuses && `${c.wrong_statuses} wrong status`, c.socket_errors && `${c.socket_errors} socket`, c.timeouts && `${c.timeouts} timeout`].filter(Boolean).join(', ')})` : '';
    rows.push([SCENARIO_LABELS[c.scenario], LABELS[c.server], fixed(c.rps, 0), fixed(c.p50_ms, 2), fixed(c.p99_ms, 2), fixed(c.cpu_us_per_request, 0), fixed(c.server_cpu_percent, 0), fixed(c.client_cpu_percent, 0), fixed(c.rss_mb, 1), `${errors}${detail}`]);
  }
  say(table(rows, [false, false, true, true, true, true, true, true, true, false]));

  const ratioOf = (scenario: ScenarioName, other: ServerName): number => (cell('mock', scenario)?.rps ?? Number.NaN) / (cell(other, scenario)?.rps ?? Number.NaN);
  const ratioRows = [['ours ÷ (req/s medians)', ...list.map((s) => s.name), 'target']];
  const ratios: Record<string, Record<string, number>> = {};
  for (const [other, target] of [
    ['prism-default', `≥ ${TARGETS.prism_default_ratio.toFixed(1)}`],
    ['prism-warn', ''],
    ['express', `≥ ${TARGETS.bare_express_ratio.toFixed(1)}`],
    ['http', ''],
  ] as const) {
    const values = Object.fromEntries(list.map((s) => [s.name, Number(ratioOf(s.name, other).toFixed(3))]));
    ratios[other] = values;
    const minimum = other === 'prism-default' ? TARGETS.prism_default_ratio : other === 'express' ? TARGETS.bare_express_ratio : undefined;
    ratioRows.push([LABELS[other], ...list.map((s) => `${fixed(values[s.name] ?? Number.NaN, 2)}${minimum === undefined ? '' : (values[s.name] ?? 0) >= minimum ? ' ok' : ' BELOW'}`), target]);
  }
  // On a shared machine the servers do not each get a core: CPU per request (from /proc) is the steadier ratio.
  const cpuRatios: Record<string, Record<string, number>> = {};
  ratioRows.push(['by CPU per request (other µs ÷ ours)', ...list.map(() => ''), '']);
  for (const other of ['prism-default', 'prism-warn', 'express', 'http'] as const) {
    const values = Object.fromEntries(list.map((s) => [s.name, Number(((cell(other, s.name)?.cpu_us_per_request ?? Number.NaN) / (cell('mock', s.name)?.cpu_us_per_request ?? Number.NaN)).toFixed(3))]));
    cpuRatios[other] = values;
    ratioRows.push([`  ${LABELS[other]}`, ...list.map((s) => fixed(values[s.name] ?? Number.NaN, 2)), '']);
  }
  say();
  say(table(ratioRows, [false, true, true, true, true, false]));

  // The shared store: the in-memory mock, one replica on Redis, two replicas on one Redis (CPU: replicas + Redis).
  const shared: Record<string, Record<string, { rps: number; ratio_to_memory: number; p99_ms: number; cpu_us_per_request: number }>> = {};
  if (SHARED.some((s) => running.has(s))) {
    const sharedRows = [['shared store (req/s, × in memory)', ...list.map((s) => s.name)]];
    for (const name of ['mock', ...SHARED] as const) {
      const values: Record<string, { rps: number; ratio_to_memory: number; p99_ms: number; cpu_us_per_request: number }> = {};
      for (const scenario of list) {
        const c = cell(name, scenario.name);
        const rps = c?.rps ?? Number.NaN;
        values[scenario.name] = { rps, ratio_to_memory: Number((rps / (cell('mock', scenario.name)?.rps ?? Number.NaN)).toFixed(3)), p99_ms: c?.p99_ms ?? Number.NaN, cpu_us_per_request: c?.cpu_us_per_request ?? Number.NaN };
      }
      shared[name] = values;
      const label = name === 'mock' ? 'in memory (our mock)' : name === 'redis-1' ? 'one replica on Redis' : 'two replicas on one Redis';
      sharedRows.push([label, ...list.map((s) => `${fixed(values[s.name]?.rps ?? Number.NaN, 0)} ×${fixed(values[s.name]?.ratio_to_memory ?? Number.NaN, 2)}`)]);
    }
    say();
    say(table(sharedRows, [false, true, true, true, true]));
  }

  const mockCold = coldStarts['mock']?.median_ms ?? Number.NaN;
  const mockRss = finalRss['mock'] ?? Number.NaN;
  const targets = {
    prism_default_ratio: { target: `>= ${TARGETS.prism_default_ratio}`, met: list.every((s) => (ratios['prism-default']?.[s.name] ?? 0) >= TARGETS.prism_default_ratio) },
    bare_express_ratio: { target: `>= ${TARGETS.bare_express_ratio}`, met: list.every((s) => (ratios['express']?.[s.name] ?? 0) >= TARGETS.bare_express_ratio) },
    cold_start_ms: { target: `<= ${TARGETS.cold_start_ms}`, value: mockCold, met: mockCold <= TARGETS.cold_start_ms },
    rss_mb_after_load: { target: `<= ${TARGETS.rss_mb}`, value: mockRss, met: mockRss <= TARGETS.rss_mb },
  };
  say();
  say(`cold start to the first correct 200 (median of ${settings.coldStarts}): ${SERVERS.map((s) => `${LABELS[s]} ${fixed(coldStarts[s]?.median_ms ?? Number.NaN, 0)} ms`).join(' · ')}`);
  say(`RSS after all load: ${[...running.keys()].map((s) => `${LABELS[s]} ${fixed(finalRss[s] ?? Number.NaN, 1)} MB`).join(' · ')}`);
  if (mockState) say(`our mock's default session after the load: ${mockState.activities} activities, ${mockState.comment_threads} comment threads, GET /__mock/state ${(mockState.bytes / 1048576).toFixed(1)} MB`);
  say(`targets: Prism default ×${TARGETS.prism_default_ratio} ${targets.prism_default_ratio.met ? 'met' : 'NOT met'} · bare Express ×${TARGETS.bare_express_ratio} ${targets.bare_express_ratio.met ? 'met' : 'NOT met'} · cold start ≤ ${TARGETS.cold_start_ms} ms ${targets.cold_start_ms.met ? 'met' : 'NOT met'} (${fixed(mockCold, 0)} ms) · RSS ≤ ${TARGETS.rss_mb} MB ${targets.rss_mb_after_load.met ? 'met' : 'NOT met'} (${fixed(mockRss, 1)} MB)`);
  say(`Prism served: ${prism.used}`);
  say(`machine load (1/5/15 min): before ${loadBefore.loadavg_1m} ${loadBefore.loadavg_5m} ${loadBefore.loadavg_15m}, after ${loadAfter.loadavg_1m} ${loadAfter.loadavg_5m} ${loadAfter.loadavg_15m} on ${loadAfter.cpus} CPUs`);

  for (const c of cells) {
    const wrong = c.wrong_bodies + c.wrong_statuses;
    if (wrong > 0) failures.push(`${LABELS[c.server]} ${c.scenario}: ${c.wrong_bodies} wrong bodies, ${c.wrong_statuses} unexpected statuses${c.runs.find((r) => r.sample_mismatch)?.sample_mismatch ? ` (e.g. ${c.runs.find((r) => r.sample_mismatch)?.sample_mismatch?.slice(0, 120)})` : ''}`);
    if ((c.server === 'mock' || c.server === 'redis-1' || c.server === 'redis-2') && c.socket_errors + c.timeouts > 0) failures.push(`${LABELS[c.server]} ${c.scenario}: ${c.socket_errors} socket errors, ${c.timeouts} timeouts`);
  }

  const report = {
    generated_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    git: gitRevision(),
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? null, node: process.version, clk_tck: clkTck(), load_before: loadBefore, load_after: loadAfter },
    settings: { ...settings, out: relative(ROOT, settings.out) },
    prism,
    targets,
    ratios,
    ratios_cpu_per_request: cpuRatios,
    shared_store: shared,
    cold_starts: coldStarts,
    rss_mb_after_all_load: finalRss,
    mock_state_after_load: mockState,
    cells: cells.map(({ runs, ...rest }) => ({ ...rest, runs })),
    failures,
  };
  mkdirSync(dirname(settings.out), { recursive: true });
  writeFileSync(settings.out, `${JSON.stringify(report, null, 2)}\n`);
  say(`wrote ${relative(process.cwd(), settings.out) || settings.out}`);
  if (failures.length) {
    say();
    for (const f of failures) say(`FAIL ${f}`);
    return 1;
  }
  return 0;
}

main().then(
  async (code) => {
    if (interrupted) return;
    await stopAll();
    process.exit(code);
  },
  async (error: unknown) => {
    if (interrupted) return;
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await stopAll();
    process.exit(1);
  },
);
