// The servers the bench measures and how each is started: spawned as its users start it, and ready when it has
// answered a probe (resumeProject's 200 with the body that server must send) correctly; the time to that answer is
// its start time. HTTP from the orchestrator (fixtures, reference bodies, readiness polls) goes through `send`.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisServer } from '../test/redisServer.ts';
import { freePort } from '../../spec/lib/ports.ts';
import { launch, stop, waitForPort, type Proc } from './children.ts';
import { bodyMatcher, type BodyCheck } from './job.ts';
import { startArgs } from './launch.ts';
import { MOCK_MAIN, serverPid } from './proc.ts';

const BARE = 'mock/bench/bare.ts';

type Reply = { status: number; body: string; headers: Headers };

/** A request that shows a server is up and right: the status and body it must answer with. */
export type Probe = { request: { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string }; status: number; check: BodyCheck };

export async function send(base: string, request: Probe['request']): Promise<Reply> {
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

export const SERVERS = ['mock', 'mock-sample', 'prism-default', 'express-floor', 'express', 'http'] as const;
/** Our mock with its state in Redis (--store): one replica, and two replicas with the load split evenly over them. */
export const SHARED = ['redis-1', 'redis-2'] as const;
/** The mock as users install it: the compiled package's bin (dist/cli/bin.cjs), started with plain node. Cold start only. */
export const INSTALLED = 'installed';
export type ServerName = (typeof SERVERS)[number] | (typeof SHARED)[number] | typeof INSTALLED;
/** The compiled bin, as `npx service-external-api` runs it from node_modules (npm run build writes it). */
export const INSTALLED_BIN = 'dist/cli/bin.cjs';
export const LABELS: Record<ServerName, string> = {
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
export const OPERATIONS_ONLY: ReadonlySet<ServerName> = new Set(['mock-sample', 'express-floor']);
/** The servers of `--stages`: the rows beside the stage table. */
export const STAGE_SERVERS: ReadonlyArray<ServerName> = ['mock', 'mock-sample', 'express-floor', 'express', 'prism-default'];
/** The servers whose cold start is measured (the sample mock starts as ours does, the floor as bare Express). */
export const COLD_STARTS: ReadonlyArray<ServerName> = ['mock', INSTALLED, 'prism-default', 'express', 'http'];

/** A server; a shared-store mock also has its other replicas and the Redis process, whose CPU counts as its own. */
export type Running = { name: ServerName; proc: Proc; pid: number; url: string; readyMs: number; also: Array<{ url: string; pid: number }>; storePid?: number };

/** What a baseline server sends for one scenario (bare.ts reads a list of these). */
export type Answer = { path: string; auth: boolean; session: boolean; status: number; headers: Record<string, string>; body: string };

export type Context = {
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

export async function startServer(
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
