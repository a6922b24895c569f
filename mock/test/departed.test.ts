// A delayed request whose client has gone: `Prefer: delay`, a scenario's delay and --delay wait
// on the request's AbortSignal, so a client that goes away mid-wait stops the wait, writes nothing, is not journaled,
// and leaves no request waiting; and the number of requests waiting at once is capped (the mock's 503 past it).
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { createMockApp, fixturesOf, type MockApp, type MockOptions } from '../src/index.ts';
import { doc, RESUME, send } from './http.ts';

type Started = { app: MockApp; port: number; token: string; project: string; close(): Promise<void> };

const running: Started[] = [];
afterEach(async () => {
  for (const started of running.splice(0)) await started.close();
});

async function start(options: MockOptions = {}): Promise<Started> {
  const app = createMockApp({ now: () => new Date('2025-06-13T10:00:00Z'), ...options });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const fixtures = fixturesOf(app.mock.seed, app.mock.seed.state);
  const started: Started = {
    app,
    port: (server.address() as AddressInfo).port,
    token: fixtures.tokens['full_access'] ?? '',
    project: fixtures.projects['paused'] ?? '',
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  running.push(started);
  return started;
}

const resumeHeaders = (mock: Started, session: string, extra: Record<string, string> = {}): Record<string, string> => ({
  'content-type': 'application/json',
  authorization: `Bearer ${mock.token}`,
  'x-mock-session': session,
  ...extra,
});

/** Sends a resume whose client goes away once `waiting` holds; resolves once it has gone. */
function sendAndLeave(mock: Started, session: string, extra: Record<string, string>, waiting = (): boolean => mock.app.mock.core.waiting() > 0): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: mock.port, method: 'POST', path: RESUME, headers: resumeHeaders(mock, session, extra) });
    req.on('error', () => undefined);
    req.on('response', (res) => reject(new Error(`answered ${res.statusCode} before the client left`)));
    req.on('close', () => resolve());
    req.end(JSON.stringify({ project_id: mock.project, message: doc('x'.repeat(200_000)) }), () =>
      until('the request to wait', waiting).then(() => req.destroy(), reject),
    );
  });
}

async function until(what: string, fn: () => boolean, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!fn()) {
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What the session holds: its events, its request journal, and its whole state. */
async function left(mock: Started, session: string): Promise<{ events: unknown; requests: unknown; state: unknown }> {
  const get = async (path: string): Promise<unknown> => (await send(mock.port, { method: 'GET', path, headers: { 'x-mock-session': session } })).json();
  const events = await get('/__mock/events');
  const requests = await get('/__mock/requests');
  return {
    events: isObject(events) ? events['events'] : events,
    requests: isObject(requests) ? requests['requests'] : requests,
    state: await get('/__mock/state'),
  };
}

describe('a delayed request whose client has gone', () => {
  it.each([
    ['Prefer: delay=5000', {}, { prefer: 'delay=5000' }],
    ['--delay 5000', { delay: { min: 5000, max: 5000 } }, {}],
  ])('%s: stops waiting, writes nothing, journals nothing, and leaves nothing waiting', async (_name, options: MockOptions, extra) => {
    const mock = await start(options);
    const before = await left(mock, 'gone');
    expect([before.events, before.requests]).toEqual([[], []]);
    await sendAndLeave(mock, 'gone', extra);
    await until('the wait to end', () => mock.app.mock.core.waiting() === 0);
    // Well before the 5 s delay has passed: nothing of the request is left.
    expect(await left(mock, 'gone')).toEqual(before);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await left(mock, 'gone')).toEqual(before);
  });

  it("a scenario's delay: the scenario counts as taken, and the operation writes nothing", async () => {
    const mock = await start();
    const queued = await send(mock.port, {
      path: '/__mock/scenarios',
      headers: { 'content-type': 'application/json', 'x-mock-session': 'scenario' },
      body: JSON.stringify({ operation: 'resumeProject', prefer: 'delay=5000', times: 2 }),
    });
    expect(queued.status).toBe(201);
    await sendAndLeave(mock, 'scenario', {});
    await until('the wait to end', () => mock.app.mock.core.waiting() === 0);
    expect(await left(mock, 'scenario')).toEqual({ ...(await left(mock, 'untouched')), requests: [] });
    const scenarios: unknown = (await send(mock.port, { method: 'GET', path: '/__mock/scenarios', headers: { 'x-mock-session': 'scenario' } })).json();
    expect(
      isObject(scenarios) && Array.isArray(scenarios['scenarios']) ? scenarios['scenarios'].map((s: unknown) => isObject(s) && s['remaining']) : scenarios,
    ).toEqual([1]);
  });

  it('through fetch (MSW): an aborted Request stops the wait, is a network error, and writes nothing', async () => {
    const mock = await start();
    const gone = new AbortController();
    const answered = mock.app.mock.core.fetch(
      new Request(`http://mock.test${RESUME}`, {
        method: 'POST',
        headers: resumeHeaders(mock, 'fetch', { prefer: 'delay=5000' }),
        body: JSON.stringify({ project_id: mock.project, message: doc('x') }),
        signal: gone.signal,
      }),
    );
    await until('the request to wait', () => mock.app.mock.core.waiting() === 1);
    gone.abort();
    const response = await answered;
    expect(response.type).toBe('error');
    expect(mock.app.mock.core.waiting()).toBe(0);
    expect(await left(mock, 'fetch')).toEqual({ ...(await left(mock, 'untouched')), requests: [] });
  });

  it('a client that stays gets its delayed 200, written after the wait', async () => {
    const mock = await start();
    const answer = await send(mock.port, {
      path: RESUME,
      headers: resumeHeaders(mock, 'stays', { prefer: 'delay=50' }),
      body: JSON.stringify({ project_id: mock.project, message: doc('x') }),
    });
    expect(answer.status).toBe(200);
    const after = await left(mock, 'stays');
    expect([Array.isArray(after.events) && after.events.length, Array.isArray(after.requests) && after.requests.length]).toEqual([1, 1]);
    expect(mock.app.mock.core.waiting()).toBe(0);
  });
});

describe('the requests waiting at once are capped (maxWaiting)', () => {
  it("past the cap a delayed request gets the mock's 503 at once and changes nothing; one not delayed is answered as ever", async () => {
    const mock = await start({ maxWaiting: 2 });
    let leave = false;
    const leaving = [sendAndLeave(mock, 'w1', { prefer: 'delay=5000' }, () => leave), sendAndLeave(mock, 'w2', { prefer: 'delay=5000' }, () => leave)];
    await until('two requests to wait', () => mock.app.mock.core.waiting() === 2);
    const started = performance.now();
    const refused = await send(mock.port, {
      path: RESUME,
      headers: resumeHeaders(mock, 'w3', { prefer: 'delay=5000' }),
      body: JSON.stringify({ project_id: mock.project, message: doc('x') }),
    });
    expect(performance.now() - started).toBeLessThan(4000);
    expect([refused.status, refused.headers['content-type']]).toEqual([503, 'application/json; charset=utf-8']);
    expect(refused.json()).toEqual({
      error: 'Mock unavailable',
      message:
        "The mock already holds 2 delayed requests (Prefer: delay, a scenario's delay or --delay); this one was not delayed and changed nothing. Retry it, or delay fewer requests at once.",
    });
    const w3 = await left(mock, 'w3');
    expect([w3.events, w3.state]).toEqual([[], (await left(mock, 'untouched')).state]);
    const plain = await send(mock.port, {
      path: RESUME,
      headers: resumeHeaders(mock, 'w4'),
      body: JSON.stringify({ project_id: mock.project, message: doc('x') }),
    });
    expect(plain.status).toBe(200);
    leave = true;
    await Promise.all(leaving);
    await until('the waits to end', () => mock.app.mock.core.waiting() === 0);
  });
});
