// `--cold-start`: the installed mock's cold start against bare node:http's, interleaved; writes results/cold-start.json.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { stop } from './children.ts';
import { fixed, median } from './format.ts';
import { ROOT } from './launch.ts';
import { clkTck, cpuTicks, machineLoad } from './proc.ts';
import { say } from './say.ts';
import type { Settings } from './settings.ts';
import { INSTALLED, INSTALLED_BIN, LABELS, startServer, type Context, type ServerName } from './start-server.ts';
import { TARGETS } from './targets.ts';

/**
 * `--cold-start`: spawn → the first correct resumeProject 200 of the installed mock (the compiled bin, plain node, as
 * `npx service-external-api mock` runs it) against bare node:http started the same way, alternating which goes first,
 * so load on the machine falls on both alike; then, apart, the installed mock's first start with an empty compile
 * cache (a fresh container's). The ratio of medians is the figure the target reads.
 */
export async function coldStartOnly(settings: Settings, ctx: Context, loadBefore: ReturnType<typeof machineLoad>): Promise<number> {
  if (!existsSync(join(ROOT, INSTALLED_BIN))) {
    say(`FAIL ${INSTALLED_BIN} is missing (npm run build writes it)`);
    return 1;
  }
  const order: ServerName[] = [INSTALLED, 'http'];
  const samples = new Map<ServerName, number[]>(order.map((name) => [name, []]));
  // The CPU the server process had used when its first answer arrived: what load on the machine stretches least.
  const cpu = new Map<ServerName, number[]>(order.map((name) => [name, []]));
  say(`cold start: ${LABELS[INSTALLED]} against ${LABELS.http}, ${settings.coldStarts} starts each, interleaved…`);
  for (let i = 0; i < settings.coldStarts; i++) {
    for (const name of i % 2 === 0 ? order : [...order].reverse()) {
      const server = await startServer(name, ctx);
      const ticks = cpuTicks(server.pid);
      samples.get(name)?.push(Number(server.readyMs.toFixed(1)));
      if (ticks !== undefined) cpu.get(name)?.push(Math.round((ticks * 1000) / clkTck()));
      await stop(server.proc);
    }
  }
  const emptyCache: number[] = [];
  for (let i = 0; i < Math.min(5, settings.coldStarts); i++) {
    const cache = mkdtempSync(join(tmpdir(), 'bench-compile-cache-'));
    try {
      const server = await startServer(INSTALLED, ctx, undefined, undefined, { NODE_COMPILE_CACHE: cache });
      emptyCache.push(Number(server.readyMs.toFixed(1)));
      await stop(server.proc);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }
  const installed = median(samples.get(INSTALLED) ?? []);
  const http = median(samples.get('http') ?? []);
  const ratio = Number((installed / http).toFixed(2));
  const cpuRatio = Number((median(cpu.get(INSTALLED) ?? []) / median(cpu.get('http') ?? [])).toFixed(2));
  for (const [name, list] of samples) {
    const used = cpu.get(name) ?? [];
    say(
      `cold start ${LABELS[name].padEnd(20)} median ${fixed(median(list), 0).padStart(5)} ms  (${list.map((v) => v.toFixed(0)).join(', ')}); CPU to the first answer median ${fixed(median(used), 0)} ms`,
    );
  }
  say(`cold start ${LABELS[INSTALLED]}, empty compile cache: median ${fixed(median(emptyCache), 0)} ms  (${emptyCache.map((v) => v.toFixed(0)).join(', ')})`);
  const met = ratio <= TARGETS.installed_cold_start_ratio;
  say(
    `installed / node:http: ${ratio}× (target ≤ ${TARGETS.installed_cold_start_ratio}×: ${met ? 'met' : 'NOT met'}); in CPU time ${cpuRatio}×; load ${loadBefore.loadavg_1m} before (a loaded machine stretches both and hides the fixed cost)`,
  );
  const report = {
    kind: 'cold-start',
    generated_at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? null, node: process.version, load_before: loadBefore, load_after: machineLoad() },
    samples_ms: Object.fromEntries(samples),
    median_ms: { installed: Number(installed.toFixed(1)), http: Number(http.toFixed(1)) },
    installed_empty_compile_cache_ms: emptyCache,
    installed_vs_node_http: ratio,
    cpu_ms_to_first_answer: Object.fromEntries(cpu),
    installed_vs_node_http_cpu: cpuRatio,
    target: { at_most: TARGETS.installed_cold_start_ratio, met },
  };
  mkdirSync(dirname(settings.out), { recursive: true });
  writeFileSync(settings.out, `${JSON.stringify(report, null, 2)}\n`);
  say(`wrote ${relative(process.cwd(), settings.out) || settings.out}`);
  return met ? 0 : 1;
}
