// How a run ends, as QA reads a CI log from the bottom: the distinct violations (each code and place once, with how
// many answers had it and one curl line), then the verdict as the very last line, with and without --report (the
// JUnit reporter's own line comes before the summary). The server has two bugs, each met by many tests: the list has
// each once, where a run printed the same block again and again.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { runContract, startFaultProxy, startMock, withOutput, type Running } from './support.ts';

let mock: Running;
let proxy: Running;
let dir = '';
beforeAll(async () => {
  mock = await startMock({ selfCheck: 'off' });
  // Two bugs: every successful resume leaves out project.state, every successful close goal.closed_at.
  proxy = await startFaultProxy(mock.url, {
    response: (_req, reply) => {
      if (reply.status !== 200) return reply;
      const body: unknown = JSON.parse(reply.body);
      if (isObject(body) && isObject(body['project'])) delete body['project']['state'];
      if (isObject(body) && isObject(body['goal'])) delete body['goal']['closed_at'];
      return { ...reply, body: JSON.stringify(body) };
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'contract-closing-'));
});
afterAll(async () => {
  await proxy.close();
  await mock.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const VERDICT = /^contract: \d+ passed, [1-9]\d* failed, \d+ skipped, \d+ warnings(, \d+ errors)? — FAIL$/;
const BUGS = [
  { where: 'response.body.project.state', message: 'required field "state" is missing', operation: 'resumeProject' },
  { where: 'response.body.goal.closed_at', message: 'required field "closed_at" is missing', operation: 'closeGoal' },
];

describe.each([
  ['without --report', false],
  ['with --report FILE', true],
] as const)('a run against a server with two bugs, %s', (_label, withReport) => {
  it('ends with each distinct violation once (code, where, how many answers, one curl line), then the verdict as the last line', {
    timeout: 120_000,
  }, async () => {
    const report = join(dir, `report-${String(withReport)}.xml`);
    const run = await runContract({ CONTRACT_BASE_URL: proxy.url, CONTRACT_NUM_RUNS: '2' }, 100_000, [
      ...(withReport ? ['--report', report] : []),
      'resumeProject',
      'closeGoal',
      'state',
    ]);
    withOutput(run, () => {
      expect(run.code).toBe(1);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines.at(-1)).toMatch(VERDICT);
      const failed = Number(/(\d+) failed/.exec(lines.at(-1) ?? '')?.[1]);
      const start = lines.findIndex((line) => line.startsWith('distinct violations: '));
      expect(start).toBeGreaterThan(lines.findLastIndex((line) => line.startsWith('✗ FAIL ')));
      const listed = lines.slice(start + 1, lines.length - 2);
      expect(lines.at(-2)).toBe('');
      // Each entry is two lines: the violation, then its example request.
      const entries = listed.filter((line) => line.startsWith('  ✗ '));
      expect(entries.length * 2).toBe(listed.length);
      expect(lines[start]).toBe(
        `distinct violations: ${entries.length}, in ${failed} failed tests (code, where, how many answers had it, one request that shows it):`,
      );
      // Every code and place once (the state rules also name the missing fields, each under its own code).
      const places = entries.map((line) => /^ {2}✗ (\S+) {2}(\S+) {2}in /.exec(line)?.slice(1, 3).join(' '));
      expect(new Set(places).size).toBe(entries.length);
      // Each bug once, in as many answers as its operation has failed tests (every 200 of it has the bug; nothing
      // else is wrong), with a curl line to that operation.
      for (const bug of BUGS) {
        const answers = lines.filter((line) => line.startsWith(`✗ FAIL ${bug.operation} > `)).length;
        expect(answers).toBeGreaterThan(1);
        const at = listed.indexOf(`  ✗ schema.required  ${bug.where}  in ${answers} answers (${bug.operation}): ${bug.message}`);
        expect(at, bug.where).toBeGreaterThanOrEqual(0);
        expect(listed[at + 1]).toMatch(new RegExp(`^ {4}e\\.g\\. curl -sS -i -X POST '${proxy.url}/api/external/v1/[a-z]+/[a-z]+' `));
        expect(listed[at + 1]).toContain('$CONTRACT_TOKEN');
      }
      if (withReport) {
        expect(readFileSync(report, 'utf8')).toMatch(/<testsuites [^>]*failures="[1-9]/);
        const junit = run.stdout.indexOf(`JUNIT report written to ${report}`);
        expect(junit).toBeGreaterThanOrEqual(0);
        expect(junit).toBeLessThan(run.stdout.indexOf('━━ contract suite ━━'));
      }
    });
  });
});
