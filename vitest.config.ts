import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['spec/test/**/*.test.ts', 'mock/test/**/*.test.ts', 'contract-tests/test/**/*.test.ts', 'docs-site/test/**/*.test.ts'],
    typecheck: {
      enabled: true,
      include: ['**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    reporters: ['default', './spec/test/summary-reporter.ts'],
  },
});
