// The wall-clock rule (README.md, `npm test`): the mock, the suite and their tests take the day from a clock they are
// given, so that no test depends on the day it runs. Every read of the wall clock as a date (wall-clock.ts) is in a
// file listed here, as many times as listed, for the reason given; anything else fails, naming the file and line.
// The clock project of vitest.config.ts then runs the tests that touch dates a second before midnight on a seeded day,
// to catch what a syntax rule cannot see (a default clock a test forgot to replace, a library's clock).
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../run.ts';
import { wallClockReads } from './wall-clock.ts';

const INJECTED = 'the default of an injected clock (`options.now`): what runs when nobody gives one; tests give one';
const DEADLINE = 'a start-up deadline or a duration in real time (the fake clock runs at real speed), never a date';
const STAMP = 'a timestamp a person reads (a report, a log record): the moment it was written, by definition';

/** The files that may read the wall clock, how many times, and why. */
const ALLOWED: Readonly<Record<string, { reads: number; why: string }>> = {
  'mock/src/core/core.ts': { reads: 1, why: INJECTED },
  'mock/src/server/app.ts': { reads: 1, why: INJECTED },
  'mock/src/server/serve.ts': { reads: 1, why: INJECTED },
  'mock/src/storage/redisSessions.ts': { reads: 1, why: INJECTED },
  'contract-tests/model/state-rules.ts': { reads: 1, why: "a live target's day when its answer has no Date header (the suite's stated fallback)" },
  'contract-tests/model/agreement.ts': { reads: 1, why: "a live target's day when its answer has no Date header (the suite's stated fallback)" },
  'contract-tests/harness/properties.ts': { reads: 1, why: 'entropy for a property run without a seed (the seed is printed, and CONTRACT_SEED replays it)' },
  'contract-tests/io/target.ts': { reads: 1, why: 'a session name unique to this run, not a date' },
  'contract-tests/proxy/file-exchange.ts': { reads: 1, why: STAMP },
  'contract-tests/proxy/log.ts': { reads: 1, why: STAMP },
  'contract-tests/proxy/main.ts': { reads: 1, why: STAMP },
  'mock/bench/run.ts': { reads: 2, why: STAMP },
  'mock/bench/cold-start-only.ts': { reads: 1, why: STAMP },
  'spec/compat/compat.ts': { reads: 1, why: STAMP },
  'spec/tools/release.ts': { reads: 1, why: "the release's date in CHANGELOG.md: the day it is made" },
  'spec/diff/behaviour.ts': { reads: 2, why: DEADLINE },
  'contract-tests/selftest/support.ts': { reads: 2, why: DEADLINE },
  'docs-site/test/tryit.browser.test.ts': { reads: 2, why: DEADLINE },
  'mock/test/deployment-recipes.test.ts': { reads: 2, why: DEADLINE },
  'mock/test/fuzz/proxyAttack.ts': { reads: 2, why: DEADLINE },
  'mock/test/fuzz/soak.ts': { reads: 8, why: DEADLINE },
  'mock/test/redis.processes.test.ts': { reads: 4, why: DEADLINE },
  'mock/test/redisServer.ts': { reads: 2, why: DEADLINE },
  'mock/test/security.test.ts': { reads: 2, why: DEADLINE },
  'mock/test/service.test.ts': { reads: 4, why: DEADLINE },
  'spec/test/package.test.ts': { reads: 4, why: DEADLINE },
};

/** Folders that are not the repository's own source: installed, built, generated or measured. */
const SKIPPED = new Set(['node_modules', 'dist', 'generated', '.git', 'results']);

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = dir === '' ? entry.name : posix.join(dir, entry.name);
    if (entry.isDirectory()) sources(path, out);
    else if (/\.(ts|mts|cts|js|mjs|cjs|tsx)$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe('the wall-clock rule: the day comes from a clock the code is given', () => {
  const files = sources('');
  const reads = new Map(files.map((file) => [file, wallClockReads(file, readFileSync(join(ROOT, file), 'utf8'))] as const));

  it('reads the wall clock only where ALLOWED says, as often as it says', () => {
    const unexpected = [...reads].flatMap(([file, found]) => {
      const allowed = ALLOWED[file]?.reads ?? 0;
      return found.length === allowed
        ? []
        : [`${file}: ${found.length} read(s), ${allowed} allowed: ${found.map((r) => `line ${r.line} ${r.text}`).join(', ')}`];
    });
    expect(unexpected, 'give the code a clock (`now: () => Date`) instead, or list the file with a reason').toEqual([]);
    expect(Object.keys(ALLOWED).filter((file) => !reads.has(file))).toEqual([]);
  });

  it('scans the whole repository, not a part of it', () => {
    expect(files.length).toBeGreaterThan(250);
    for (const folder of ['spec/lib/', 'spec/tools/', 'spec/test/', 'mock/src/', 'mock/test/', 'mock/bench/', 'contract-tests/', 'docs-site/', 'cli/'])
      expect(
        files.some((file) => file.startsWith(folder)),
        folder,
      ).toBe(true);
    expect(files).toContain('vitest.config.ts');
    expect(files.some((file) => file.includes('node_modules/') || file.startsWith('generated/') || file.startsWith('dist/'))).toBe(false);
  });

  it('finds each form of a wall-clock read, and nothing else', () => {
    const find = (text: string): string[] => wallClockReads('x.ts', text).map((r) => `${r.line} ${r.text}`);
    expect(find('const a = Date.now();\nconst b = new Date();\nconst c = new Date;\nconst d = Date();')).toEqual([
      '1 Date.now',
      '2 new Date()',
      '3 new Date()',
      '4 Date()',
    ]);
    expect(find('const now = Date.now;\nglobalThis.Date.now();\nnew window.Date();')).toEqual(['1 Date.now', '2 Date.now', '3 new Date()']);
    expect(find('new Date(performance.timeOrigin + performance.now());')).toEqual(['1 performance.now() as a date', '1 performance.timeOrigin']);
    expect(find('new Date(Math.round(performance.now()));\nconst t = Temporal.Now.instant();')).toEqual(['1 performance.now() as a date', '2 Temporal.Now']);
    // Fixed instants, parsing, arithmetic, timers and monotonic clocks are not reads; nor are comments and strings.
    expect(
      find(
        [
          "new Date('2025-06-13T15:42:07Z'); new Date(0); new Date(at.getTime()); Date.UTC(2026, 0, 1); Date.parse(text);",
          'const started = performance.now(); const elapsed = performance.now() - started; process.hrtime.bigint();',
          "// Date.now() and new Date() in a comment\nconst s = 'Date.now() new Date()';\nconst clock = { now: () => at };\nclock.now();",
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});
