// Fault injection: a proxy in front of the mock breaks production's rules (faults.ts), and the suite, run as QA runs
// it, must fail (exit 1) naming each violation. The six faults of the brief run one at a time against the whole
// suite; more kinds run in groups against the checks that concern them (each fault touches different requests or
// fields, and each must still be named). A control shows what must NOT fail: an additive response field is a warning
// (response objects stay open: RULES.md#decision-1); a success without a Content-Type is a failure (only production's error answers come without one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { cases, compose, type Tokens } from './faults.ts';
import { runContract, startFaultProxy, startMock, type Running } from './support.ts';

let mock: Running;
let tokens: Tokens = {};
beforeAll(async () => {
  // The mock's own response self-check is tested elsewhere; here it would only slow every run down.
  mock = await startMock({ selfCheck: 'off' });
  const fixtures: unknown = await (await fetch(`${mock.url}/__mock/fixtures`)).json();
  const found = isObject(fixtures) && isObject(fixtures['tokens']) ? fixtures['tokens'] : {};
  tokens = Object.fromEntries(Object.entries(found).filter((e): e is [string, string] => typeof e[1] === 'string'));
});
afterAll(() => mock.close());

describe.concurrent('the suite catches injected faults', () => {
  for (const c of cases) {
    it(`${c.exit === 1 ? 'fails on' : 'passes with'} ${c.name}`, { timeout: 120_000 }, async () => {
      // Each case runs in its own mock session (the suite picks one per run), behind its own proxy.
      const proxy = await startFaultProxy(mock.url, compose(c.faults.map((f) => f.fault(tokens))));
      try {
        const run = await runContract({ CONTRACT_BASE_URL: proxy.url, CONTRACT_NUM_RUNS: '3', ...c.env }, 100_000, c.files ?? []);
        const output = `${run.stdout}\n${run.stderr}`;
        expect(run.code, output).toBe(c.exit);
        for (const f of c.faults) for (const pattern of f.expect) expect(output, `${f.name}: ${pattern} in:\n${output}`).toMatch(pattern);
      } finally {
        await proxy.close();
      }
    });
  }
});
