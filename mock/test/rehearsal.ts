// Failure a frontend can rehearse, as cases any adapter can run: `Prefer: fault=…` and the scenarios queued
// with /__mock/scenarios, each proved by its answers and by the session's state and journals before and after. A
// transport answers an exchange, or `{ failed }` when no HTTP answer came (a dropped connection, a network error).
// faults.test.ts runs them on the Express app over HTTP and on the MSW handlers through msw/node;
// redis.scenarios.test.ts on two replicas sharing one Redis, alternately.
import { expect } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { operationModels, responseExamples } from '../../spec/lib/operations.ts';
import type { Fixtures } from '../src/core/controls.ts';
import { MAX_DELAY_MS, MAX_PREFER_LENGTH, MAX_SCENARIO_TIMES } from '../src/limits.ts';
import { gateway } from '../../spec/lib/messages.ts';
import { REHEARSAL_HEADER } from '../../spec/lib/rehearsal.ts';
import { CLOSE, RESUME, doc, type Sent } from './http.ts';

type Answered = { status: number; headers: Record<string, string | undefined>; text: string };
export type Attempt = Answered | { failed: string };
type RehearsalTransport = (sent: Sent) => Promise<Attempt>;
export type RehearsalCase = { name: string; run(send: RehearsalTransport, session: string): Promise<void> };

const CONTROL_ERROR = (message: string) => ({ error: 'Mock control error', message });

/** The spec's own first example for an operation's status: what production sends, and so what a forced answer is. */
export function specExample(operationId: string, status: number): { mediaType: string; value: unknown } {
  const model = operationModels().find((o) => o.operationId === operationId);
  const example = model ? responseExamples(model).find((e) => e.status === status) : undefined;
  if (!example) throw new Error(`the spec has no example for ${operationId} ${status}`);
  return example;
}

/** The statuses an operation documents, as the control error lists them. */
function documented(operationId: string): string {
  return [
    ...(operationModels()
      .find((o) => o.operationId === operationId)
      ?.responses.keys() ?? []),
  ].join(', ');
}

function answered(attempt: Attempt, what: string): Answered {
  if ('failed' in attempt) throw new Error(`${what}: no answer (${attempt.failed})`);
  return attempt;
}
function bodyOf(attempt: Attempt, what: string): unknown {
  return JSON.parse(answered(attempt, what).text);
}

export function rehearsalCases(fixtures: Fixtures): RehearsalCase[] {
  const token = fixtures.tokens.full_access;
  const headers = (session: string, prefer?: string): Record<string, string> => ({
    'content-type': 'application/json',
    authorization: `Bearer ${token}`,
    'x-mock-session': session,
    ...(prefer === undefined ? {} : { prefer }),
  });
  const resume = (session: string, prefer?: string): Sent => ({
    path: RESUME,
    headers: headers(session, prefer),
    body: JSON.stringify({ project_id: fixtures.projects.paused, message: doc('Back on.') }),
  });
  const close = (session: string, prefer?: string): Sent => ({
    path: CLOSE,
    headers: headers(session, prefer),
    body: JSON.stringify({ goal_id: fixtures.goals.open, success: 'yes', retrospective: doc('Done.'), success_status: 'achieved' }),
  });
  const control = (method: string, path: string, session: string, body?: unknown): Sent => ({
    method,
    path,
    headers: { 'x-mock-session': session, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const state = async (send: RehearsalTransport, session: string): Promise<string> =>
    answered(await send(control('GET', '/__mock/state', session)), 'state').text;
  const goalStatus = async (send: RehearsalTransport, session: string): Promise<unknown> => {
    const dumped = JSON.parse(await state(send, session));
    return isObject(dumped) && Array.isArray(dumped['goals']) ? dumped['goals'].map((g: unknown) => (isObject(g) ? g['closed_at'] : undefined)) : undefined;
  };
  const pending = async (send: RehearsalTransport, session: string): Promise<unknown> =>
    bodyOf(await send(control('GET', '/__mock/scenarios', session)), 'GET /__mock/scenarios');
  const lastRequest = async (send: RehearsalTransport, session: string): Promise<unknown> => {
    const body = bodyOf(await send(control('GET', '/__mock/requests?limit=1', session)), 'GET /__mock/requests');
    return isObject(body) && Array.isArray(body['requests']) ? body['requests'][0] : undefined;
  };
  const queue = async (send: RehearsalTransport, session: string, scenario: unknown): Promise<Answered> =>
    answered(await send(control('POST', '/__mock/scenarios', session, scenario)), 'POST /__mock/scenarios');

  return [
    {
      name: 'Prefer: fault=network-error gets no HTTP answer, changes nothing, and the journal lists it with status 0',
      async run(send, session) {
        const before = await state(send, session);
        const attempt = await send(resume(session, 'fault=network-error'));
        expect('failed' in attempt, JSON.stringify(attempt)).toBe(true);
        expect(await state(send, session)).toBe(before);
        expect(await lastRequest(send, session)).toMatchObject({ method: 'POST', path: RESUME, status: 0, operation: 'resumeProject', fault: 'network-error' });
        // The next request, without the preference, is answered as ever.
        expect(answered(await send(resume(session)), 'resume').status).toBe(200);
      },
    },
    {
      name: 'Prefer: fault=timeout gets no answer until the mock gives up (--max-delay), and changes nothing',
      async run(send, session) {
        const before = await state(send, session);
        const attempt = await send(close(session, 'fault=timeout'));
        expect('failed' in attempt, JSON.stringify(attempt)).toBe(true);
        expect(await state(send, session)).toBe(before);
        expect(await lastRequest(send, session)).toMatchObject({ path: CLOSE, status: 0, operation: 'closeGoal', fault: 'timeout' });
      },
    },
    {
      name: 'Prefer: code=502|503|504 answers the gateway page (text/html, no x-request-id), marked X-Mock-Rehearsal: prefer; nothing changes, and the journal lists the status',
      async run(send, session) {
        const before = await state(send, session);
        expect([...gateway().keys()]).toEqual([502, 503, 504]);
        for (const [status, page] of gateway()) {
          const answer = answered(await send(close(session, `code=${status}`)), `code=${status}`);
          expect([answer.status, answer.headers['content-type'], answer.text]).toEqual([status, 'text/html; charset=utf-8', page]);
          expect(page).toContain(`<title>${status} `);
          expect(answer.headers['x-request-id']).toBeUndefined();
          expect(answer.headers[REHEARSAL_HEADER]).toBe('prefer');
          expect(await state(send, session)).toBe(before);
          expect(await lastRequest(send, session)).toMatchObject({ method: 'POST', path: CLOSE, status, operation: 'closeGoal' });
        }
        // A gateway status has no examples; a status that is neither documented nor a gateway's is refused as before.
        const withExample = answered(await send(resume(session, 'code=503, example=closed_project')), 'code=503 with an example');
        expect([withExample.status, JSON.parse(withExample.text)]).toEqual([
          400,
          CONTROL_ERROR("Prefer: code=503 is a gateway status the mock answers with a gateway's page; it has no examples, so leave example=closed_project out"),
        ]);
        expect(answered(await send(resume(session, 'code=501')), 'code=501').status).toBe(400);
        // The real answer carries no mark; a forced documented status carries `prefer`.
        const real = answered(await send(resume(session)), 'resume');
        expect([real.status, real.headers[REHEARSAL_HEADER]]).toEqual([200, undefined]);
        const forced = answered(await send(resume(session, 'code=404')), 'code=404');
        expect([forced.status, forced.headers[REHEARSAL_HEADER]]).toEqual([404, 'prefer']);
      },
    },
    {
      name: 'a queued 503 then 504 answer the gateway pages marked X-Mock-Rehearsal: scenario <id>, change nothing, then the real answer, unmarked',
      async run(send, session) {
        const first = JSON.parse((await queue(send, session, { operation: 'closeGoal', prefer: 'code=503' })).text);
        const second = JSON.parse((await queue(send, session, { operation: 'closeGoal', prefer: 'code=504', times: 1 })).text);
        expect([first.prefer, second.prefer, first.remaining]).toEqual(['code=503', 'code=504', 1]);
        const statuses = await goalStatus(send, session);
        for (const [scenario, status] of [
          [first, 503],
          [second, 504],
        ] as const) {
          const answer = answered(await send(close(session)), `queued ${status}`);
          expect([answer.status, answer.headers['content-type'], answer.text]).toEqual([status, 'text/html; charset=utf-8', gateway().get(status)]);
          expect(answer.headers[REHEARSAL_HEADER]).toBe(`scenario ${scenario.id}`);
          expect(await goalStatus(send, session)).toEqual(statuses);
        }
        const ok = answered(await send(close(session)), 'close');
        expect([ok.status, ok.headers[REHEARSAL_HEADER]]).toEqual([200, undefined]);
        expect(await goalStatus(send, session)).not.toEqual(statuses);
        const refused = answered(
          await send(control('POST', '/__mock/scenarios', session, { operation: 'closeGoal', prefer: 'code=502, example=x' })),
          'a 502 with an example',
        );
        expect([refused.status, JSON.parse(refused.text)]).toEqual([
          400,
          CONTROL_ERROR("prefer: Prefer: code=502 is a gateway status the mock answers with a gateway's page; it has no examples, so leave example=x out"),
        ]);
        expect(await pending(send, session)).toEqual({ scenarios: [] });
      },
    },
    {
      name: 'an unknown fault is the control error naming the two faults, and changes nothing',
      async run(send, session) {
        const before = await state(send, session);
        const attempt = answered(await send(resume(session, 'fault=slow')), 'resume');
        expect([attempt.status, JSON.parse(attempt.text)]).toEqual([400, CONTROL_ERROR('Prefer: fault must be network-error or timeout, got "slow"')]);
        expect(await state(send, session)).toBe(before);
      },
    },
    {
      name: "two queued 500s, then a 200: each 500 is the spec's own example and leaves the goal open; only the 200 closes it",
      async run(send, session) {
        const queued = await queue(send, session, { operation: 'closeGoal', prefer: 'code=500', times: 2 });
        expect(queued.status).toBe(201);
        expect(JSON.parse(queued.text)).toEqual({ id: expect.any(String), operation: 'closeGoal', prefer: 'code=500', remaining: 2 });
        expect(await pending(send, session)).toEqual({ scenarios: [JSON.parse(queued.text)] });
        const example = specExample('closeGoal', 500);
        const statuses = await goalStatus(send, session);
        for (const left of [1, 0]) {
          const failed = answered(await send(close(session)), 'close');
          expect(failed.status).toBe(500);
          expect(failed.headers['content-type']).toBe(`${example.mediaType}; charset=utf-8`);
          expect(JSON.parse(failed.text)).toEqual(example.value);
          expect(await goalStatus(send, session)).toEqual(statuses);
          const rest = await pending(send, session);
          expect(rest).toEqual({ scenarios: left === 0 ? [] : [{ ...JSON.parse(queued.text), remaining: left }] });
        }
        const ok = answered(await send(close(session)), 'close');
        expect(ok.status).toBe(200);
        expect(await goalStatus(send, session)).not.toEqual(statuses);
      },
    },
    {
      name: "a scenario is its session's only: another session is answered normally and keeps it queued for its owner",
      async run(send, session) {
        expect((await queue(send, session, { operation: 'resumeProject', prefer: 'code=404' })).status).toBe(201);
        const other = `${session}-other`;
        expect(answered(await send(resume(other)), 'resume in another session').status).toBe(200);
        expect(await pending(send, other)).toEqual({ scenarios: [] });
        const own = answered(await send(resume(session)), 'resume');
        expect([own.status, own.text]).toEqual([404, JSON.stringify(specExample('resumeProject', 404).value)]);
      },
    },
    {
      name: 'scenarios queue in order, each consumed only by its own operation: a queued network error, then a normal answer',
      async run(send, session) {
        await queue(send, session, { operation: 'resumeProject', prefer: 'fault=network-error' });
        await queue(send, session, { operation: 'closeGoal', prefer: 'code=403' });
        await queue(send, session, { operation: 'resumeProject', prefer: 'code=401' });
        const closed = answered(await send(close(session)), 'close');
        expect(closed.status).toBe(403);
        expect('failed' in (await send(resume(session)))).toBe(true);
        expect(answered(await send(resume(session)), 'resume').status).toBe(401);
        expect(answered(await send(resume(session)), 'resume').status).toBe(200);
        expect(await pending(send, session)).toEqual({ scenarios: [] });
      },
    },
    {
      name: 'POST /__mock/reset drops the queued scenarios; DELETE /__mock/scenarios too (204, no body)',
      async run(send, session) {
        await queue(send, session, { operation: 'resumeProject', prefer: 'code=500', times: 3 });
        const reset = answered(await send(control('POST', '/__mock/reset', session)), 'reset');
        expect(reset.status).toBe(200);
        expect(await pending(send, session)).toEqual({ scenarios: [] });
        expect(answered(await send(resume(session)), 'resume').status).toBe(200);
        await queue(send, session, { operation: 'closeGoal', prefer: 'delay=5', times: 5 });
        const dropped = answered(await send(control('DELETE', '/__mock/scenarios', session)), 'DELETE');
        expect([dropped.status, dropped.text]).toEqual([204, '']);
        expect(await pending(send, session)).toEqual({ scenarios: [] });
      },
    },
    {
      name: 'a bad scenario is a 400 naming the field, and queues nothing',
      async run(send, session) {
        const bad: Array<[unknown, string]> = [
          [{ operation: 'deleteGoal', prefer: 'code=500' }, 'operation must be one of resumeProject, closeGoal, got "deleteGoal"'],
          [{ prefer: 'code=500' }, 'operation must be one of resumeProject, closeGoal, got null'],
          [{ operation: 'closeGoal' }, `prefer must be a Prefer value of at most ${MAX_PREFER_LENGTH} characters, e.g. "code=500" or "fault=timeout"`],
          [{ operation: 'closeGoal', prefer: 'code=418' }, `prefer: Prefer: code=418 is not documented for closeGoal; documented: ${documented('closeGoal')}`],
          [{ operation: 'closeGoal', prefer: 'fault=slow' }, 'prefer: Prefer: fault must be network-error or timeout, got "slow"'],
          [{ operation: 'closeGoal', prefer: 'delay=99999999' }, `prefer: Prefer: delay must be whole milliseconds from 0 to ${MAX_DELAY_MS}, got "99999999"`],
          [{ operation: 'closeGoal', prefer: 'respond-async' }, 'prefer must set at least one of code, example, delay, fault, got "respond-async"'],
          [{ operation: 'closeGoal', prefer: 'code=500', times: 0 }, `times must be a whole number from 1 to ${MAX_SCENARIO_TIMES}, got 0`],
          [{ operation: 'closeGoal', prefer: 'code=500', times: 1.5 }, `times must be a whole number from 1 to ${MAX_SCENARIO_TIMES}, got 1.5`],
          [{ operation: 'closeGoal', prefer: 'code=500', times: '2' }, `times must be a whole number from 1 to ${MAX_SCENARIO_TIMES}, got "2"`],
          [{ operation: 'closeGoal', prefer: 'code=500', count: 2 }, 'count is not a field of a scenario (operation, prefer, times)'],
          [['closeGoal'], 'the body must be a JSON object {"operation", "prefer", "times"}'],
          ['{"operation":', 'the body must be a JSON object {"operation", "prefer", "times"}'],
        ];
        for (const [body, message] of bad) {
          const refused = answered(await send(control('POST', '/__mock/scenarios', session, body)), JSON.stringify(body));
          expect([refused.status, refused.headers['content-type'], JSON.parse(refused.text)], JSON.stringify(body)).toEqual([
            400,
            'application/json; charset=utf-8',
            CONTROL_ERROR(message),
          ]);
        }
        expect(await pending(send, session)).toEqual({ scenarios: [] });
        expect(answered(await send(close(session)), 'close').status).toBe(200);
      },
    },
  ];
}
