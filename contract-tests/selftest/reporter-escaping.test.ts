// The contract reporter and the suite's curl lines print what came from outside escaped: a target's
// id or field name with LF, CR, ESC or a C1 control, a test's message with them, a request body with them, never
// start a line of their own nor an ANSI sequence in a CI log; the curl line still sends the same bytes when run.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { TestCase, TestModule } from 'vitest/node';
import { formatViolation, violation } from '../../spec/lib/violations.ts';
import ContractReporter from '../harness/reporter.ts';
import { curlLine } from '../io/client.ts';
import { excerpt } from '../model/contract-failure.ts';

const FORGED = '\n✗ FAIL fake\r\u001b[31m\u009b2J';
const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

/** One failed contract test, as vitest hands it to a reporter (only what ContractReporter reads). */
function failedModule(message: string, request: string): TestModule {
  const operation = { type: 'suite', name: 'closeGoal' };
  const check = { type: 'suite', name: 'state', parent: operation };
  const module = { type: 'module', moduleId: 'closeGoal.contract.test.ts', errors: () => [], children: { allTests: () => [test] } };
  Object.assign(operation, { parent: module });
  const found = violation(['response', 'body', 'goal', 'id'], 'state.record', `the response is about goal goal${FORGED}`);
  const test = {
    name: 'a close answers the goal it closed',
    fullName: 'closeGoal > state > a close answers the goal it closed',
    parent: check,
    result: () => ({ state: 'failed', errors: [{ message }] }),
    meta: () => ({
      contractFailure: { request, violations: [found] },
      contractWarnings: [violation(['response', 'body', 'goal', `field${FORGED}`], 'field.unknown', `field ${FORGED} is not in the spec`, 'warning')],
    }),
  } satisfies Partial<Record<keyof TestCase, unknown>>;
  // A stand-in with only the members the reporter reads, not vitest's whole class.
  return module as unknown as TestModule;
}

describe('the contract reporter', () => {
  it("prints a target's strings escaped: no forged line, no control character", () => {
    const request = curlLine(
      'http://127.0.0.1:1',
      { method: 'POST', path: '/api/external/v1/goals/close', headers: { 'content-type': 'application/json' }, body: `{"goal_id":"x${FORGED}"}` },
      new Map(),
    );
    const message = [
      'a close answers the goal it closed',
      `  request:  ${request}`,
      // As the harness shows an answer: one line (excerpt), the rest escaped where printed.
      `  response: 200 application/json, 10 bytes: ${excerpt(`{"goal":{"id":"goal${FORGED}"}}`)}`,
      `  ${formatViolation(violation(['response', 'body', 'goal', 'id'], 'state.record', `the response is about goal goal${FORGED}`))}`,
    ].join('\n');
    let out = '';
    new ContractReporter((text) => {
      out += text;
    }, undefined).onTestRunEnd([failedModule(message, request)], []);
    const lines = out.split('\n');
    expect(lines.filter((line) => /^\s*✗ FAIL fake/.test(line))).toEqual([]);
    expect(lines.filter((line) => UNPRINTABLE.test(line))).toEqual([]);
    expect(lines).toContain('  ✗ error   response.body.goal.id  the response is about goal goal\\u000a✗ FAIL fake\\u000d\\u001b[31m\\u009b2J  [state.record]');
    expect(lines).toContain(
      "  request:  curl -sS -i -X POST 'http://127.0.0.1:1/api/external/v1/goals/close' -H 'content-type: application/json' -H 'Accept:' --data-binary $'{\"goal_id\":\"x\\n✗ FAIL fake\\r\\x1b[31m\\u009b2J\"}'",
    );
    expect(lines).toContain('  response: 200 application/json, 10 bytes: {"goal":{"id":"goal ✗ FAIL fake \\u001b[31m\\u009b2J"}}');
    expect(
      lines.some((line) =>
        line.startsWith('  ✗ state.record  response.body.goal.id  in 1 answer (closeGoal): the response is about goal goal\\u000a✗ FAIL fake'),
      ),
    ).toBe(true);
    expect(lines.some((line) => line.startsWith('  1× response.body.goal["field\\n✗ FAIL fake\\r\\u001b[31m\\u009b2J"]  field \\u000a✗ FAIL fake'))).toBe(true);
  });
});

describe("the suite's curl lines", () => {
  it('quote a header, a path or a body with control characters ANSI-C style, and replay the same bytes', () => {
    const body = `{"a":"x${FORGED}\u2028 it's"}\n`;
    const line = curlLine(
      'http://127.0.0.1:1',
      { method: 'POST', path: '/api/x\u001b', headers: { 'x-a': 'v\u001bw', authorization: 'Bearer SECRET123\u001b' }, body },
      new Map([['SECRET123', 'TOKEN']]),
    );
    expect(line).toBe(
      `curl -sS -i -X POST $'http://127.0.0.1:1/api/x\\x1b' -H $'x-a: v\\x1bw' -H "authorization: Bearer $TOKEN"$'\\x1b'"" -H 'Content-Type:' -H 'Accept:' --data-binary $'{"a":"x\\n✗ FAIL fake\\r\\x1b[31m\\u009b2J\\u2028 it\\'s"}\\n'`,
    );
    // bash reads each argument back as it was sent (the token from its variable).
    const args = execFileSync('bash', ['-c', `TOKEN=SECRET123; for a in ${line.replace(/^curl /, '')}; do printf '%s\\0' "$a"; done`])
      .toString('utf8')
      .split('\0');
    expect(args).toEqual([
      '-sS',
      '-i',
      '-X',
      'POST',
      'http://127.0.0.1:1/api/x\u001b',
      '-H',
      'x-a: v\u001bw',
      '-H',
      'authorization: Bearer SECRET123\u001b',
      '-H',
      'Content-Type:',
      '-H',
      'Accept:',
      '--data-binary',
      body,
      '',
    ]);
  });
});
