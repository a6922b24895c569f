// The contract suite through the MSW adapter, in-process: `npm run contract` runs with msw/node preloaded (in its
// main process and in vitest's worker threads), so every request of the suite is answered by createMockHandlers
// without a server or a port, on every msw major the peer range admits. It must pass whole, as it does against
// `npm start`.
import { describe, expect, it } from 'vitest';
import { runContract, summaryOf } from '../../contract-tests/selftest/support.ts';
import { MSW_PACKAGES } from './msw-majors.ts';

const PRELOAD = new URL('./msw-preload.ts', import.meta.url).pathname;
// A loopback address no server listens on: were a request not intercepted, it would fail at once, not reach anything.
const BASE = 'http://127.0.0.1:9';

describe.each(MSW_PACKAGES)('npm run contract through the MSW handlers (%s/node, no port)', (name) => {
  it('passes every check: exit 0, no failures, no skips', { timeout: 120_000 }, async () => {
    const run = await runContract({ CONTRACT_BASE_URL: BASE, MSW_BASE_URL: BASE, MSW_PACKAGE: name, NODE_OPTIONS: `--import=${PRELOAD}` });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const summary = summaryOf(run.stdout);
    expect(summary?.failed, run.stdout).toBe(0);
    expect(summary?.skipped).toBe(0);
    expect(summary?.passed).toBeGreaterThan(100);
    expect(run.stdout).toContain("(this package's mock");
  });
});
