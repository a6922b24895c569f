// The contract suite's own vitest configuration (used by run.ts, i.e. `npm run contract`). One worker, no
// isolation between files: the spec's validators are compiled once, and state tests on one server never interleave.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));
/** `ts` in the repository, `js` in the package's compiled dist/ (where this file is vitest.config.js). */
const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

export default defineConfig({
  test: {
    root,
    include: [`contract-tests/tests/**/*.contract.test.${extension}`],
    // Installed, the suite lives under node_modules, which vitest excludes by default.
    exclude: [],
    globalSetup: [`contract-tests/harness/setup.${extension}`],
    pool: 'threads',
    maxWorkers: 1,
    isolate: false,
    fileParallelism: false,
    sequence: { shuffle: false },
    testTimeout: 20_000,
    hookTimeout: 30_000,
    typecheck: { enabled: false },
    reporters: [`./contract-tests/harness/reporter.${extension}`],
  },
});
