// The load: rounds × scenarios × servers, the server order rotating so no server always runs first or last; one
// line per run. Each server × scenario's runs, keyed `<server> <scenario>`.
import { fixed } from './format.ts';
import type { WorkerResult } from './job.ts';
import { runWorker, type Timing } from './measuring-children.ts';
import { checkFor } from './reference-answer.ts';
import { say } from './say.ts';
import type { Fixtures, Scenario, ScenarioName } from './scenarios.ts';
import type { Settings } from './settings.ts';
import { LABELS, type Context, type Running, type ServerName } from './start-server.ts';

export type Serves = (server: ServerName, scenario: ScenarioName) => boolean;

export async function loadPhase(
  settings: Settings,
  list: ReadonlyArray<Scenario>,
  present: ReadonlyArray<ServerName>,
  running: ReadonlyMap<ServerName, Running>,
  serves: Serves,
  fixtures: Fixtures,
  ctx: Context,
): Promise<Map<string, WorkerResult[]>> {
  const results = new Map<string, WorkerResult[]>();
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
  return results;
}
