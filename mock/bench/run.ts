// `npm run bench`: the mock against Prism, the parse-and-stringify Express floor and two bare baselines, in one run,
// on loopback, with its targets; the stage table of the mock's core beside them; memory after the load and
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
//
// This file composes the run; each phase is a module of its own, named after what it exports (README.md, "Files").
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCUMENT_URL } from '../../spec/lib/files.ts';
import { REDIS_SERVER, startRedis, type RedisServer } from '../test/redisServer.ts';
import { live, signalGroup, stop, stopAll } from './children.ts';
import { coldStartOnly } from './cold-start-only.ts';
import { coldStartsPhase, type ColdStarts } from './cold-starts-phase.ts';
import { fixed } from './format.ts';
import { inProcessPhase } from './in-process-phase.ts';
import { ROOT } from './launch.ts';
import { loadPhase } from './load-phase.ts';
import { memoryAfterLoad, type AfterLoad } from './memory-after-load.ts';
import { mswBundlePhase } from './msw-bundle-phase.ts';
import { choosePrismDocument, prismEntry } from './prism-document.ts';
import { clkTck, machineLoad, startFlags } from './proc.ts';
import { checkFor, referenceAnswer } from './reference-answer.ts';
import { describeHeap, say } from './say.ts';
import { OPERATIONS, parseFixtures, SCENARIOS, scenarios, type ScenarioName } from './scenarios.ts';
import { sessionWritesPhase, type SessionWritesResult } from './session-writes-phase.ts';
import { MEMORY_SESSIONS, readSettings, type Settings } from './settings.ts';
import { measureStageTable, reportStageTable } from './stage-table-phase.ts';
import {
  COLD_STARTS,
  LABELS,
  OPERATIONS_ONLY,
  SERVERS,
  SHARED,
  STAGE_SERVERS,
  startServer,
  type Context,
  type Probe,
  type Running,
  type ServerName,
} from './start-server.ts';
import { cellFailures } from './summarise.ts';
import { sayTargets, verdicts } from './verdicts.ts';
import { throughputTables } from './throughput-table.ts';

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

function gitRevision(): string | null {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** The lines of a full run after the tables: cold starts, memory after the load and after the session writes. */
function sayFullRun(
  settings: Settings,
  coldStarts: ColdStarts['coldStarts'],
  ran: ReadonlyArray<ServerName>,
  afterLoad: AfterLoad,
  memory: SessionWritesResult | null,
): void {
  const { finalRss, heapAfterLoad, mockState } = afterLoad;
  say();
  say(
    `cold start to the first correct 200 (median of ${settings.coldStarts}): ${COLD_STARTS.filter((s) => coldStarts[s])
      .map((s) => `${LABELS[s]} ${fixed(coldStarts[s]?.median_ms, 0)} ms`)
      .join(' · ')}`,
  );
  say(`RSS after all load: ${ran.map((s) => `${LABELS[s]} ${fixed(finalRss[s], 1)} MB`).join(' · ')}`);
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

  const stageReport = await measureStageTable(settings, failures);

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
  if (!resumeScenario?.requests[0]) throw new Error("no scenario of the spec's first operation");
  for (const scenario of list) ctx.answers.push(await referenceAnswer(mock, scenario, checkFor('mock', scenario, fixtures, [])));
  const resumeRequest = resumeScenario.requests[0];
  ctx.probe = (server) => ({ request: resumeRequest, status: 200, check: checkFor(server, resumeScenario, fixtures, ctx.answers) });
  if (settings.coldOnly) {
    await stop(mock.proc);
    running.delete('mock');
    return coldStartOnly(settings, ctx, loadBefore);
  }

  const inProcess = await inProcessPhase(full, settings, fixturesText, failures);
  const prism = await choosePrismDocument(settings, servers, ctx);
  const { coldStarts, firstStartMs, helpMs } = await coldStartsPhase(full, settings, ctx, servers, failures);

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

  const present = servers.filter((s) => running.has(s));
  const results = await loadPhase(settings, list, present, running, serves, fixtures, ctx);

  const afterLoad = await memoryAfterLoad(mock, running, full);
  const { finalRss, heapAfterLoad } = afterLoad;
  await stopAll();
  await redisServer?.stop();
  redisServer = undefined;

  const memory = await sessionWritesPhase(full, settings, ctx, fixtures, failures);
  const loadAfter = machineLoad();

  // ── report ──
  const throughput = throughputTables(list, present, results, running, serves);
  const { cells, ratios, cpuRatios, shared } = throughput;
  const { baselines, overhead } = reportStageTable(stageReport, present, throughput.cell);
  const bundle = await mswBundlePhase(full, failures);
  const targets = verdicts({ full, present, throughput, finalRss, memory, coldStarts, helpMs, bundle, inProcess });

  if (full) sayFullRun(settings, coldStarts, [...running.keys()], afterLoad, memory);
  sayTargets(targets);
  say(`Prism served: ${prism.used}`);
  say(
    `machine load (1/5/15 min): before ${loadBefore.loadavg_1m} ${loadBefore.loadavg_5m} ${loadBefore.loadavg_15m}, after ${loadAfter.loadavg_1m} ${loadAfter.loadavg_5m} ${loadAfter.loadavg_15m} on ${loadAfter.cpus} CPUs`,
  );
  failures.push(...cellFailures(cells));

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
    mock_state_after_load: afterLoad.mockState,
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
