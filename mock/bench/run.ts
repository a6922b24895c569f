// `npm run bench`: the mock against Prism, the parse-and-stringify Express floor and two bare baselines, in one run,
// on loopback, with the targets of issue 17; the stage table of the mock's core beside them; memory after the load and
// after 100 sessions × N writes; cold and in-process start. See mock/bench/README.md for what is measured and how to
// read it.
//
//   node mock/bench/run.ts [--stages] [--duration S] [--warmup S] [--rounds N] [--connections N] [--cold-starts N]
//                          [--sessions N] [--prism-probe S] [--stage-requests N] [--session-writes N]
//                          [--in-process-starts N] [--out FILE]
//
// Exit 0 when every server answered every request with the expected status and a correct body (targets that are
// not met are reported, not failed); 1 when any did not, when our mock had a socket error or timeout, or when a
// server or a measuring child could not be started; 2 on a bad option.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dereference, isObject, listOperations, loadDocument } from '../../spec/lib/openapi.ts';
import { ACYCLIC_DOCUMENT_URL, DOCUMENT_URL } from '../../spec/lib/files.ts';
import { EVENT_JOURNAL_LIMIT } from '../src/store.ts';
import { BUNDLE_LIMITS, measureBrowserBundle, type BundleReport } from './bundle.ts';
import { startArgs } from './launch.ts';
import { fixed, median, rounded, table } from './format.ts';
import { heapAfterGc, type HeapAfterGc } from './heap.ts';
import { launch, live, resultOf, signalGroup, stop, stopAll, waitForPort, type Proc } from './children.ts';
import { bodyMatcher, type BodyCheck, type Job, type RequestSpec, type WorkerResult } from './job.ts';
import { clkTck, cpuTicks, machineLoad, MOCK_MAIN, rssBytes, serverPid, startFlags } from './proc.ts';
import {
  mockCheck,
  OPERATIONS,
  parseFixtures,
  SCENARIO_LABELS,
  SCENARIOS,
  scenarios,
  sessionWrites,
  type Fixtures,
  type OperationName,
  type Scenario,
  type ScenarioName,
} from './scenarios.ts';
import { formatStageTable, httpOverhead, type HttpBaselines, type StageReport } from './stagetable.ts';
import type { StartupReport } from './startup.ts';
import { freePort, REDIS_SERVER, startRedis, type RedisServer } from '../test/redisServer.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const BARE = 'mock/bench/bare.ts';
const WORKER = 'mock/bench/worker.ts';
const STAGES_CHILD = 'mock/bench/stage-times.ts';
const STARTUP_CHILD = 'mock/bench/startup.ts';
/** The memory phase's sessions: as many as `--max-sessions` keeps by default, so none is dropped. */
const MEMORY_SESSIONS = 100;
/** The memory phase's connections: each cycles the 200 requests (a resume and a close per session) k times. */
const MEMORY_CONNECTIONS = 50;

// ── options ────────────────────────────────────────────────────────────────────────────────────────────────────────

const USAGE = `Usage: node mock/bench/run.ts [options]   (npm run bench -- [options])

  --stages          only the stage table and the server rows beside it: our mock (always and sample), the floor, bare
                    Express and Prism, resumeProject and closeGoal; writes mock/bench/results/stages.json
  --duration S      measured seconds per run (default 3; env BENCH_DURATION)
  --warmup S        warm-up seconds before a server's first run of a scenario (default 2; env BENCH_WARMUP)
  --rounds N        runs per server and scenario, interleaved; the median is reported (default 2; env BENCH_ROUNDS)
  --connections N   concurrent connections (default 50; env BENCH_CONNECTIONS)
  --cold-starts N   starts per server for the cold-start median (default 3)
  --cold-start      only the installed mock's cold start against bare node:http's, interleaved, --cold-starts times
                    each (default 15 here): short enough to run on a quiet machine; writes
                    mock/bench/results/cold-start.json
  --sessions N      X-Mock-Session names the session scenario rotates through (default 50)
  --prism-probe S   seconds to wait for Prism on generated/openapi.json itself before using generated/openapi.acyclic.json
                    (default 5; 0 skips the probe)
  --stage-requests N  in-process requests per operation and self-check mode for the stage table, after enough to
                    fill the session's history to its limit (default 3000; 0 skips the stage table)
  --session-writes N  writes per session in the memory phase: ${MEMORY_SESSIONS} sessions, a fresh mock (default 1000; a multiple
                    of ${MEMORY_CONNECTIONS * 2}; 0 skips the phase)
  --in-process-starts N  createMockApp() / createMockHandlers() calls, each with its first 200, per fresh process
                    (default 10; 0 skips)
  --out FILE        where to write the results (default mock/bench/results/latest.json; stages.json with --stages)
  --help            show this help

Quick smoke run: node mock/bench/run.ts --duration 1 --warmup 1 --rounds 1 --cold-starts 1 --prism-probe 0 --session-writes 0`;

type Settings = {
  stages: boolean;
  coldOnly: boolean;
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
  coldStarts: number;
  sessions: number;
  prismProbe: number;
  stageRequests: number;
  sessionWrites: number;
  inProcessStarts: number;
  out: string;
};

function usageError(message: string): never {
  process.stderr.write(`error: ${message} (see --help)\n`);
  process.exit(2);
}

function readSettings(): Settings {
  // biome-ignore lint/suspicious/noImplicitAnyLet: typed by the parseArgs call that assigns it (control-flow typing)
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        stages: { type: 'boolean' },
        'cold-start': { type: 'boolean' },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        rounds: { type: 'string' },
        connections: { type: 'string' },
        'cold-starts': { type: 'string' },
        sessions: { type: 'string' },
        'prism-probe': { type: 'string' },
        'stage-requests': { type: 'string' },
        'session-writes': { type: 'string' },
        'in-process-starts': { type: 'string' },
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
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
      usageError(`${name} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${raw}"`);
    return n;
  };
  const env = process.env;
  const stages = values.stages === true;
  const coldOnly = values['cold-start'] === true;
  if (stages && coldOnly) usageError('--stages and --cold-start are two different runs: choose one');
  const settings: Settings = {
    stages,
    coldOnly,
    duration: number('--duration', values.duration ?? env['BENCH_DURATION'], 3, 0.5, 600, false),
    warmup: number('--warmup', values.warmup ?? env['BENCH_WARMUP'], 2, 0, 600, false),
    rounds: number('--rounds', values.rounds ?? env['BENCH_ROUNDS'], 2, 1, 20, true),
    connections: number('--connections', values.connections ?? env['BENCH_CONNECTIONS'], 50, 1, 1000, true),
    coldStarts: number('--cold-starts', values['cold-starts'], coldOnly ? 15 : 3, coldOnly ? 2 : 0, coldOnly ? 100 : 20, true),
    sessions: number('--sessions', values.sessions, 50, 1, 100, true),
    prismProbe: number('--prism-probe', values['prism-probe'], 5, 0, 600, false),
    stageRequests: coldOnly ? 0 : number('--stage-requests', values['stage-requests'], 3000, stages ? 1 : 0, 1_000_000, true),
    sessionWrites: number('--session-writes', values['session-writes'], 1000, 0, 100_000, true),
    inProcessStarts: number('--in-process-starts', values['in-process-starts'], 10, 0, 100, true),
    out:
      values.out ?? join(ROOT, stages ? 'mock/bench/results/stages.json' : coldOnly ? 'mock/bench/results/cold-start.json' : 'mock/bench/results/latest.json'),
  };
  if (settings.sessionWrites % (MEMORY_CONNECTIONS * 2) !== 0)
    usageError(
      `--session-writes must be a multiple of ${MEMORY_CONNECTIONS * 2} (each of ${MEMORY_CONNECTIONS} connections cycles a resume and a close of every session), got ${settings.sessionWrites}`,
    );
  if (settings.inProcessStarts === 1) usageError('--in-process-starts must be 0 or at least 2 (the first, and the ones after it)');
  return settings;
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

// ── HTTP from the orchestrator (fixtures, reference bodies, readiness polls) ──────────────────────────────────────

type Reply = { status: number; body: string; headers: Headers };

/** A request that shows a server is up and right: the status and body it must answer with. */
type Probe = { request: { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string }; status: number; check: BodyCheck };

async function send(base: string, request: Probe['request']): Promise<Reply> {
  const response = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(5000),
  });
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
    if (performance.now() - since > timeoutMs)
      throw new Error(`${proc.name} gave no correct ${expectStatus} within ${Math.round(timeoutMs / 1000)} s (last: ${last})`);
    await sleep(10);
  }
}

// ── the servers ────────────────────────────────────────────────────────────────────────────────────────────────────

const SERVERS = ['mock', 'mock-sample', 'prism-default', 'express-floor', 'express', 'http'] as const;
/** Our mock with its state in Redis (--store): one replica, and two replicas with the load split evenly over them. */
const SHARED = ['redis-1', 'redis-2'] as const;
/** The mock as users install it: the compiled package's bin (dist/cli/bin.cjs), started with plain node. Cold start only. */
const INSTALLED = 'installed';
type ServerName = (typeof SERVERS)[number] | (typeof SHARED)[number] | typeof INSTALLED;
/** The compiled bin, as `npx service-external-api` runs it from node_modules (npm run build writes it). */
const INSTALLED_BIN = 'dist/cli/bin.cjs';
const LABELS: Record<ServerName, string> = {
  mock: 'our mock',
  installed: 'our mock, installed',
  'mock-sample': 'our mock, sample',
  'prism-default': 'Prism (default)',
  'express-floor': 'parse-and-stringify Express floor',
  express: 'bare Express 5',
  http: 'bare node:http',
  'redis-1': 'ours, Redis ×1',
  'redis-2': 'ours, Redis ×2',
};
/** Measured on the two operations only: the rows the targets read, which the 401 and session scenarios add nothing to. */
const OPERATIONS_ONLY: ReadonlySet<ServerName> = new Set(['mock-sample', 'express-floor']);
/** The servers of `--stages`: the rows beside the stage table. */
const STAGE_SERVERS: ReadonlyArray<ServerName> = ['mock', 'mock-sample', 'express-floor', 'express', 'prism-default'];
/** The servers whose cold start is measured (the sample mock starts as ours does, the floor as bare Express). */
const COLD_STARTS: ReadonlyArray<ServerName> = ['mock', INSTALLED, 'prism-default', 'express', 'http'];

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

/** `npm start -- --port 0`, with `--self-check sample` for the sample row. */
function mockArgs(name: 'mock' | 'mock-sample'): string[] {
  return [...startArgs(), '--port', '0', ...(name === 'mock-sample' ? ['--self-check', 'sample'] : [])];
}

async function startServer(
  name: ServerName,
  ctx: Context,
  readyTimeoutMs = 60_000,
  probe: Probe = ctx.probe(name),
  env?: Record<string, string>,
): Promise<Running> {
  if (name === 'redis-1' || name === 'redis-2') return startShared(name, ctx, readyTimeoutMs, probe);
  const since = performance.now();
  let proc: Proc;
  let port: number | undefined;
  let marker: string;
  const printsPort = name === 'mock' || name === 'mock-sample' || name === INSTALLED || name === 'express' || name === 'http' || name === 'express-floor';
  if (name === INSTALLED) {
    proc = launch(name, [INSTALLED_BIN, 'mock', '--port', '0'], env ? { keepStdout: 'head', env } : { keepStdout: 'head' });
    marker = INSTALLED_BIN;
  } else if (name === 'mock' || name === 'mock-sample') {
    proc = launch(name, mockArgs(name), env ? { keepStdout: 'head', env } : { keepStdout: 'head' });
    marker = MOCK_MAIN;
  } else if (name === 'express' || name === 'http' || name === 'express-floor') {
    proc = launch(name, [BARE, name, '--port', '0'], { stdin: JSON.stringify(ctx.answers), keepStdout: 'head' });
    marker = BARE;
  } else {
    port = await freePort();
    // Prism's request log goes to /dev/null, the cheapest place a log can go.
    proc = launch(name, [ctx.prismEntry, 'mock', ctx.prismSpec, '-h', '127.0.0.1', '-p', String(port)]);
    marker = 'prism';
  }
  try {
    let url: string | undefined = port === undefined ? undefined : `http://127.0.0.1:${port}`;
    if (printsPort) url = `http://127.0.0.1:${await waitForPort(proc, readyTimeoutMs)}`;
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
  const procs = Array.from({ length: replicas }, (_, i) =>
    launch(`${name} replica ${i + 1}`, [...startArgs(), '--port', '0', '--store', ctx.redis?.url ?? '', '--store-prefix', `bench-${name}`], {
      keepStdout: 'head',
    }),
  );
  try {
    const started: Array<{ proc: Proc; url: string; pid: number; readyMs: number }> = [];
    for (const proc of procs) {
      const url = `http://127.0.0.1:${await waitForPort(proc, readyTimeoutMs)}`;
      const readyMs = await firstCorrect(proc, () => url, probe, since, readyTimeoutMs);
      started.push({ proc, url, pid: serverPid(proc.pid, MOCK_MAIN), readyMs });
    }
    const [first, ...rest] = started;
    if (!first) throw new Error(`${name} has no replica`);
    return {
      name,
      proc: first.proc,
      pid: first.pid,
      url: first.url,
      readyMs: first.readyMs,
      also: rest.map((r) => ({ url: r.url, pid: r.pid })),
      storePid: ctx.redis.process().pid,
    };
  } catch (error) {
    await Promise.all(procs.map((p) => stop(p)));
    throw error;
  }
}

// ── what each server must answer ───────────────────────────────────────────────────────────────────────────────────

/** What a baseline server sends for one scenario (bare.ts reads a list of these). */
type Answer = { path: string; auth: boolean; session: boolean; status: number; headers: Record<string, string>; body: string };

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
  if (server === 'prism-default') return specExample(scenario.operationId, scenario.expectStatus);
  if (server === 'express' || server === 'http' || server === 'express-floor') {
    const answer = answers.find((a) => a.path === scenario.path && a.auth === scenario.auth && a.session === scenario.session);
    if (!answer) throw new Error(`no baseline answer for ${scenario.name}`);
    return { kind: 'exact', body: answer.body };
  }
  return mockCheck(scenario, fixtures);
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

// ── statistics ─────────────────────────────────────────────────────────────────────────────────────────────────────

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

function gitRevision(): string | null {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

// ── the measurements ───────────────────────────────────────────────────────────────────────────────────────────────

/** Issue 17's targets, each checked from one run (see mock/bench/README.md, "Targets"). */
const TARGETS = {
  /** Our mock's server CPU µs per request, by self-check mode and operation: at most. */
  cpu_us: { always: { resumeProject: 120, closeGoal: 180 }, sample: { resumeProject: 90, closeGoal: 130 } },
  /** Our mock with `--self-check sample` ÷ the parse-and-stringify Express floor, by req/s and by CPU: at least. */
  floor_ratio: 0.45,
  /** Our mock (always) ÷ Prism (default) by req/s, on both operations: at least. */
  prism_default_ratio: 3.0,
  rss_mb_after_load: 160,
  rss_mb_after_session_writes: 400,
  cold_start_ms: 300,
  /** The installed mock's first answer, as a multiple of a bare node:http server's started the same way. */
  installed_cold_start_ratio: 3,
  /** `service-external-api mock --help`, installed. */
  help_ms: 100,
  /** createMockApp() / createMockHandlers() + the first correct 200, the median after the first: at most. */
  in_process_start_ms: 20,
} as const;

type Timing = { connections: number; warmup: number; duration: number; amount?: number };

async function runWorker(server: Running, requests: RequestSpec[], expectStatus: number, check: BodyCheck, timing: Timing): Promise<WorkerResult> {
  const job: Job = {
    url: server.url,
    serverPid: server.pid,
    clkTck: clkTck(),
    connections: timing.connections,
    warmupSeconds: timing.warmup,
    durationSeconds: timing.duration,
    requests,
    expectStatus,
    check,
  };
  if (timing.amount !== undefined) job.amount = timing.amount;
  if (server.also.length > 0) job.alsoUrls = server.also.map((r) => r.url);
  const alsoPids = [...server.also.map((r) => r.pid), ...(server.storePid === undefined ? [] : [server.storePid])];
  if (alsoPids.length > 0) job.alsoPids = alsoPids;
  const worker = launch(`load worker (${server.name})`, [WORKER], { stdin: JSON.stringify(job), keepStdout: 'all' });
  // A fixed amount is given at least 200 requests a second.
  const limitS = timing.warmup + (timing.amount === undefined ? timing.duration : timing.amount / 200) + 60;
  const parsed = await resultOf(worker, limitS * 1000);
  if (!isObject(parsed) || typeof parsed['rps'] !== 'number') throw new Error(`${worker.name} printed no result`);
  // Written by worker.ts from this checkout: the WorkerResult shape.
  return parsed as unknown as WorkerResult;
}

/** The stage table, measured in a child process started with npm start's node flags. */
async function runStages(settings: Settings): Promise<StageReport> {
  const proc = launch('stage table', [...startFlags(), STAGES_CHILD, '--requests', String(settings.stageRequests)], { keepStdout: 'all' });
  const parsed = await resultOf(proc, 600_000);
  if (!isObject(parsed) || !Array.isArray(parsed['results'])) throw new Error(`${STAGES_CHILD} printed no stage report`);
  // Written by stage-times.ts from this checkout: the StageReport shape.
  return parsed as unknown as StageReport;
}

/** createMockApp() or createMockHandlers() and the first 200, `count` times in a fresh process (npm start's flags). */
async function runStartup(factory: 'app' | 'msw', fixtures: string, count: number): Promise<StartupReport> {
  const proc = launch(`in-process start (${factory})`, [...startFlags(), STARTUP_CHILD, factory, '--count', String(count)], {
    stdin: fixtures,
    keepStdout: 'all',
  });
  const parsed = await resultOf(proc, 120_000);
  if (!isObject(parsed) || !Array.isArray(parsed['samples'])) throw new Error(`${STARTUP_CHILD} ${factory} printed no report`);
  // Written by startup.ts from this checkout: the StartupReport shape.
  return parsed as unknown as StartupReport;
}

type SessionWritesResult = {
  sessions: number;
  writes_per_session: number;
  order: string;
  rps: number;
  cpu_us_per_request: number;
  responses: number;
  rss_mb: number | null;
  heap_after_gc: HeapAfterGc;
  /** Each session's event journal length, checked against the writes it got (GET /__mock/sessions). */
  sessions_checked: string;
};

/**
 * 100 sessions × N writes on a fresh mock started as npm start: resume and close alternating, every session getting
 * the same number (each connection cycles a resume and a close of every session), then its RSS and heap.
 */
async function sessionWritesPhase(ctx: Context, fixtures: Fixtures, writes: number, failures: string[]): Promise<SessionWritesResult> {
  const server = await startServer('mock', ctx);
  try {
    const requests = sessionWrites(fixtures, MEMORY_SESSIONS);
    const check: BodyCheck = { kind: 'one-of', checks: OPERATIONS.map((operationId) => mockCheck({ operationId, expectStatus: 200 }, fixtures)) };
    const amount = MEMORY_SESSIONS * writes;
    const result = await runWorker(server, requests, 200, check, { connections: MEMORY_CONNECTIONS, warmup: 0, duration: 0, amount });
    const rss = rssBytes(server.pid);
    const bad = result.unexpected_status + result.mismatches + result.errors;
    if (bad > 0 || result.responses !== amount)
      failures.push(
        `memory phase: ${result.responses} of ${amount} answers, ${result.unexpected_status} wrong statuses, ${result.mismatches} wrong bodies, ${result.errors} errors${result.sample_mismatch ? ` (e.g. ${result.sample_mismatch.slice(0, 120)})` : ''}`,
      );
    // Every session got its writes: each has them all in its event journal (a store's writes since the seed, at most
    // EVENT_JOURNAL_LIMIT), and all of them are there, so none was dropped and refilled.
    const listed: unknown = JSON.parse((await send(server.url, { method: 'GET', path: '/__mock/sessions', headers: {} })).body);
    const sessions = isObject(listed) && Array.isArray(listed['sessions']) ? listed['sessions'].filter(isObject) : [];
    const expected = Math.min(EVENT_JOURNAL_LIMIT, writes);
    const counts = new Map<string, number>();
    for (const s of sessions)
      if (typeof s['name'] === 'string' && s['name'].startsWith('mem-')) counts.set(String(s['events']), (counts.get(String(s['events'])) ?? 0) + 1);
    const checked = [...counts].map(([events, n]) => `${n} sessions with ${events} events`).join(', ') || 'no sessions';
    if (counts.get(String(expected)) !== MEMORY_SESSIONS)
      failures.push(`memory phase: expected ${MEMORY_SESSIONS} sessions with ${expected} events each, got ${checked}`);
    const heap = await heapAfterGc(server.pid, server.proc.stderr);
    return {
      sessions: MEMORY_SESSIONS,
      writes_per_session: writes,
      order: 'per session: resumeProject then closeGoal, alternating',
      rps: result.rps,
      cpu_us_per_request: result.server_cpu_us_per_request,
      responses: result.responses,
      rss_mb: rss === undefined ? null : rounded(rss / 1048576, 1),
      heap_after_gc: heap,
      sessions_checked: checked,
    };
  } finally {
    await stop(server.proc);
  }
}

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

const describeHeap = (heap: HeapAfterGc | null): string =>
  heap === null
    ? 'n/a'
    : 'error' in heap
      ? `n/a (${heap.error})`
      : `${fixed(heap.used_mb, 1)} MB used of ${fixed(heap.total_mb, 1)} MB, RSS then ${fixed(heap.rss_mb, 1)} MB`;

/**
 * `--cold-start`: spawn → the first correct resumeProject 200 of the installed mock (the compiled bin, plain node, as
 * `npx service-external-api mock` runs it) against bare node:http started the same way, alternating which goes first,
 * so load on the machine falls on both alike; then, apart, the installed mock's first start with an empty compile
 * cache (a fresh container's). The ratio of medians is the figure the target reads.
 */
async function coldStartOnly(settings: Settings, ctx: Context, loadBefore: ReturnType<typeof machineLoad>): Promise<number> {
  if (!existsSync(join(ROOT, INSTALLED_BIN))) {
    say(`FAIL ${INSTALLED_BIN} is missing (npm run build writes it)`);
    return 1;
  }
  const order: ServerName[] = [INSTALLED, 'http'];
  const samples = new Map<ServerName, number[]>(order.map((name) => [name, []]));
  // The CPU the server process had used when its first answer arrived: what load on the machine stretches least.
  const cpu = new Map<ServerName, number[]>(order.map((name) => [name, []]));
  say(`cold start: ${LABELS[INSTALLED]} against ${LABELS.http}, ${settings.coldStarts} starts each, interleaved…`);
  for (let i = 0; i < settings.coldStarts; i++) {
    for (const name of i % 2 === 0 ? order : [...order].reverse()) {
      const server = await startServer(name, ctx);
      const ticks = cpuTicks(server.pid);
      samples.get(name)?.push(Number(server.readyMs.toFixed(1)));
      if (ticks !== undefined) cpu.get(name)?.push(Math.round((ticks * 1000) / clkTck()));
      await stop(server.proc);
    }
  }
  const emptyCache: number[] = [];
  for (let i = 0; i < Math.min(5, settings.coldStarts); i++) {
    const cache = mkdtempSync(join(tmpdir(), 'bench-compile-cache-'));
    try {
      const server = await startServer(INSTALLED, ctx, undefined, undefined, { NODE_COMPILE_CACHE: cache });
      emptyCache.push(Number(server.readyMs.toFixed(1)));
      await stop(server.proc);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }
  const installed = median(samples.get(INSTALLED) ?? []);
  const http = median(samples.get('http') ?? []);
  const ratio = Number((installed / http).toFixed(2));
  const cpuRatio = Number((median(cpu.get(INSTALLED) ?? []) / median(cpu.get('http') ?? [])).toFixed(2));
  for (const [name, list] of samples) {
    const used = cpu.get(name) ?? [];
    say(
      `cold start ${LABELS[name].padEnd(20)} median ${fixed(median(list), 0).padStart(5)} ms  (${list.map((v) => v.toFixed(0)).join(', ')}); CPU to the first answer median ${fixed(median(used), 0)} ms`,
    );
  }
  say(`cold start ${LABELS[INSTALLED]}, empty compile cache: median ${fixed(median(emptyCache), 0)} ms  (${emptyCache.map((v) => v.toFixed(0)).join(', ')})`);
  const met = ratio <= TARGETS.installed_cold_start_ratio;
  say(
    `installed / node:http: ${ratio}× (target ≤ ${TARGETS.installed_cold_start_ratio}×: ${met ? 'met' : 'NOT met'}); in CPU time ${cpuRatio}×; load ${loadBefore.loadavg_1m} before (a loaded machine stretches both and hides the fixed cost)`,
  );
  const report = {
    kind: 'cold-start',
    generated_at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? null, node: process.version, load_before: loadBefore, load_after: machineLoad() },
    samples_ms: Object.fromEntries(samples),
    median_ms: { installed: Number(installed.toFixed(1)), http: Number(http.toFixed(1)) },
    installed_empty_compile_cache_ms: emptyCache,
    installed_vs_node_http: ratio,
    cpu_ms_to_first_answer: Object.fromEntries(cpu),
    installed_vs_node_http_cpu: cpuRatio,
    target: { at_most: TARGETS.installed_cold_start_ratio, met },
  };
  mkdirSync(dirname(settings.out), { recursive: true });
  writeFileSync(settings.out, `${JSON.stringify(report, null, 2)}\n`);
  say(`wrote ${relative(process.cwd(), settings.out) || settings.out}`);
  return met ? 0 : 1;
}

// ── the run ────────────────────────────────────────────────────────────────────────────────────────────────────────

async function main(): Promise<number> {
  const settings = readSettings();
  const full = !settings.stages;
  const startedAt = new Date();
  const loadBefore = machineLoad();
  const failures: string[] = [];
  const sharedMissing = !full
    ? 'not in --stages'
    : existsSync(REDIS_SERVER)
      ? undefined
      : `${REDIS_SERVER} is not installed (Debian/Ubuntu: sudo apt-get install redis-server)`;
  const servers: ServerName[] = full ? [...SERVERS, ...(sharedMissing ? [] : SHARED)] : [...STAGE_SERVERS];
  const scenarioNames: ReadonlyArray<ScenarioName> = full ? SCENARIOS : OPERATIONS;
  const serves = (server: ServerName, scenario: ScenarioName): boolean => !OPERATIONS_ONLY.has(server) || OPERATIONS.some((o) => o === scenario);
  const runs = servers.reduce((n, s) => n + scenarioNames.filter((c) => serves(s, c)).length, 0);
  const estimate =
    settings.prismProbe +
    (full ? settings.coldStarts * 4 + (settings.sessionWrites * MEMORY_SESSIONS) / 3000 + (settings.inProcessStarts > 0 ? 5 : 0) : 0) +
    (settings.stageRequests > 0 ? ((settings.stageRequests + 3000) * 3 * 2) / 3500 + 2 : 0) +
    runs * (settings.rounds * (settings.duration + 0.4) + settings.warmup) +
    10;
  if (!settings.coldOnly)
    say(
      `bench${full ? '' : ' --stages'}: ${servers.length} servers, ${runs} server × scenario cells × ${settings.rounds} rounds, ${settings.duration} s each after ${settings.warmup} s warm-up, ${settings.connections} connections (about ${Math.ceil(estimate / 60)} min)`,
    );
  say(
    `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), load ${loadBefore.loadavg_1m} ${loadBefore.loadavg_5m} ${loadBefore.loadavg_15m}, node ${process.version}, CLK_TCK ${clkTck()}`,
  );

  // The stage table first, alone on the machine (as far as the bench goes).
  let stageReport: StageReport | null = null;
  if (settings.stageRequests > 0) {
    say(`stage table: ${settings.stageRequests} in-process requests per operation and self-check mode, node ${startFlags().join(' ')}…`);
    try {
      stageReport = await runStages(settings);
      failures.push(...stageReport.failures.map((f) => `stage table: ${f}`));
    } catch (error) {
      failures.push(`stage table: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // Prism's document: generated/openapi.json itself if Prism can load it, else the acyclic export beside it.
  const prism: PrismSpecInfo = {
    used: relative(ROOT, fileURLToPath(DOCUMENT_URL)),
    literal: { tried: false, answered: false, waited_s: 0, note: '' },
    acyclic: null,
  };
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
  const fixturesText = await (await fetch(`${mock.url}/__mock/fixtures`)).text();
  const fixtures = parseFixtures(JSON.parse(fixturesText));
  const list = scenarios(fixtures, settings.sessions).filter((s) => scenarioNames.includes(s.name));
  const resumeScenario = list[0];
  if (!resumeScenario?.requests[0]) throw new Error('no resumeProject scenario');
  for (const scenario of list) ctx.answers.push(await referenceAnswer(mock, scenario, checkFor('mock', scenario, fixtures, [])));
  const resumeRequest = resumeScenario.requests[0];
  ctx.probe = (server) => ({ request: resumeRequest, status: 200, check: checkFor(server, resumeScenario, fixtures, ctx.answers) });
  if (settings.coldOnly) {
    await stop(mock.proc);
    running.delete('mock');
    return coldStartOnly(settings, ctx, loadBefore);
  }

  // In-process start: a fresh process per factory, before the load (the machine as quiet as the bench leaves it).
  const inProcess: { app: StartupReport; msw: StartupReport } | null = await (async () => {
    if (!full || settings.inProcessStarts === 0) return null;
    try {
      return { app: await runStartup('app', fixturesText, settings.inProcessStarts), msw: await runStartup('msw', fixturesText, settings.inProcessStarts) };
    } catch (error) {
      failures.push(`in-process start: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  })();
  if (inProcess) {
    for (const report of [inProcess.app, inProcess.msw]) {
      say(
        `in-process start ${report.factory === 'app' ? 'createMockApp()     ' : 'createMockHandlers()'} + first 200: first ${fixed(report.first_ms, 1)} ms, then median ${fixed(report.later_median_ms, 1)} ms (import ${fixed(report.import_ms, 0)} ms)`,
      );
    }
  }

  if (servers.includes('prism-default') && settings.prismProbe > 0) {
    say(`prism: trying generated/openapi.json for up to ${settings.prismProbe} s…`);
    prism.literal.tried = true;
    const since = performance.now();
    try {
      const probe = await startServer('prism-default', ctx, settings.prismProbe * 1000);
      await stop(probe.proc);
      prism.literal = {
        tried: true,
        answered: true,
        waited_s: Number(((performance.now() - since) / 1000).toFixed(1)),
        note: 'Prism loads generated/openapi.json',
      };
    } catch (error) {
      prism.literal = {
        tried: true,
        answered: false,
        waited_s: Number(((performance.now() - since) / 1000).toFixed(1)),
        note: error instanceof Error ? error.message : String(error),
      };
    }
  }
  if (!prism.literal.answered) {
    const path = fileURLToPath(ACYCLIC_DOCUMENT_URL);
    const bytes = statSync(path).size;
    ctx.prismSpec = path;
    prism.used = relative(ROOT, path);
    prism.acyclic = { bytes };
    say(
      `prism: ${prism.literal.tried ? `generated/openapi.json gave no answer in ${prism.literal.waited_s} s; ` : ''}serving ${prism.used} (${(bytes / 1024).toFixed(0)} KiB)`,
    );
  }

  // Cold starts: spawn → first correct 200 of resumeProject, each on a fresh process, the servers interleaved (one
  // start of each, then the next round), so a burst of load on the machine falls on all of them alike.
  const coldStarts: Record<string, { median_ms: number; samples_ms: number[] }> = {};
  let firstStartMs: number | undefined;
  let helpMs: { median_ms: number; samples_ms: number[] } | undefined;
  if (full && settings.coldStarts > 0) {
    const installed = existsSync(join(ROOT, INSTALLED_BIN));
    if (!installed) failures.push(`cold start of the installed mock: ${INSTALLED_BIN} is missing (npm run build writes it)`);
    const measured = COLD_STARTS.filter((s) => (s === INSTALLED ? installed : servers.includes(s)));
    const samples = new Map<ServerName, number[]>(measured.map((name) => [name, []]));
    const failed = new Set<ServerName>();
    for (let i = 0; i < settings.coldStarts; i++) {
      for (const name of measured) {
        if (failed.has(name)) continue;
        try {
          const server = await startServer(name, ctx);
          samples.get(name)?.push(Number(server.readyMs.toFixed(1)));
          await stop(server.proc);
        } catch (error) {
          failed.add(name);
          failures.push(`cold start of ${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
    for (const [name, list] of samples) {
      coldStarts[name] = { median_ms: Number(median(list).toFixed(1)), samples_ms: list };
      say(`cold start ${LABELS[name].padEnd(20)} median ${fixed(median(list), 0).padStart(5)} ms  (${list.map((s) => s.toFixed(0)).join(', ')})`);
    }
    // `service-external-api mock --help` as installed: spawn → exit.
    if (installed) {
      const list: number[] = [];
      for (let i = 0; i < Math.max(settings.coldStarts, 5); i++) {
        const since = performance.now();
        execFileSync(process.execPath, [INSTALLED_BIN, 'mock', '--help'], { cwd: ROOT, stdio: 'ignore' });
        list.push(Number((performance.now() - since).toFixed(1)));
      }
      helpMs = { median_ms: Number(median(list).toFixed(1)), samples_ms: list };
      say(`installed mock --help: median ${fixed(helpMs.median_ms, 0)} ms  (${list.map((s) => s.toFixed(0)).join(', ')})`);
    }
    // The starts above find Node's compile cache as earlier starts left it (entry.cjs enables it), as a developer's
    // second start does; a brand-new checkout's very first start has an empty one.
    if (servers.includes('mock')) {
      const cache = mkdtempSync(join(tmpdir(), 'bench-compile-cache-'));
      try {
        const server = await startServer('mock', ctx, undefined, undefined, { NODE_COMPILE_CACHE: cache });
        firstStartMs = Number(server.readyMs.toFixed(1));
        await stop(server.proc);
        say(`first start of ${LABELS['mock']}, empty compile cache: ${fixed(firstStartMs, 0)} ms`);
      } catch (error) {
        failures.push(`first start of our mock: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    }
  }

  for (const name of servers) {
    if (running.has(name) || SHARED.some((s) => s === name)) continue;
    try {
      running.set(name, await startServer(name, ctx));
    } catch (error) {
      failures.push(`could not start ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // Our mock with its state in Redis, on a redis-server of its own (no persistence): one replica, and two.
  if (full && sharedMissing) say(`shared store: not measured (${sharedMissing})`);
  else if (full) {
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
  const present = servers.filter((s) => running.has(s));
  for (let round = 0; round < settings.rounds; round++) {
    for (const [index, scenario] of list.entries()) {
      const shift = (round + index) % present.length;
      for (const name of [...present.slice(shift), ...present.slice(0, shift)]) {
        const server = running.get(name);
        if (!server || !serves(name, scenario.name)) continue;
        const check = checkFor(name, scenario, fixtures, ctx.answers);
        const timing: Timing = { connections: settings.connections, warmup: round === 0 ? settings.warmup : 0, duration: settings.duration };
        const result = await runWorker(server, scenario.requests, scenario.expectStatus, check, timing);
        const key = `${name} ${scenario.name}`;
        results.set(key, [...(results.get(key) ?? []), result]);
        const bad =
          result.mismatches + result.unexpected_status + result.errors + result.warmup.mismatches + result.warmup.unexpected_status + result.warmup.errors;
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
  const heapAfterLoad = full ? await heapAfterGc(mock.pid, mock.proc.stderr) : null;
  await stopAll();
  await redisServer?.stop();
  redisServer = undefined;

  // Memory: a fresh mock, 100 sessions × N writes.
  let memory: SessionWritesResult | null = null;
  if (full && settings.sessionWrites > 0) {
    say(`memory: ${MEMORY_SESSIONS} sessions × ${settings.sessionWrites} writes on a fresh mock…`);
    try {
      memory = await sessionWritesPhase(ctx, fixtures, settings.sessionWrites, failures);
    } catch (error) {
      failures.push(`memory phase: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const loadAfter = machineLoad();

  // ── report ──
  const cells: Cell[] = [];
  for (const scenario of list)
    for (const name of present) if (serves(name, scenario.name)) cells.push(summarise(name, scenario.name, results.get(`${name} ${scenario.name}`) ?? []));
  const cell = (name: ServerName, scenario: ScenarioName): Cell | undefined => cells.find((c) => c.server === name && c.scenario === scenario);

  say();
  const header = ['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'server CPU%', 'load-gen CPU%', 'RSS MB', 'errors'];
  const rows = [header];
  for (const c of cells) {
    const errors = c.wrong_bodies + c.wrong_statuses + c.socket_errors + c.timeouts;
    const detail = errors
      ? ` (${[c.wrong_bodies && `${c.wrong_bodies} wrong body`, c.wrong_statuses && `${c.wrong_statuses} wrong status`, c.socket_errors && `${c.socket_errors} socket`, c.timeouts && `${c.timeouts} timeout`].filter(Boolean).join(', ')})`
      : '';
    rows.push([
      SCENARIO_LABELS[c.scenario],
      LABELS[c.server],
      fixed(c.rps, 0),
      fixed(c.p50_ms, 2),
      fixed(c.p99_ms, 2),
      fixed(c.cpu_us_per_request, 0),
      fixed(c.server_cpu_percent, 0),
      fixed(c.client_cpu_percent, 0),
      fixed(c.rss_mb, 1),
      `${errors}${detail}`,
    ]);
  }
  say(table(rows, [false, false, true, true, true, true, true, true, true, false]));

  // Ratios: ours ÷ other by req/s, and other's CPU µs ÷ ours; each row names whose mock it is.
  const ratio = (ours: ServerName, other: ServerName, scenario: ScenarioName, by: 'rps' | 'cpu'): number => {
    const a = cell(ours, scenario);
    const b = cell(other, scenario);
    return rounded(
      by === 'rps' ? (a?.rps ?? Number.NaN) / (b?.rps ?? Number.NaN) : (b?.cpu_us_per_request ?? Number.NaN) / (a?.cpu_us_per_request ?? Number.NaN),
      3,
    );
  };
  type Comparison = { ours: ServerName; other: ServerName; minimum?: number; on?: ReadonlyArray<ScenarioName> };
  const allComparisons: Comparison[] = [
    { ours: 'mock', other: 'prism-default', minimum: TARGETS.prism_default_ratio, on: OPERATIONS },
    { ours: 'mock', other: 'express-floor' },
    { ours: 'mock', other: 'express' },
    { ours: 'mock', other: 'http' },
    { ours: 'mock-sample', other: 'prism-default' },
    { ours: 'mock-sample', other: 'express-floor', minimum: TARGETS.floor_ratio, on: OPERATIONS },
  ];
  const comparisons = allComparisons.filter((c) => present.includes(c.ours) && present.includes(c.other));
  const ratios: Record<string, Record<string, number>> = {};
  const cpuRatios: Record<string, Record<string, number>> = {};
  const ratioRows = [['ours ÷ other (req/s medians)', ...list.map((s) => s.name), 'target']];
  const cpuRows: string[][] = [['by CPU per request (other µs ÷ ours)', ...list.map(() => ''), '']];
  const mark = (value: number | undefined, minimum: number | undefined, applies: boolean): string =>
    `${fixed(value ?? Number.NaN, 2)}${minimum === undefined || !applies || value === undefined || !Number.isFinite(value) ? '' : value >= minimum ? ' ok' : ' BELOW'}`;
  for (const c of comparisons) {
    const key = `${c.ours} ÷ ${c.other}`;
    const label = `${LABELS[c.ours]} ÷ ${LABELS[c.other]}`;
    const applies = (s: ScenarioName): boolean => c.on === undefined || c.on.includes(s);
    const target = c.minimum === undefined ? '' : `≥ ${c.minimum.toFixed(2)}${c.on ? ' (both operations)' : ''}`;
    const byRps: Record<string, number> = {};
    const byCpu: Record<string, number> = {};
    for (const s of list) {
      if (!serves(c.ours, s.name) || !serves(c.other, s.name)) continue;
      byRps[s.name] = ratio(c.ours, c.other, s.name, 'rps');
      byCpu[s.name] = ratio(c.ours, c.other, s.name, 'cpu');
    }
    ratios[key] = byRps;
    cpuRatios[key] = byCpu;
    ratioRows.push([label, ...list.map((s) => (s.name in byRps ? mark(byRps[s.name], c.minimum, applies(s.name)) : '')), target]);
    // The CPU ratio is a target only for the floor (the issue's "CPU ratio"); for Prism it is shown, not judged.
    cpuRows.push([
      `  ${label}`,
      ...list.map((s) => (s.name in byCpu ? mark(byCpu[s.name], c.other === 'express-floor' ? c.minimum : undefined, applies(s.name)) : '')),
      c.other === 'express-floor' ? target : '',
    ]);
  }
  say();
  say(table([...ratioRows, ...cpuRows], [false, ...list.map(() => true), false]));

  // The shared store: the in-memory mock, one replica on Redis, two replicas on one Redis (CPU: replicas + Redis).
  const shared: Record<string, Record<string, { rps: number; ratio_to_memory: number; p99_ms: number; cpu_us_per_request: number }>> = {};
  if (SHARED.some((s) => running.has(s))) {
    const sharedRows = [['shared store (req/s, × in memory)', ...list.map((s) => s.name)]];
    for (const name of ['mock', ...SHARED] as const) {
      const values: Record<string, { rps: number; ratio_to_memory: number; p99_ms: number; cpu_us_per_request: number }> = {};
      for (const scenario of list) {
        const c = cell(name, scenario.name);
        const rps = c?.rps ?? Number.NaN;
        values[scenario.name] = {
          rps,
          ratio_to_memory: Number((rps / (cell('mock', scenario.name)?.rps ?? Number.NaN)).toFixed(3)),
          p99_ms: c?.p99_ms ?? Number.NaN,
          cpu_us_per_request: c?.cpu_us_per_request ?? Number.NaN,
        };
      }
      shared[name] = values;
      const label = name === 'mock' ? 'in memory (our mock)' : name === 'redis-1' ? 'one replica on Redis' : 'two replicas on one Redis';
      sharedRows.push([
        label,
        ...list.map((s) => `${fixed(values[s.name]?.rps ?? Number.NaN, 0)} ×${fixed(values[s.name]?.ratio_to_memory ?? Number.NaN, 2)}`),
      ]);
    }
    say();
    say(table(sharedRows, [false, ...list.map(() => true)]));
  }

  // The stage table, with the load run's server CPU beside it.
  const cpuOf = (name: ServerName): Partial<Record<OperationName, number>> =>
    Object.fromEntries(OPERATIONS.map((o) => [o, cell(name, o)?.cpu_us_per_request ?? Number.NaN]));
  const baselines: HttpBaselines = STAGE_SERVERS.filter((s) => present.includes(s)).map((s) => ({
    key: s,
    label: s === 'mock' ? 'our mock (always)' : LABELS[s],
    cpu_us: cpuOf(s),
  }));
  const overhead = stageReport
    ? (['always', 'sample'] as const)
        .filter((mode) => present.includes(mode === 'always' ? 'mock' : 'mock-sample'))
        .map((mode) => ({ mode, us: httpOverhead(stageReport, mode, cpuOf(mode === 'always' ? 'mock' : 'mock-sample')) }))
    : [];
  if (stageReport) {
    say();
    say(
      `stage table: ${stageReport.requests} requests per column after ${stageReport.warmup} to warm up, in ${stageReport.rounds} interleaved windows, one after another in one process (node ${stageReport.node_flags.join(' ') || '(no flags)'}); each stage's µs over every request (a stage some requests skipped shows the share that reached it)`,
    );
    say(formatStageTable(stageReport, baselines, overhead));
  }

  // The browser bundle of service-external-api/msw, from the compiled package (what a frontend build bundles).
  let bundle: BundleReport | undefined;
  const mswEntry = join(ROOT, 'dist', 'mock', 'src', 'msw.js');
  if (full && existsSync(mswEntry)) {
    try {
      bundle = await measureBrowserBundle(mswEntry);
      say();
      say(
        `service-external-api/msw for a browser: ${fixed(bundle.total_gzip / 1024, 1)} KB gzip in all, ${fixed(bundle.first_answer_gzip / 1024, 1)} KB before the first answer; ${bundle.chunks.map((c) => `${c.file} ${fixed(c.gzip / 1024, 1)} KB (${c.loaded})`).join(' · ')}`,
      );
      say(`  largest modules: ${bundle.top_modules.map((m) => `${m.module} ${fixed(m.bytes / 1024, 0)} KB`).join(' · ')}`);
    } catch (error) {
      failures.push(`the msw bundle: ${error instanceof Error ? error.message : String(error)}`);
    }
  } else if (full) failures.push('the msw bundle: dist/mock/src/msw.js is missing (npm run build writes it)');

  // Targets: each from this run; one not measured in this run is left out.
  type Verdict = { target: string; value: number | Record<string, number> | null; met: boolean };
  const targets: Record<string, Verdict> = {};
  const atMost = (value: number | undefined, limit: number): Verdict => ({
    target: `<= ${limit}`,
    value: value ?? null,
    met: value !== undefined && Number.isFinite(value) && value <= limit,
  });
  const bothAtLeast = (values: Record<string, number> | undefined, limit: number): Verdict => {
    const picked = Object.fromEntries(OPERATIONS.map((o) => [o, values?.[o] ?? Number.NaN]));
    return { target: `>= ${limit} on both operations`, value: picked, met: Object.values(picked).every((v) => Number.isFinite(v) && v >= limit) };
  };
  for (const mode of ['always', 'sample'] as const) {
    const server = mode === 'always' ? 'mock' : 'mock-sample';
    if (!present.includes(server)) continue;
    for (const o of OPERATIONS) targets[`cpu_us_${mode}_${o}`] = atMost(cell(server, o)?.cpu_us_per_request, TARGETS.cpu_us[mode][o]);
  }
  if (ratios['mock-sample ÷ express-floor']) {
    targets['floor_ratio_sample_rps'] = bothAtLeast(ratios['mock-sample ÷ express-floor'], TARGETS.floor_ratio);
    targets['floor_ratio_sample_cpu'] = bothAtLeast(cpuRatios['mock-sample ÷ express-floor'], TARGETS.floor_ratio);
  }
  if (ratios['mock ÷ prism-default']) targets['prism_default_ratio'] = bothAtLeast(ratios['mock ÷ prism-default'], TARGETS.prism_default_ratio);
  if (full) targets['rss_mb_after_load'] = atMost(finalRss['mock'] ?? undefined, TARGETS.rss_mb_after_load);
  if (memory) targets['rss_mb_after_session_writes'] = atMost(memory.rss_mb ?? undefined, TARGETS.rss_mb_after_session_writes);
  if (coldStarts['mock']) targets['cold_start_ms'] = atMost(coldStarts['mock'].median_ms, TARGETS.cold_start_ms);
  if (coldStarts[INSTALLED] && coldStarts['http']) {
    targets['installed_cold_start_vs_node_http'] = atMost(
      Number((coldStarts[INSTALLED].median_ms / coldStarts['http'].median_ms).toFixed(2)),
      TARGETS.installed_cold_start_ratio,
    );
  }
  if (helpMs) targets['installed_help_ms'] = atMost(helpMs.median_ms, TARGETS.help_ms);
  if (bundle) {
    targets['msw_bundle_total_kb_gzip'] = atMost(Number((bundle.total_gzip / 1024).toFixed(1)), BUNDLE_LIMITS.total_gzip / 1024);
    targets['msw_bundle_first_answer_kb_gzip'] = atMost(Number((bundle.first_answer_gzip / 1024).toFixed(1)), BUNDLE_LIMITS.first_answer_gzip / 1024);
  }
  if (inProcess) {
    targets['in_process_start_ms_app'] = atMost(inProcess.app.later_median_ms, TARGETS.in_process_start_ms);
    targets['in_process_start_ms_msw'] = atMost(inProcess.msw.later_median_ms, TARGETS.in_process_start_ms);
  }

  if (full) {
    say();
    say(
      `cold start to the first correct 200 (median of ${settings.coldStarts}): ${COLD_STARTS.filter((s) => coldStarts[s])
        .map((s) => `${LABELS[s]} ${fixed(coldStarts[s]?.median_ms, 0)} ms`)
        .join(' · ')}`,
    );
    say(`RSS after all load: ${[...running.keys()].map((s) => `${LABELS[s]} ${fixed(finalRss[s], 1)} MB`).join(' · ')}`);
    say(`our mock after all load, heap after a forced GC: ${describeHeap(heapAfterLoad)}`);
    if (mockState)
      say(
        `our mock's default session after the load: ${mockState.activities} activities, ${mockState.comment_threads} comment threads, GET /__mock/state ${(mockState.bytes / 1048576).toFixed(1)} MB`,
      );
    if (memory) {
      say(
        `${memory.sessions} sessions × ${memory.writes_per_session} writes (${memory.order}; ${fixed(memory.rps, 0)} req/s, ${fixed(memory.cpu_us_per_request, 0)} µs/req; ${memory.sessions_checked}): RSS ${fixed(memory.rss_mb, 1)} MB; heap after a forced GC: ${describeHeap(memory.heap_after_gc)}`,
      );
    }
  }
  const targetRows = [['target', 'value', 'limit', '']];
  const shown = (v: Verdict['value']): string =>
    v === null
      ? 'n/a'
      : typeof v === 'number'
        ? fixed(v, 1)
        : Object.entries(v)
            .map(([k, x]) => `${k} ${fixed(x, 2)}`)
            .join(', ');
  for (const [name, verdict] of Object.entries(targets)) targetRows.push([name, shown(verdict.value), verdict.target, verdict.met ? 'met' : 'NOT met']);
  say();
  say(table(targetRows, [false, true, false, false]));
  say(`Prism served: ${prism.used}`);
  say(
    `machine load (1/5/15 min): before ${loadBefore.loadavg_1m} ${loadBefore.loadavg_5m} ${loadBefore.loadavg_15m}, after ${loadAfter.loadavg_1m} ${loadAfter.loadavg_5m} ${loadAfter.loadavg_15m} on ${loadAfter.cpus} CPUs`,
  );

  for (const c of cells) {
    const wrong = c.wrong_bodies + c.wrong_statuses;
    if (wrong > 0)
      failures.push(
        `${LABELS[c.server]} ${c.scenario}: ${c.wrong_bodies} wrong bodies, ${c.wrong_statuses} unexpected statuses${c.runs.find((r) => r.sample_mismatch)?.sample_mismatch ? ` (e.g. ${c.runs.find((r) => r.sample_mismatch)?.sample_mismatch?.slice(0, 120)})` : ''}`,
      );
    if ((c.server === 'mock' || c.server === 'mock-sample' || c.server === 'redis-1' || c.server === 'redis-2') && c.socket_errors + c.timeouts > 0)
      failures.push(`${LABELS[c.server]} ${c.scenario}: ${c.socket_errors} socket errors, ${c.timeouts} timeouts`);
  }

  const report = {
    generated_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    git: gitRevision(),
    kind: full ? 'full' : 'stages',
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? null,
      node: process.version,
      clk_tck: clkTck(),
      load_before: loadBefore,
      load_after: loadAfter,
    },
    settings: { ...settings, out: relative(ROOT, settings.out) },
    mock_node_flags: startFlags(),
    prism,
    targets,
    ratios,
    ratios_cpu_per_request: cpuRatios,
    stage_table: stageReport ? { ...stageReport, http_baselines: baselines, http_overhead: overhead } : null,
    shared_store: shared,
    cold_starts: coldStarts,
    first_start_empty_compile_cache_ms: firstStartMs ?? null,
    installed_help_ms: helpMs ?? null,
    msw_bundle: bundle ?? null,
    in_process_start: inProcess,
    rss_mb_after_all_load: finalRss,
    heap_after_gc_after_load: heapAfterLoad,
    mock_state_after_load: mockState,
    session_writes: memory,
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
