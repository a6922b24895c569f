// The stage table's measurement: our mock's core in this process (no HTTP), one core per self-check mode, the
// bench's resumeProject and closeGoal requests (scenarios.ts, from the core's own GET /__mock/fixtures) answered one
// after another, each answer checked (200, the right record: job.ts's body checks), and the time of every request
// split at the core's stage marks (mock/src/stages.ts). Prints one StageReport (stagetable.ts) as JSON.
//
//   node <npm start's node flags> mock/bench/stage-times.ts [--requests N] [--warmup N] [--rounds N] [--modes always,sample,off]
//
// run.ts starts it with exactly the node flags of `npm start` (launch.ts), so the young generation, and with it the
// GC share, is the one the served mock has. Per mode and operation: --warmup requests first (by default enough writes
// to fill the session's history tables to their limit, as the served mock's are after a few seconds of load), then
// --requests measured, in --rounds windows interleaved over the modes and operations. Exit 0, or 1 when any answer
// was wrong.
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createMockCore, type MockCore, type MockRequest, type SelfCheckMode } from '../src/core/core.ts';
import { isSelfCheckMode, SELF_CHECK_MODES } from '../src/answers/reply.ts';
import { setStageProbe } from '../src/stages.ts';
import { EVENT_JOURNAL_LIMIT } from '../src/storage/store.ts';
import { bodyMatcher, type RequestSpec } from './job.ts';
import { mockCheck, OPERATIONS, parseFixtures, scenarios, type OperationName } from './scenarios.ts';
import { addSums, emptySums, perRequest, StageRecorder, type StageReport, type StageSums } from './stagetable.ts';

const NO_BODY = new Uint8Array(0);
const encoder = new TextEncoder();

function mockRequest(spec: { method: string; path: string; headers: Record<string, string>; body: Uint8Array }): MockRequest {
  return { method: spec.method, target: spec.path, header: (name) => spec.headers[name], body: spec.body };
}

/** A request the core answers as it would the same bytes over HTTP (header names in lower case, as Node gives them). */
function toMockRequest(spec: RequestSpec): () => MockRequest {
  const body = encoder.encode(spec.body);
  const headers = Object.fromEntries(Object.entries(spec.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return () => mockRequest({ method: spec.method, path: spec.path, headers, body });
}

type Operation = { name: OperationName; request: () => MockRequest; matches: (body: string) => boolean };

/** The bench's two operations, built from this core's GET /__mock/fixtures with the load run's code. */
async function operationsOf(core: MockCore): Promise<Operation[]> {
  const reply = await core.answer(mockRequest({ method: 'GET', path: '/__mock/fixtures', headers: {}, body: NO_BODY }));
  if (reply.status !== 200) throw new Error(`GET /__mock/fixtures answered ${reply.status}: ${reply.body.slice(0, 200)}`);
  const fixtures = parseFixtures(JSON.parse(reply.body));
  const list = scenarios(fixtures, 0);
  return OPERATIONS.map((name) => {
    const scenario = list.find((s) => s.name === name);
    const spec = scenario?.requests[0];
    if (!scenario || !spec) throw new Error(`no ${name} scenario`);
    return { name, request: toMockRequest(spec), matches: bodyMatcher(mockCheck(scenario, fixtures)) };
  });
}

const gcEntries: Array<{ start: number; duration: number }> = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcEntries.push({ start: entry.startTime, duration: entry.duration });
}).observe({ entryTypes: ['gc'] });

/** Lets the observer deliver the GC entries of the window just ended. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

const failures: string[] = [];

/** `count` requests of one operation, one after another; each answer checked, the checks outside the CPU figure. */
async function measure(core: MockCore, operation: Operation, count: number, mode: SelfCheckMode, recorder?: StageRecorder): Promise<StageSums> {
  let checkCpu = 0;
  let wrong = 0;
  let sample = '';
  const from = performance.now();
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    recorder?.begin();
    const framed = await core.answer(operation.request());
    recorder?.end();
    const checkBefore = process.cpuUsage();
    if (framed.status !== 200 || !operation.matches(framed.body)) {
      wrong++;
      sample ||= `${framed.status} ${framed.body.slice(0, 160)}`;
    }
    const checked = process.cpuUsage(checkBefore);
    checkCpu += checked.user + checked.system;
  }
  const cpu = process.cpuUsage(cpuBefore);
  const to = performance.now();
  if (wrong > 0) failures.push(`${mode} ${operation.name}: ${wrong} of ${count} answers wrong (e.g. ${sample})`);
  const sums = recorder?.sums ?? emptySums();
  await settle();
  const gc = gcEntries.filter((e) => e.start >= from && e.start < to);
  return { ...sums, cpu_us: cpu.user + cpu.system - checkCpu, gc_ms: gc.reduce((n, e) => n + e.duration, 0), gc_count: gc.length };
}

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`error: --${name} must be a whole number from 1, got "${raw}"\n`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({
  options: { requests: { type: 'string' }, warmup: { type: 'string' }, rounds: { type: 'string' }, modes: { type: 'string' } },
  strict: true,
});
const requests = positive('requests', values.requests, 3000);
// The history tables are trimmed at EVENT_JOURNAL_LIMIT plus a tenth: past that, the session is in its steady state.
const warmup = positive('warmup', values.warmup, Math.ceil((EVENT_JOURNAL_LIMIT * 1.1) / OPERATIONS.length) + 100);
const rounds = Math.min(requests, positive('rounds', values.rounds, 3));
const modes = (values.modes ?? SELF_CHECK_MODES.join(',')).split(',').map((m) => m.trim());
if (!modes.every(isSelfCheckMode) || modes.length === 0) {
  process.stderr.write(`error: --modes must list ${SELF_CHECK_MODES.join(', ')}, got "${values.modes}"\n`);
  process.exit(2);
}

const cores: Array<{ mode: SelfCheckMode; core: MockCore; operations: Operation[] }> = [];
for (const mode of modes.filter(isSelfCheckMode)) {
  const core = createMockCore({ selfCheck: mode });
  const failure = await core.ready;
  if (failure) throw failure;
  const operations = await operationsOf(core);
  for (const operation of operations) await measure(core, operation, warmup, mode);
  cores.push({ mode, core, operations });
}

const totals = new Map<string, StageSums>();
let recorder: StageRecorder | undefined;
setStageProbe((stage) => recorder?.mark(stage));
for (let round = 0; round < rounds; round++) {
  const count = Math.floor(requests / rounds) + (round < requests % rounds ? 1 : 0);
  for (const { mode, core, operations } of cores) {
    for (const operation of operations) {
      recorder = new StageRecorder(() => performance.now());
      const sums = await measure(core, operation, count, mode, recorder);
      const key = `${mode} ${operation.name}`;
      totals.set(key, addSums(totals.get(key) ?? emptySums(), sums));
    }
  }
}
setStageProbe(undefined);

const report: StageReport = {
  node_flags: process.execArgv,
  requests,
  warmup,
  rounds,
  results: cores.flatMap(({ mode, operations }) =>
    operations.map((o) => ({ mode, operation: o.name, figures: perRequest(totals.get(`${mode} ${o.name}`) ?? emptySums()) })),
  ),
  failures,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exitCode = failures.length > 0 ? 1 : 0;
