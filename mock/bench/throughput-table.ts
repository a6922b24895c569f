// The throughput table: one row per server × scenario (req/s, latency, CPU, RSS, wrong answers), the ratios of ours
// to each other server by req/s and by CPU per request (the targets marked), and the shared store's rows.
import { fixed, rounded, table } from './format.ts';
import type { WorkerResult } from './job.ts';
import type { Serves } from './load-phase.ts';
import { say } from './say.ts';
import { OPERATIONS, SCENARIO_LABELS, type Scenario, type ScenarioName } from './scenarios.ts';
import { LABELS, SHARED, type Running, type ServerName } from './start-server.ts';
import { summarise, type Cell } from './summarise.ts';
import { TARGETS } from './targets.ts';

type SharedRow = { rps: number; ratio_to_memory: number; p99_ms: number; cpu_us_per_request: number };

export type Throughput = {
  cells: Cell[];
  cell: (name: ServerName, scenario: ScenarioName) => Cell | undefined;
  /** `<ours> ÷ <other>` → scenario → ours ÷ other by req/s. */
  ratios: Record<string, Record<string, number>>;
  /** The same by CPU per request (other µs ÷ ours). */
  cpuRatios: Record<string, Record<string, number>>;
  shared: Record<string, Record<string, SharedRow>>;
};

/** Prints the tables of the load's results. */
export function throughputTables(
  list: ReadonlyArray<Scenario>,
  present: ReadonlyArray<ServerName>,
  results: ReadonlyMap<string, WorkerResult[]>,
  running: ReadonlyMap<ServerName, Running>,
  serves: Serves,
): Throughput {
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
  const shared: Record<string, Record<string, SharedRow>> = {};
  if (SHARED.some((s) => running.has(s))) {
    const sharedRows = [['shared store (req/s, × in memory)', ...list.map((s) => s.name)]];
    for (const name of ['mock', ...SHARED] as const) {
      const values: Record<string, SharedRow> = {};
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
  return { cells, cell, ratios, cpuRatios, shared };
}
