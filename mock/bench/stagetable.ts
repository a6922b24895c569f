// The stage table's arithmetic and its printing, apart from the process that measures (stages.ts), so run.ts can
// print a child's report and the tests can check the sums with a clock of their own.
//
// The core calls the stage probe as each stage ENDS (mock/src/stages.ts): the time from the start of a request to
// its first mark is that first stage's, from one mark to the next the next stage's, and from the last mark to the
// answer "after the last mark". A request that returns early skips the later marks, so each stage also counts the
// requests that reached it.
import { STAGES, type Stage } from '../src/stages.ts';
import type { SelfCheckMode } from '../src/core/core.ts';
import { fixed, rounded, table } from './format.ts';
import { operationModels } from '../../spec/lib/operations.ts';
import { OPERATIONS, type OperationName } from './scenarios.ts';

/** One measured window, or several added up: times in ms (performance.now()), process CPU in µs. */
export type StageSums = {
  requests: number;
  stage_ms: Record<Stage, number>;
  /** How many requests reached each stage's mark. */
  stage_hits: Record<Stage, number>;
  /** From the last mark to the answer. */
  after_last_ms: number;
  /** From the call to the answer, the stages included. */
  wall_ms: number;
  /** The process's CPU (process.cpuUsage: every thread, GC helpers included) over the window, the body checks excluded. */
  cpu_us: number;
  /** PerformanceObserver 'gc' entries that started in the window (their time is inside the stages' too). */
  gc_ms: number;
  gc_count: number;
};

/** A number per stage. */
function byStage(value: (stage: Stage) => number): Record<Stage, number> {
  // Object.fromEntries types its keys as string; the keys are exactly STAGES.
  return Object.fromEntries(STAGES.map((s) => [s, value(s)])) as Record<Stage, number>;
}

export function emptySums(): StageSums {
  return { requests: 0, stage_ms: byStage(() => 0), stage_hits: byStage(() => 0), after_last_ms: 0, wall_ms: 0, cpu_us: 0, gc_ms: 0, gc_count: 0 };
}

export function addSums(a: StageSums, b: StageSums): StageSums {
  return {
    requests: a.requests + b.requests,
    stage_ms: byStage((s) => a.stage_ms[s] + b.stage_ms[s]),
    stage_hits: byStage((s) => a.stage_hits[s] + b.stage_hits[s]),
    after_last_ms: a.after_last_ms + b.after_last_ms,
    wall_ms: a.wall_ms + b.wall_ms,
    cpu_us: a.cpu_us + b.cpu_us,
    gc_ms: a.gc_ms + b.gc_ms,
    gc_count: a.gc_count + b.gc_count,
  };
}

/** Splits each request's time at the stage marks: `begin()` before the call, the probe's marks, `end()` after it. */
export class StageRecorder {
  readonly sums: StageSums = emptySums();
  readonly #now: () => number;
  #start = 0;
  #last = 0;
  #open = false;

  constructor(now: () => number) {
    this.#now = now;
  }

  begin(): void {
    this.#start = this.#now();
    this.#last = this.#start;
    this.#open = true;
  }

  /** The probe: `stage` has just ended. A mark outside a request (a warm-up, a fixtures read) is not counted. */
  mark(stage: Stage): void {
    if (!this.#open) return;
    const at = this.#now();
    this.sums.stage_ms[stage] += at - this.#last;
    this.sums.stage_hits[stage] += 1;
    this.#last = at;
  }

  end(): void {
    if (!this.#open) return;
    const at = this.#now();
    this.sums.after_last_ms += at - this.#last;
    this.sums.wall_ms += at - this.#start;
    this.sums.requests += 1;
    this.#open = false;
  }
}

/** Per request: each stage's µs (over every request, so the stages add up to the wall time), and the share that reached it. */
export type StageFigures = {
  requests: number;
  stages_us: Record<Stage, number>;
  reached: Record<Stage, number>;
  after_last_mark_us: number;
  wall_us: number;
  cpu_us: number;
  gc_us: number;
  gc_per_1000: number;
};

export function perRequest(sums: StageSums): StageFigures {
  const n = Math.max(1, sums.requests);
  const us = (ms: number): number => rounded((ms * 1000) / n, 2);
  return {
    requests: sums.requests,
    stages_us: byStage((s) => us(sums.stage_ms[s])),
    reached: byStage((s) => rounded(sums.stage_hits[s] / n, 4)),
    after_last_mark_us: us(sums.after_last_ms),
    wall_us: us(sums.wall_ms),
    cpu_us: rounded(sums.cpu_us / n, 2),
    gc_us: us(sums.gc_ms),
    gc_per_1000: rounded((sums.gc_count * 1000) / n, 2),
  };
}

/** What stages.ts prints: the figures per self-check mode and operation, and how they were taken. */
export type StageReport = {
  /** process.execArgv of the measuring process: npm start's node flags. */
  node_flags: string[];
  requests: number;
  warmup: number;
  rounds: number;
  results: Array<{ mode: SelfCheckMode; operation: OperationName; figures: StageFigures }>;
  /** Answers that were not the expected 200 with the right record. */
  failures: string[];
};

/** Server CPU per request of the load run's rows, to print beside the stages (µs by operation). */
export type HttpBaselines = Array<{ key: string; label: string; cpu_us: Partial<Record<OperationName, number>> }>;

/** "HTTP + Express": a mock row's server CPU per request minus the in-process CPU per request of the same mode. */
export function httpOverhead(
  report: StageReport,
  mode: SelfCheckMode,
  serverCpu: Partial<Record<OperationName, number>>,
): Partial<Record<OperationName, number>> {
  const out: Partial<Record<OperationName, number>> = {};
  for (const operation of OPERATIONS) {
    const inProcess = report.results.find((r) => r.mode === mode && r.operation === operation)?.figures.cpu_us;
    const server = serverCpu[operation];
    if (inProcess !== undefined && server !== undefined && Number.isFinite(server)) out[operation] = rounded(server - inProcess, 1);
  }
  return out;
}

/** An operation's column heading: the last segment of its path (`resume`, `close`), from the spec. */
const short = (operation: OperationName): string =>
  operationModels()
    .find((o) => o.operationId === operation)
    ?.path.split('/')
    .at(-1) ?? operation;

/** The stage table: a column per mode and operation; below it, the load run's server CPU and the HTTP + Express share. */
export function formatStageTable(
  report: StageReport,
  http: HttpBaselines = [],
  overhead: Array<{ mode: SelfCheckMode; us: Partial<Record<OperationName, number>> }> = [],
): string {
  const columns = report.results;
  const header = ['µs per request (in process)', ...columns.map((c) => `${c.mode} ${short(c.operation)}`)];
  const rows = [header];
  for (const stage of STAGES) {
    rows.push([
      `  ${stage}`,
      ...columns.map(
        (c) => `${fixed(c.figures.stages_us[stage], 1)}${c.figures.reached[stage] < 1 ? ` (${Math.round(c.figures.reached[stage] * 100)}%)` : ''}`,
      ),
    ]);
  }
  rows.push(['  after the last mark', ...columns.map((c) => fixed(c.figures.after_last_mark_us, 1))]);
  rows.push(['sum of the stages (wall)', ...columns.map((c) => fixed(c.figures.wall_us, 1))]);
  rows.push(['GC, inside the stages above', ...columns.map((c) => fixed(c.figures.gc_us, 1))]);
  rows.push(['  GC pauses per 1000 requests', ...columns.map((c) => fixed(c.figures.gc_per_1000, 1))]);
  rows.push(['process CPU', ...columns.map((c) => fixed(c.figures.cpu_us, 1))]);
  const lines = [table(rows, [false, ...columns.map(() => true)])];
  if (http.length > 0 || overhead.length > 0) {
    const httpRows = [['server CPU µs/req (load run)', ...OPERATIONS.map(short)]];
    for (const row of http) httpRows.push([row.label, ...OPERATIONS.map((o) => fixed(row.cpu_us[o], 0))]);
    for (const row of overhead) httpRows.push([`HTTP + Express, ${row.mode} (server − in-process CPU)`, ...OPERATIONS.map((o) => fixed(row.us[o], 0))]);
    lines.push('', table(httpRows, [false, ...OPERATIONS.map(() => true)]));
  }
  return lines.join('\n');
}
