// `diff --behaviour` reports one change per rule or answer that changed, with how many cases show it: a response
// field removed changes the 200 of every case that reaches it, and that is one change, not one per case.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../diff/behaviour-runner.ts';
import { compareBehaviour } from '../diff/behaviour.ts';

const document: unknown = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8'));
const spec = typeof document === 'object' && document !== null && !Array.isArray(document) ? { ...document } : {};
const RESUME = '/api/external/v1/projects/resume';
const CLOSE = '/api/external/v1/goals/close';

const ok = (body: object) => ({ status: 200, contentType: 'application/json', text: JSON.stringify(body) });
const unauthorized = { status: 401, contentType: null, text: 'Unauthorized' };
const cases = (what: string, n: number, path: string, answer: CaseResult['answers'][number], state = 's'): CaseResult[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${what} ${i + 1}`, paths: [path], answers: [answer], state }));

describe('compareBehaviour', () => {
  it('reports a field removed from 262 answers as one WARN per operation, with the count and one case', () => {
    const base = [
      ...cases('resume', 200, RESUME, ok({ project: { id: 'p', closed_at: null } })),
      ...cases('close', 62, CLOSE, ok({ goal: { id: 'g', closed_at: null } })),
      ...cases('unauthorized', 5, CLOSE, unauthorized),
    ];
    const revision = [
      ...cases('resume', 200, RESUME, ok({ project: { id: 'p' } })),
      ...cases('close', 62, CLOSE, ok({ goal: { id: 'g' } })),
      ...cases('unauthorized', 5, CLOSE, unauthorized),
    ];
    const changes = compareBehaviour(base, revision, spec);
    expect(changes).toEqual([
      {
        id: 'behaviour-body-changed',
        level: 'WARN',
        direction: 'response',
        operation: 'resumeProject',
        operations: ['resumeProject'],
        pointer: '#/x-behaviour/behaviour-body-changed',
        message: `The 200 body changed (project.closed_at removed): a client reading the same fields may see other values: 200 cases, e.g. resume 1, request 1 (${RESUME}).`,
      },
      {
        id: 'behaviour-body-changed',
        level: 'WARN',
        direction: 'response',
        operation: 'closeGoal',
        operations: ['closeGoal'],
        pointer: '#/x-behaviour/behaviour-body-changed',
        message: `The 200 body changed (goal.closed_at removed): a client reading the same fields may see other values: 62 cases, e.g. close 1, request 1 (${CLOSE}).`,
      },
    ]);
  });

  it('keeps answers that changed differently apart: an error text, a status, a state', () => {
    const base = [
      ...cases('text', 3, CLOSE, unauthorized),
      ...cases('status', 2, RESUME, unauthorized),
      ...cases('state', 4, CLOSE, ok({ goal: {} }), 'before'),
    ];
    const revision = [
      ...cases('text', 3, CLOSE, { ...unauthorized, text: 'Not authorized' }),
      ...cases('status', 2, RESUME, { ...unauthorized, status: 403 }),
      ...cases('state', 4, CLOSE, ok({ goal: {} }), 'after'),
    ];
    const found = compareBehaviour(base, revision, spec).map((c) => [c.id, c.level, c.operation, c.message.replace(/, e\.g\. .*$/, '')]);
    expect(found).toEqual([
      ['behaviour-error-body-changed', 'ERR', 'closeGoal', 'The 401 body changed from "Unauthorized" to "Not authorized": 3 cases'],
      ['behaviour-status-changed', 'ERR', 'resumeProject', 'Answered 403, was 401: 2 cases'],
      ['behaviour-state-changed', 'WARN', 'closeGoal', 'The state it leaves differs (what a later read sees changed): 4 cases'],
    ]);
  });

  it('pairs a case whose citation or name changed with the case that checks the same', () => {
    const recited: CaseResult[] = [
      { name: 'null in a required field is 400 (#13)', checks: 'h1', paths: [RESUME], answers: [unauthorized], state: 's' },
      { name: 'an empty id counts as null (#13)', checks: 'h2', paths: [CLOSE], answers: [unauthorized], state: 's' },
    ];
    const revision: CaseResult[] = [
      // Only the citation changed (and the requests too: matched by name without its citation).
      { name: 'null in a required field is 400 (#13, decision 4)', checks: 'h1-other', paths: [RESUME], answers: [unauthorized], state: 's' },
      // Renamed, the same requests: matched by what it sends, and its changed answer is reported.
      { name: 'an empty id is taken for null', checks: 'h2', paths: [CLOSE], answers: [{ ...unauthorized, status: 403 }], state: 's' },
    ];
    expect(compareBehaviour(recited, revision, spec).map((c) => [c.id, c.operations, c.message])).toEqual([
      ['behaviour-status-changed', ['closeGoal'], `Answered 403, was 401: 1 case, e.g. an empty id is taken for null, request 1 (${CLOSE}).`],
    ]);
  });

  it('still reports a case that is new and one that is gone, once each', () => {
    const base: CaseResult[] = [{ name: 'old check (#1)', checks: 'a', paths: [RESUME], answers: [unauthorized], state: 's' }];
    const revision: CaseResult[] = [{ name: 'another check (#2)', checks: 'b', paths: [CLOSE], answers: [unauthorized], state: 's' }];
    expect(compareBehaviour(base, revision, spec).map((c) => [c.id, c.operations])).toEqual([
      ['behaviour-case-added', ['closeGoal']],
      ['behaviour-case-removed', ['resumeProject']],
    ]);
  });

  it('reports nothing when every case answers the same', () => {
    const same = cases('same', 10, RESUME, ok({ project: { id: 'p' } }));
    expect(compareBehaviour(same, structuredClone(same), spec)).toEqual([]);
  });
});
