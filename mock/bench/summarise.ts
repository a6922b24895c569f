// The statistics of one server × scenario cell: the medians over its rounds, and every wrong answer summed.
import { median } from './format.ts';
import type { WorkerResult } from './job.ts';
import type { ScenarioName } from './scenarios.ts';
import { LABELS, type ServerName } from './start-server.ts';

export type Cell = {
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

export function summarise(server: ServerName, scenario: ScenarioName, runs: WorkerResult[]): Cell {
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

/** A wrong answer fails the run for any server; a socket error or timeout only for ours. */
export function cellFailures(cells: ReadonlyArray<Cell>): string[] {
  const failures: string[] = [];
  for (const c of cells) {
    const wrong = c.wrong_bodies + c.wrong_statuses;
    if (wrong > 0)
      failures.push(
        `${LABELS[c.server]} ${c.scenario}: ${c.wrong_bodies} wrong bodies, ${c.wrong_statuses} unexpected statuses${c.runs.find((r) => r.sample_mismatch)?.sample_mismatch ? ` (e.g. ${c.runs.find((r) => r.sample_mismatch)?.sample_mismatch?.slice(0, 120)})` : ''}`,
      );
    if ((c.server === 'mock' || c.server === 'mock-sample' || c.server === 'redis-1' || c.server === 'redis-2') && c.socket_errors + c.timeouts > 0)
      failures.push(`${LABELS[c.server]} ${c.scenario}: ${c.socket_errors} socket errors, ${c.timeouts} timeouts`);
  }
  return failures;
}
