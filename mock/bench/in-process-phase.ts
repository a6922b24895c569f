// In-process start: createMockApp() and createMockHandlers() with their first 200, each in a fresh process, before
// the load (the machine as quiet as the bench leaves it).
import { fixed } from './format.ts';
import { runStartup } from './measuring-children.ts';
import { say } from './say.ts';
import type { Settings } from './settings.ts';
import type { StartupReport } from './startup.ts';

export type InProcessStarts = { app: StartupReport; msw: StartupReport };

/** Both factories' start-up reports (null when skipped, or when one failed: the failure is filed). */
export async function inProcessPhase(full: boolean, settings: Settings, fixturesText: string, failures: string[]): Promise<InProcessStarts | null> {
  const inProcess: InProcessStarts | null = await (async () => {
    if (!full || settings.inProcessStarts === 0) return null;
    try {
      return { app: await runStartup('app', fixturesText, settings.inProcessStarts), msw: await runStartup('msw', fixturesText, settings.inProcessStarts) };
    } catch (error) {
      failures.push(`in-process start: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  })();
  if (inProcess) {
    for (const report of [inProcess.app, inProcess.msw]) {
      say(
        `in-process start ${report.factory === 'app' ? 'createMockApp()     ' : 'createMockHandlers()'} + first 200: first ${fixed(report.first_ms, 1)} ms, then median ${fixed(report.later_median_ms, 1)} ms (import ${fixed(report.import_ms, 0)} ms)`,
      );
    }
  }
  return inProcess;
}
