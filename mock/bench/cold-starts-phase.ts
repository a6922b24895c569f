// Cold starts: spawn → first correct 200 of resumeProject, each on a fresh process, the servers interleaved (one
// start of each, then the next round), so a burst of load on the machine falls on all of them alike; then the
// installed `mock --help`, and our mock's first start with an empty compile cache.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stop } from './children.ts';
import { fixed, median } from './format.ts';
import { ROOT } from './launch.ts';
import { say } from './say.ts';
import type { Settings } from './settings.ts';
import { COLD_STARTS, INSTALLED, INSTALLED_BIN, LABELS, startServer, type Context, type ServerName } from './start-server.ts';

type Samples = { median_ms: number; samples_ms: number[] };

export type ColdStarts = {
  /** Per server: the median and the samples, ms. */
  coldStarts: Record<string, Samples>;
  firstStartMs: number | undefined;
  helpMs: Samples | undefined;
};

/** The cold starts of a full run (nothing with `--cold-starts 0` or `--stages`); a server that failed is filed. */
export async function coldStartsPhase(
  full: boolean,
  settings: Settings,
  ctx: Context,
  servers: ReadonlyArray<ServerName>,
  failures: string[],
): Promise<ColdStarts> {
  const coldStarts: Record<string, Samples> = {};
  let firstStartMs: number | undefined;
  let helpMs: Samples | undefined;
  if (full && settings.coldStarts > 0) {
    const installed = existsSync(join(ROOT, INSTALLED_BIN));
    if (!installed) failures.push(`cold start of the installed mock: ${INSTALLED_BIN} is missing (npm run build writes it)`);
    const measured = COLD_STARTS.filter((s) => (s === INSTALLED ? installed : servers.includes(s)));
    const samples = new Map<ServerName, number[]>(measured.map((name) => [name, []]));
    const failed = new Set<ServerName>();
    for (let i = 0; i < settings.coldStarts; i++) {
      for (const name of measured) {
        if (failed.has(name)) continue;
        try {
          const server = await startServer(name, ctx);
          samples.get(name)?.push(Number(server.readyMs.toFixed(1)));
          await stop(server.proc);
        } catch (error) {
          failed.add(name);
          failures.push(`cold start of ${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
    for (const [name, list] of samples) {
      coldStarts[name] = { median_ms: Number(median(list).toFixed(1)), samples_ms: list };
      say(`cold start ${LABELS[name].padEnd(20)} median ${fixed(median(list), 0).padStart(5)} ms  (${list.map((s) => s.toFixed(0)).join(', ')})`);
    }
    // `service-external-api mock --help` as installed: spawn → exit.
    if (installed) {
      const list: number[] = [];
      for (let i = 0; i < Math.max(settings.coldStarts, 5); i++) {
        const since = performance.now();
        execFileSync(process.execPath, [INSTALLED_BIN, 'mock', '--help'], { cwd: ROOT, stdio: 'ignore' });
        list.push(Number((performance.now() - since).toFixed(1)));
      }
      helpMs = { median_ms: Number(median(list).toFixed(1)), samples_ms: list };
      say(`installed mock --help: median ${fixed(helpMs.median_ms, 0)} ms  (${list.map((s) => s.toFixed(0)).join(', ')})`);
    }
    // The starts above find Node's compile cache as earlier starts left it (entry.cjs enables it), as a developer's
    // second start does; a brand-new checkout's very first start has an empty one.
    if (servers.includes('mock')) {
      const cache = mkdtempSync(join(tmpdir(), 'bench-compile-cache-'));
      try {
        const server = await startServer('mock', ctx, undefined, undefined, { NODE_COMPILE_CACHE: cache });
        firstStartMs = Number(server.readyMs.toFixed(1));
        await stop(server.proc);
        say(`first start of ${LABELS['mock']}, empty compile cache: ${fixed(firstStartMs, 0)} ms`);
      } catch (error) {
        failures.push(`first start of our mock: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    }
  }
  return { coldStarts, firstStartMs, helpMs };
}
