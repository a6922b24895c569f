// The stage table: measured first, alone on the machine (as far as the bench goes), in a child process; reported
// after the load, with the load run's server CPU beside it.
import { OPERATIONS, type OperationName } from './scenarios.ts';
import { runStages } from './measuring-children.ts';
import { startFlags } from './proc.ts';
import { say } from './say.ts';
import type { Settings } from './settings.ts';
import { formatStageTable, httpOverhead, type HttpBaselines, type StageReport } from './stagetable.ts';
import { LABELS, STAGE_SERVERS, type ServerName } from './start-server.ts';
import type { Cell } from './summarise.ts';

/** The stage table of `--stage-requests` requests (null when 0 or when it failed: the failure is filed). */
export async function measureStageTable(settings: Settings, failures: string[]): Promise<StageReport | null> {
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
  return stageReport;
}

export type StageTableReport = { baselines: HttpBaselines; overhead: Array<{ mode: 'always' | 'sample'; us: ReturnType<typeof httpOverhead> }> };

/** Prints the stage table with the rows of the servers `present` beside it; what the report's JSON keeps of them. */
export function reportStageTable(
  stageReport: StageReport | null,
  present: ReadonlyArray<ServerName>,
  cell: (name: ServerName, scenario: OperationName) => Cell | undefined,
): StageTableReport {
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
  return { baselines, overhead };
}
