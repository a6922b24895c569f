import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['spec/test/**/*.test.ts', 'mock/test/**/*.test.ts', 'contract-tests/selftest/**/*.test.ts', 'docs-site/test/**/*.test.ts'],
    typecheck: {
      enabled: true,
      include: ['**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    reporters: ['default', './spec/test/summary-reporter.ts'],
    // Room for a busy 2-core machine (CI shares it): time limits catch hangs here, never speed (npm run bench does).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 10_000 } },
  },
});
