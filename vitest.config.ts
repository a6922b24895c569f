import { defineConfig } from 'vitest/config';

/**
 * The clock guard (issue 32): the tests that touch dates run again with the system time faked to each weekday, two
 * of them a second before midnight UTC so that the day turns while they run. A test that reads the wall clock where it
 * should give the code a fixed clock fails here on any day of the week, not only in CI on the day it bites.
 */
const CLOCKS = [
  '2026-11-23T00:00:00Z', // Monday
  '2026-11-24T00:00:00Z', // Tuesday
  '2026-11-25T23:59:59Z', // Wednesday, turning Thursday
  '2026-11-26T00:00:00Z', // Thursday
  '2026-11-27T00:00:00Z', // Friday
  '2026-11-28T23:59:59Z', // Saturday, turning Sunday
  '2026-11-29T00:00:00Z', // Sunday
];
/** The test files whose assertions involve dates: check-ins, closed_at, updated_at, outdated records, Date headers. */
const DATED = [
  'mock/test/state.test.ts',
  'mock/test/units.test.ts',
  'mock/test/reliability.test.ts',
  'mock/test/controls.test.ts',
  'mock/test/examples.test.ts',
  'mock/test/defects.test.ts',
  'mock/test/selfcheck.test.ts',
  'mock/test/redis.test.ts',
  'contract-tests/selftest/answer.test.ts',
  'contract-tests/selftest/conformance.test.ts',
  'contract-tests/selftest/mock.test.ts',
  'spec/test/examples.test.ts',
];
const FAKE_CLOCK = new URL('./spec/test/clock/fake-clock.mjs', import.meta.url).href;

export default defineConfig({
  test: {
    reporters: ['default', './spec/test/summary-reporter.ts'],
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
          typecheck: { enabled: true, include: ['**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      ...CLOCKS.map((clock) => ({
        extends: true as const,
        test: {
          name: `clock ${new Date(clock).toUTCString().slice(0, 3)} ${clock.slice(11, 19)}`,
          include: DATED,
          setupFiles: ['./spec/test/clock/setup.ts'],
          env: { TEST_FAKE_CLOCK: clock, NODE_OPTIONS: [process.env['NODE_OPTIONS'], `--import=${FAKE_CLOCK}`].filter(Boolean).join(' ') },
        },
      })),
    ],
  },
});
