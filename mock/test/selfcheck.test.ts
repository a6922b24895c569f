// The response self-check's modes (reply.ts `selfCheck`, core option `selfCheck`, CLI `--self-check`): what each
// checks, that a broken answer becomes the mock's 500 naming the violation, and what `sample` still guarantees.
import { describe, expect, it } from 'vitest';
import { createMockCore, type MockCore } from '../src/core/core.ts';
import { SAMPLE_EVERY, SAMPLE_FIRST, selfCheck, type Reply, type ReplyChecker } from '../src/answers/reply.ts';
import { defaultSeed } from '../src/domain/seed.ts';
import type { Seed } from '../src/domain/state.ts';

const OK = (status = 200): Reply => ({ code: 'OK', status: 200, body: { status }, framing: 'json' });

function counting(): { check: ReplyChecker; calls: () => number } {
  let calls = 0;
  return {
    check: () => {
      calls++;
      return ['wrong'];
    },
    calls: () => calls,
  };
}

describe('selfCheck(mode)', () => {
  it('always: every reply; off: none', () => {
    const always = counting();
    const check = selfCheck('always', always.check);
    for (let i = 0; i < 250; i++) expect(check(OK(), 'resumeProject')).toEqual(['wrong']);
    expect(always.calls()).toBe(250);
    const off = counting();
    for (let i = 0; i < 250; i++) expect(selfCheck('off', off.check)(OK(), 'resumeProject')).toEqual([]);
    expect(off.calls()).toBe(0);
  });

  it(`sample: the first ${SAMPLE_FIRST} of each operation, status and reply code, then one in ${SAMPLE_EVERY}`, () => {
    const sampled = counting();
    const check = selfCheck('sample', sampled.check);
    const checked = (reply: Reply, operationId: string, n: number): number[] => {
      const at: number[] = [];
      for (let i = 1; i <= n; i++) {
        const result = check(reply, operationId);
        if (!Array.isArray(result)) throw new Error('the counting checker answers at once');
        if (result.length > 0) at.push(i);
      }
      return at;
    };
    const first = Array.from({ length: SAMPLE_FIRST }, (_, i) => i + 1);
    expect(checked(OK(), 'resumeProject', 3 * SAMPLE_EVERY)).toEqual([...first, SAMPLE_EVERY, 2 * SAMPLE_EVERY, 3 * SAMPLE_EVERY]);
    // Another operation, another status or another error code of the same status starts its own count.
    expect(checked(OK(), 'closeGoal', SAMPLE_FIRST + 1)).toEqual(first);
    const notFound: Reply = { code: 'NOT_FOUND', status: 404, body: { error: 'Not found' }, framing: 'json' };
    const forbidden: Reply = { code: 'FORBIDDEN', status: 403, body: { error: 'Forbidden' }, framing: 'json' };
    const readOnly: Reply = { code: 'READ_ONLY_TOKEN', status: 403, body: 'Forbidden', framing: 'none' };
    expect(checked(notFound, 'resumeProject', SAMPLE_FIRST + 1)).toEqual(first);
    expect(checked(forbidden, 'resumeProject', SAMPLE_FIRST + 1)).toEqual(first);
    expect(checked(readOnly, 'resumeProject', SAMPLE_FIRST + 1)).toEqual(first);
    expect(sampled.calls()).toBe(SAMPLE_FIRST + 3 + 4 * SAMPLE_FIRST);
  });

  it('refuses a mode it does not know (a JavaScript caller, or a typo behind a cast), rather than guessing one', () => {
    expect(() => createMockCore({ selfCheck: 'sometimes' as never })).toThrow(new TypeError('selfCheck must be always, sample, off, got "sometimes"'));
  });

  it('sample: a reply that reached no operation is not checked (the mock has nothing to check it against)', () => {
    const sampled = counting();
    expect(selfCheck('sample', sampled.check)(OK(), undefined)).toEqual([]);
    expect(sampled.calls()).toBe(0);
  });
});

/** A seed whose paused project answers off-spec: `milestones` is a string, `inserted_at` a date without a time. */
function brokenSeed(): { seed: Seed; projectUuid: string } {
  const seed = defaultSeed();
  const projectUuid = seed.fixtures.projects['paused'] ?? '';
  const row = seed.state.projects.find((p) => p.uuid === projectUuid);
  if (!row) throw new Error('the seed has no paused project');
  // A new template object: the seed's templates are shared with every other seed built in this process.
  row.template = { ...row.template, milestones: 'none' as never };
  row.inserted_at = '2025-06-13';
  return { seed, projectUuid };
}

async function resume(core: MockCore, seed: Seed): Promise<{ status: number; body: string }> {
  const fixtures = JSON.parse((await core.answer({ method: 'GET', target: '/__mock/fixtures', header: () => undefined, body: new Uint8Array() })).body) as {
    tokens: Record<string, string>;
    projects: Record<string, string>;
  };
  const headers: Record<string, string> = { authorization: `Bearer ${seed.fixtures.tokens['full_access'] ?? ''}`, 'content-type': 'application/json' };
  const body = new TextEncoder().encode(JSON.stringify({ project_id: fixtures.projects['paused'], message: JSON.stringify({ type: 'doc', content: [] }) }));
  const framed = await core.answer({ method: 'POST', target: '/api/external/v1/projects/resume', header: (name) => headers[name], body });
  return { status: framed.status, body: framed.body };
}

describe('the self-check in the core', () => {
  it("always (the default): an off-spec answer is the mock's 500 naming each violation, date-time formats included", async () => {
    const { seed } = brokenSeed();
    const answer = await resume(createMockCore({ seed }), seed);
    expect(answer.status).toBe(500);
    const body = JSON.parse(answer.body) as { error: string; message: string };
    expect(body).toEqual({
      error: 'Mock response invalid',
      message:
        'The mock\'s response breaks the spec: resumeProject 200 application/json: /project/inserted_at must be a date-time, got "2025-06-13"; resumeProject 200 application/json: /project/milestones must be array or null, got string "none"',
    });
  });

  it('sample: the first answer of a kind is checked, so a fault every answer has is caught at once', async () => {
    const { seed } = brokenSeed();
    const core = createMockCore({ seed, selfCheck: 'sample' });
    for (let i = 0; i < 3; i++) expect((await resume(core, seed)).status).toBe(500);
  });

  it('off (and the older validateResponses: false): the answer goes out as built', async () => {
    for (const options of [{ selfCheck: 'off' as const }, { validateResponses: false }]) {
      const { seed } = brokenSeed();
      const answer = await resume(createMockCore({ seed, ...options }), seed);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ project: { milestones: 'none', inserted_at: '2025-06-13' } });
    }
  });

  it('always: a seed that answers on-spec passes untouched', async () => {
    const seed = defaultSeed();
    const answer = await resume(createMockCore({ seed }), seed);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ project: { state: 'active' } });
  });
});
