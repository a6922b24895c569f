import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The clock guard. The wall-clock rule (spec/test/clock/wall-clock.test.ts) keeps every file from reading the day
 * itself, outside a short list with reasons; what a syntax rule cannot see (a default clock a test did not replace, a
 * library's own clock) the clock project catches: the files below run there, and only there, with the system time
 * moved (spec/test/clock/fake-clock.mjs) to a day seeded from the commit, a second before midnight UTC, so that the day
 * and the weekday turn while they run (today's date would be one more day, no harder a test). The seed is
 * TEST_CLOCK_SEED, else the commit under test, so each commit tries another day; a failing test's project name shows
 * the instant and the seed that replays it: `TEST_CLOCK_SEED=<seed> npx vitest run --project 'clock*'`.
 */
function clockSeed(): string {
  const given = process.env['TEST_CLOCK_SEED'];
  if (given) return given;
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    return head.trim() || 'no-commit';
  } catch {
    return 'no-commit';
  }
}

const DAY_MS = 86_400_000;
/** The instant of a seed: a second before midnight UTC at the end of a day in 2026–2030 (any weekday). */
function clockOf(seed: string): string {
  const hash = createHash('sha256').update(seed).digest();
  const day = Date.UTC(2026, 0, 1) + (hash.readUInt32BE(0) % (5 * 365)) * DAY_MS;
  return new Date(day + DAY_MS - 1000).toISOString().replace('.000Z', 'Z');
}
const SEED = clockSeed();
const CLOCK = clockOf(SEED);
/**
 * The test files that run the mock or the suite's model on a clock they do not fix (a mock started without `now`, a
 * mock process, the suite's day from the mock's Date header) and assert on dates: check-ins, closed_at, updated_at,
 * outdated records, Date headers. Files that fix every clock they use are left out: the fake clock cannot reach them.
 */
const DATED = [
  'mock/test/state.test.ts',
  'mock/test/units.test.ts',
  'mock/test/reliability.test.ts',
  'mock/test/controls.test.ts',
  'mock/test/defects.test.ts',
  'mock/test/selfcheck.test.ts',
  'mock/test/redis.test.ts',
  'contract-tests/selftest/mock.test.ts',
];
/** The files that install the packed tarball as its users get it: one `npm pack` for all three (spec/test/tarball.setup.ts). */
const PACKAGED = ['spec/test/package.test.ts', 'spec/test/footprint.test.ts', 'mock/test/deployment-recipes.test.ts'];
const FAKE_CLOCK = new URL('./spec/test/clock/fake-clock.mjs', import.meta.url).href;

export default defineConfig({
  test: {
    reporters: ['default', './spec/test/summary-reporter.ts'],
    // One test file more than the machine has cores (three on a 2-core machine, where vitest's default is one): many
    // slow files wait on a process they started (npm, redocly, git, chromium, a mock), not on the CPU, and no two files
    // share a port or a file they write. On this 2-core machine, vitest took 294 s with two at a time, 265 s with three.
    maxWorkers: Math.max(3, availableParallelism() + 1),
    // Room for a busy 2-core machine (CI shares it): time limits catch hangs here, never speed (npm run bench does).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 10_000 } },
    // Projects' arrays are merged with these settings, so each project names its own files.
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['spec/test/**/*.test.ts', 'mock/test/**/*.test.ts', 'contract-tests/selftest/**/*.test.ts', 'docs-site/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...PACKAGED, ...DATED],
          typecheck: { enabled: true, include: ['**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      { extends: true, test: { name: 'package', include: PACKAGED, globalSetup: ['./spec/test/tarball.setup.ts'] } },
      {
        extends: true,
        test: {
          name: `clock ${new Date(CLOCK).toUTCString().slice(0, 3)} ${CLOCK} TEST_CLOCK_SEED=${SEED}`,
          include: DATED,
          setupFiles: ['./spec/test/clock/setup.ts'],
          env: { TEST_FAKE_CLOCK: CLOCK, NODE_OPTIONS: [process.env['NODE_OPTIONS'], `--import=${FAKE_CLOCK}`].filter(Boolean).join(' ') },
        },
      },
    ],
  },
});
