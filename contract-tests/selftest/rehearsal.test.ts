// Rehearsed answers: the validation proxy in front of this package's mock excuses what the mock
// was asked to rehearse (a queued scenario's 500 or gateway 503, a Prefer header's 502), marked X-Mock-Rehearsal, and
// lists it as rehearsed in its summary; the same mark from a target that is not the mock (it does not serve the
// mock's fixtures), or a `prefer` mark on a request that asked for nothing, excuses nothing and is a violation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateway } from '../../spec/lib/messages.ts';
import { REHEARSAL_HEADER } from '../../spec/lib/rehearsal.ts';
import { createClient, type ApiRequest, type ApiResponse } from '../io/client.ts';
import { baseBody } from '../harness/requests.ts';
import { judgeRehearsal } from '../model/rehearsal.ts';
import { operationModels } from '../model/profiles.ts';
import { parseFixtures, TokenKnowledge } from '../proxy/knowledge.ts';
import { createValidationProxy, VIOLATIONS_HEADER, type ValidationProxy } from '../proxy/server.ts';
import { runContract, startFaultProxy, startMock, type Running } from './support.ts';

let mock: Running;
let token = '';
let goal = '';

beforeAll(async () => {
  mock = await startMock({});
  const text = await (await fetch(`${mock.url}/__mock/fixtures`)).text();
  const parsed = parseFixtures(text);
  if (!parsed.ok) throw new Error(parsed.error);
  token = parsed.fixtures.tokens.full_access ?? '';
  goal = parsed.fixtures.records.goals['open'] ?? '';
});
afterAll(() => mock.close());

const close = operationModels().find((o) => o.operationId === 'closeGoal');

/** A valid close of the open goal by the full-access person, in `session`. */
function closeRequest(session: string, prefer?: string): ApiRequest {
  if (!close) throw new Error('the spec has no closeGoal');
  return {
    method: 'POST',
    path: close.path,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-mock-session': session, ...(prefer ? { prefer } : {}) },
    body: JSON.stringify(baseBody(close, goal)),
  };
}

/** Queues a scenario at the mock itself (not through the proxy). */
async function queue(session: string, prefer: string): Promise<string> {
  const response = await fetch(`${mock.url}/__mock/scenarios`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-mock-session': session },
    body: JSON.stringify({ operation: 'closeGoal', prefer }),
  });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  return id;
}

async function proxyTo(target: string): Promise<{ proxy: ValidationProxy; send: (request: ApiRequest) => Promise<ApiResponse> }> {
  // No --tokens file: the proxy learns that the target is the mock on its own, from the mock's fixtures.
  const proxy = createValidationProxy({ target, knowledge: new TokenKnowledge(), capacity: 100, timeoutMs: 10_000 });
  const url = await proxy.listen(0);
  const client = createClient({ baseUrl: url, timeoutMs: 10_000 });
  return { proxy, send: (request) => client.send(request) };
}

describe('the validation proxy in front of the mock', () => {
  it("excuses a queued scenario's 500 and 503 and a Prefer header's 502 (no violation), lists them as rehearsed, and checks the real answer after them in full", async () => {
    const { proxy, send } = await proxyTo(mock.url);
    try {
      const session = 'proxy-rehearsal';
      const first = await queue(session, 'code=500');
      const second = await queue(session, 'code=503');
      const answers = [await send(closeRequest(session)), await send(closeRequest(session)), await send(closeRequest(session, 'code=502'))];
      expect(answers.map((a) => [a.status, a.headers[REHEARSAL_HEADER]])).toEqual([
        [500, `scenario ${first}`],
        [503, `scenario ${second}`],
        [502, 'prefer'],
      ]);
      expect(answers[1]?.text).toBe(gateway().get(503));
      for (const answer of answers) expect(answer.headers[VIOLATIONS_HEADER.toLowerCase()]).toBeUndefined();
      const real = await send(closeRequest(session));
      expect([real.status, real.headers[REHEARSAL_HEADER], real.headers[VIOLATIONS_HEADER.toLowerCase()]]).toEqual([200, undefined, undefined]);
      const summary = proxy.log.summary('', 0);
      expect(summary).toMatchObject({ exchanges: 4, checked: 4, broken: 0, violations: 0 });
      expect(summary.rehearsed).toEqual({ exchanges: 3, by_status: { '500': 1, '502': 1, '503': 1 }, by_mark: { prefer: 1, scenario: 2 } });
      expect(summary.operations['closeGoal']).toMatchObject({ exchanges: 4, broken: 0, rehearsed: 3 });
      // Only the real answer ran production's rules (the 200's state rules among them), and only it counts as coverage.
      expect(summary.operations['closeGoal']?.rules).toMatchObject({ 'answer.record': { checked: 1, failed: 0 }, state: { checked: 1, failed: 0 } });
      expect(summary.coverage.operations['closeGoal']?.statuses.seen).toEqual({ '200': 1 });
    } finally {
      await proxy.close();
    }
  });
});

describe('the same mark from a target that is not the mock', () => {
  it('excuses nothing: the mark is a violation, and the 500 to a valid request is one too', async () => {
    // A server that does not serve the mock's fixtures (as production does not), answering a queued 500 marked.
    const production = await startFaultProxy(mock.url, {
      controls: true,
      response: (req, reply) => (req.path.startsWith('/__mock/fixtures') ? { status: 404, headers: {}, body: 'Not Found' } : reply),
    });
    const { proxy, send } = await proxyTo(production.url);
    try {
      const session = 'proxy-not-mock';
      const id = await queue(session, 'code=500');
      await send({ method: 'GET', path: '/__mock/fixtures', headers: {} });
      const answer = await send(closeRequest(session));
      expect([answer.status, answer.headers[REHEARSAL_HEADER]]).toEqual([500, `scenario ${id}`]);
      expect(Number(answer.headers[VIOLATIONS_HEADER.toLowerCase()])).toBeGreaterThanOrEqual(2);
      const summary = proxy.log.summary('', 0);
      expect(summary.rehearsed.exchanges).toBe(0);
      expect(summary.by_code).toMatchObject({ 'header.mock-rehearsal': 1 });
      const entry = proxy.log.entries()[0];
      expect(entry?.violations.map((v) => v.code)).toEqual(expect.arrayContaining(['header.mock-rehearsal', 'expected.status']));
      expect(entry?.violations.find((v) => v.code === 'header.mock-rehearsal')?.message).toBe(
        `X-Mock-Rehearsal: "scenario ${id}" on an answer of a target not known to be this package's mock (it did not answer GET /__mock/fixtures with the mock's fixtures); the answer is checked as the service's own (production never sends this header)`,
      );
    } finally {
      await proxy.close();
      await production.close();
    }
  });

  it("excuses nothing when the mock's mark names a Prefer the request did not carry, or is not one the mock sends", async () => {
    const marking = (mark: string) =>
      startFaultProxy(mock.url, {
        request: (req) => ({ ...req, headers: { ...req.headers, prefer: 'code=500' } }),
        response: (_req, reply) => ({ ...reply, headers: { ...reply.headers, [REHEARSAL_HEADER]: mark } }),
      });
    for (const mark of ['prefer', 'scenario <script>']) {
      const target = await marking(mark);
      const { proxy, send } = await proxyTo(target.url);
      try {
        // The proxy saw no Prefer (the target added it on its way to the mock): a `prefer` mark is not believed.
        const answer = await send(closeRequest(`proxy-mark-${mark.length}`));
        expect(answer.status).toBe(500);
        expect(proxy.log.summary('', 0).rehearsed.exchanges).toBe(0);
        const codes = proxy.log.entries()[0]?.violations.map((v) => v.code) ?? [];
        expect(codes).toEqual(expect.arrayContaining(['header.mock-rehearsal', 'expected.status']));
      } finally {
        await proxy.close();
        await target.close();
      }
    }
  });
});

describe('the contract suite', () => {
  it('says so when a rehearsal answered it (a scenario queued in its session), and judges that answer no further', { timeout: 90_000 }, async () => {
    // The mock as a run whose session has a queued scenario sees it: every API answer marked as a scenario's.
    const rehearsing = await startFaultProxy(mock.url, {
      response: (_req, reply) => ({ ...reply, headers: { ...reply.headers, [REHEARSAL_HEADER]: 'scenario scenario-9' } }),
    });
    try {
      const run = await runContract({ CONTRACT_BASE_URL: rehearsing.url }, 80_000, ['auth']);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stdout).toMatch(
        /rehearsed by the mock \(X-Mock-Rehearsal: scenario scenario-9\), not its own answer: a scenario is queued in the session this run uses \(X-Mock-Session: contract-[^)]+\); DELETE \/__mock\/scenarios drops it/,
      );
      expect(run.stdout).not.toMatch(/expected\.|spec\.status/);
    } finally {
      await rehearsing.close();
    }
  });
});

describe('judgeRehearsal (the one rule of the proxy and the suite)', () => {
  const marked = (value: string) => ({ [REHEARSAL_HEADER]: value });
  it('excuses only a mark the mock sends, from a target known to be the mock, a `prefer` mark only for a Prefer that asks for an answer', () => {
    expect(judgeRehearsal({}, 200, { mockTarget: true, prefer: undefined })).toEqual({ kind: 'none' });
    expect(judgeRehearsal(marked('scenario scenario-7'), 503, { mockTarget: true, prefer: undefined })).toEqual({
      kind: 'rehearsed',
      rehearsal: { by: 'scenario', id: 'scenario-7' },
      mark: 'scenario scenario-7',
      gateway: true,
    });
    expect(judgeRehearsal(marked('prefer'), 500, { mockTarget: true, prefer: 'code=500' })).toMatchObject({ kind: 'rehearsed', gateway: false });
    expect(judgeRehearsal(marked('prefer'), 500, { mockTarget: true, prefer: 'delay=10' })).toMatchObject({ kind: 'refused' });
    expect(judgeRehearsal(marked('prefer'), 500, { mockTarget: false, prefer: 'code=500' })).toMatchObject({ kind: 'refused' });
    expect(judgeRehearsal(marked('scenario'), 500, { mockTarget: true, prefer: undefined })).toMatchObject({ kind: 'refused' });
  });
});
