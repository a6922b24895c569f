// The verdict on each of the bench's targets (targets.ts) from one run (see README.md, "Targets"), as a table.
import { BUNDLE_LIMITS, type BundleReport } from './bundle.ts';
import type { ColdStarts } from './cold-starts-phase.ts';
import { fixed, table } from './format.ts';
import type { InProcessStarts } from './in-process-phase.ts';
import { say } from './say.ts';
import { OPERATIONS } from './scenarios.ts';
import type { SessionWritesResult } from './session-writes-phase.ts';
import { INSTALLED, type ServerName } from './start-server.ts';
import { TARGETS } from './targets.ts';
import type { Throughput } from './throughput-table.ts';

export type Verdict = { target: string; value: number | Record<string, number> | null; met: boolean };

/** What one run measured that a target reads (each may be missing: a target not measured is left out). */
export type Measured = {
  full: boolean;
  present: ReadonlyArray<ServerName>;
  throughput: Throughput;
  finalRss: Record<string, number | null>;
  memory: SessionWritesResult | null;
  coldStarts: ColdStarts['coldStarts'];
  helpMs: ColdStarts['helpMs'];
  bundle: BundleReport | undefined;
  inProcess: InProcessStarts | null;
};

/** Each target's verdict from this run; one not measured in this run is left out. */
export function verdicts(measured: Measured): Record<string, Verdict> {
  const { full, present, finalRss, memory, coldStarts, helpMs, bundle, inProcess } = measured;
  const { cell, ratios, cpuRatios } = measured.throughput;
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
    for (const o of OPERATIONS)
      targets[`cpu_us_${mode}_${o}`] = atMost(cell(server, o)?.cpu_us_per_request, TARGETS.cpu_us[mode][o] ?? TARGETS.cpu_us[mode]['any'] ?? Number.NaN);
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
  return targets;
}

/** Prints the targets' table. */
export function sayTargets(targets: Record<string, Verdict>): void {
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
}
