// The measuring children, each a fresh process that prints one JSON result: the load worker (worker.ts), the stage
// table (stage-times.ts) and the in-process start (startup.ts), the last two with npm start's node flags.
import { isObject } from '../../spec/lib/openapi.ts';
import { launch, resultOf } from './children.ts';
import type { BodyCheck, Job, RequestSpec, WorkerResult } from './job.ts';
import { clkTck, startFlags } from './proc.ts';
import type { Settings } from './settings.ts';
import type { StageReport } from './stagetable.ts';
import type { StartupReport } from './startup.ts';
import type { Running } from './start-server.ts';

const WORKER = 'mock/bench/worker.ts';
const STAGES_CHILD = 'mock/bench/stage-times.ts';
const STARTUP_CHILD = 'mock/bench/startup.ts';

export type Timing = { connections: number; warmup: number; duration: number; amount?: number };

export async function runWorker(server: Running, requests: RequestSpec[], expectStatus: number, check: BodyCheck, timing: Timing): Promise<WorkerResult> {
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
export async function runStages(settings: Settings): Promise<StageReport> {
  const proc = launch('stage table', [...startFlags(), STAGES_CHILD, '--requests', String(settings.stageRequests)], { keepStdout: 'all' });
  const parsed = await resultOf(proc, 600_000);
  if (!isObject(parsed) || !Array.isArray(parsed['results'])) throw new Error(`${STAGES_CHILD} printed no stage report`);
  // Written by stage-times.ts from this checkout: the StageReport shape.
  return parsed as unknown as StageReport;
}

/** createMockApp() or createMockHandlers() and the first 200, `count` times in a fresh process (npm start's flags). */
export async function runStartup(factory: 'app' | 'msw', fixtures: string, count: number): Promise<StartupReport> {
  const proc = launch(`in-process start (${factory})`, [...startFlags(), STARTUP_CHILD, factory, '--count', String(count)], {
    stdin: fixtures,
    keepStdout: 'all',
  });
  const parsed = await resultOf(proc, 120_000);
  if (!isObject(parsed) || !Array.isArray(parsed['samples'])) throw new Error(`${STARTUP_CHILD} ${factory} printed no report`);
  // Written by startup.ts from this checkout: the StartupReport shape.
  return parsed as unknown as StartupReport;
}
