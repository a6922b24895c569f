// Prints one closing line, `tests: N passed, N failed, N skipped`, that CI reads whatever the runner's own format. Just
// above it, when something failed, the failing test files and their first failing tests, so a failure (the version
// gate's, say) is named at the end of the log rather than thousands of lines up.
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** How many failing tests are named per file, and how many characters of a name. */
const NAMED = 3;
const WIDTH = 160;

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const failing: Array<{ file: string; lines: string[] }> = [];
    for (const module of testModules) {
      const failedNames: string[] = [];
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') failedNames.push(test.fullName);
        else counts.skipped++;
      }
      // A file that failed outside its tests (an import, a beforeAll) counts once, even when its tests were skipped.
      const outside = module.state() === 'failed' && failedNames.length === 0;
      counts.failed += outside ? 1 : failedNames.length;
      if (outside || failedNames.length > 0) {
        // A clock project's name carries its fake instant and the seed that replays it (vitest.config.ts).
        const project = module.project.name;
        const file = `${relative(process.cwd(), module.moduleId)}${project && project !== 'suite' ? ` [${project}]` : ''}`;
        const named = failedNames.slice(0, NAMED).map((name) => `    × ${name.length > WIDTH ? `${name.slice(0, WIDTH - 1)}…` : name}`);
        const more = failedNames.length > NAMED ? [`    … and ${failedNames.length - NAMED} more`] : [];
        failing.push({ file, lines: [`  ${file} (${outside ? 'failed outside its tests' : `${failedNames.length} failed`})`, ...named, ...more] });
      }
    }
    failing.sort((a, b) => a.file.localeCompare(b.file));
    const listed = failing.flatMap((f) => f.lines).join('\n');
    const summary = failing.length > 0 ? `\nfailing test files (${failing.length}):\n${listed}\n` : '';
    process.stdout.write(`${summary}\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
