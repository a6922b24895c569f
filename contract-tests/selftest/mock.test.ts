// The contract suite passes against this package's mock, run as QA runs it (`npm run contract`): every check passes,
// the fixtures come from GET /__mock/fixtures, the summary and the JUnit report say so.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationModels } from '../model/profiles.ts';
import { runContract, startMock, summaryOf, type Running } from './support.ts';

let mock: Running;
let bare: Running;
beforeAll(async () => {
  mock = await startMock();
  bare = await startMock({ control: false });
});
afterAll(async () => {
  await mock.close();
  await bare.close();
});

describe('npm run contract against the mock', () => {
  it('passes every check with nothing but CONTRACT_BASE_URL: exit 0, no failures, no skips, a JUnit report', { timeout: 90_000 }, async () => {
    const report = join(mkdtempSync(join(tmpdir(), 'contract-')), 'reports', 'junit.xml');
    const run = await runContract({ CONTRACT_BASE_URL: mock.url, CONTRACT_REPORT: report });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const summary = summaryOf(run.stdout);
    expect(summary?.failed).toBe(0);
    expect(summary?.skipped).toBe(0);
    expect(summary?.passed).toBeGreaterThan(100);
    // Production's own documented behaviour (error bodies without a Content-Type) is one note, not a warning per answer.
    expect(summary?.warnings).toBe(0);
    expect(run.stdout).toMatch(/^note: \d+ error answers came without a Content-Type, as production sends them .*: expected, not counted as warnings$/m);
    expect(run.stdout).toContain("(this package's mock");
    expect(run.stdout).toMatch(/read from GET \/__mock\/fixtures: CONTRACT_TOKEN, CONTRACT_READ_ONLY_TOKEN/);
    // The table has a row per operation × check, all passing.
    for (const op of operationModels()) {
      for (const check of ['auth', 'order', 'validation', 'ids', 'permissions', 'transport', 'state', 'responses', 'properties']) {
        expect(run.stdout).toMatch(new RegExp(`^${op.operationId} +${check} +[1-9]\\d* +0 +0$`, 'm'));
      }
    }
    const xml = readFileSync(report, 'utf8');
    expect(xml).toMatch(/<testsuites [^>]*failures="0"/);
    expect((xml.match(/<testcase /g) ?? []).length).toBe(summary?.passed);
    expect(run.stdout).toMatch(/^property tests ran with seed -?\d+: replay them with CONTRACT_SEED=-?\d+/m);
    // The coverage lines: every documented status but 413 (a body over production's 256 MB) is seen, the 405 from
    // another method at the operation's path; every request field is sent.
    for (const op of operationModels()) {
      const documented = op.responses.size;
      expect(run.stdout).toMatch(
        new RegExp(`^ {2}${op.operationId}: \\d+ exchanges; statuses ${documented - 1}/${documented} \\(never 413\\); .*request fields (\\d+)/\\1;`, 'm'),
      );
    }
  });

  it('without the mock controls, needs the variables: tests that need one are skipped naming it, the rest pass (exit 0)', { timeout: 90_000 }, async () => {
    const run = await runContract({ CONTRACT_BASE_URL: bare.url, CONTRACT_NUM_RUNS: '5' });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const summary = summaryOf(run.stdout);
    expect(summary?.failed).toBe(0);
    expect(summary?.passed).toBeGreaterThan(20);
    expect(run.stdout).toMatch(/^ {2}needs CONTRACT_TOKEN \(not set\): \d+ tests$/m);
    expect(run.stdout).toMatch(/^ {2}needs CONTRACT_READ_ONLY_TOKEN \(not set\): \d+ tests$/m);
    expect(run.stdout).toMatch(/^ {2}needs CONTRACT_PAUSED_PROJECT_ID \(not set\): \d+ tests?$/m);
    expect(run.stdout).not.toContain("this package's mock");
  });
});
