// Failure a frontend can rehearse on the bare node:http listener the mock command serves with, on the
// Express app over HTTP and on the MSW handlers through msw/node:
// the shared cases of rehearsal.ts, then what each adapter does on its own (a client that gives up on a timeout, the
// handlers' typed scenarios without HTTP). The same cases on replicas sharing Redis: redis.scenarios.test.ts.
import { spawn } from 'node:child_process';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { gateway } from '../../spec/lib/messages.ts';
import { REHEARSAL_HEADER } from '../../spec/lib/rehearsal.ts';
import { createMockCore } from '../src/core/core.ts';
import { FAULTS, hold } from '../src/answers/faults.ts';
import { createHttpListener } from '../src/server/httpListener.ts';
import { MAX_HOLD_MS, MAX_PREFER_LENGTH, MAX_SCENARIO_TIMES, MAX_SCENARIOS } from '../src/limits.ts';
import { createMockHandlers } from '../src/msw.ts';
import { seedFixtures } from './behaviour.ts';
import { CLOSE, RESUME, doc, send, startMock, type Received, type RunningMock, type Sent } from './http.ts';
import { rehearsalCases, specExample, type Attempt } from './rehearsal.ts';

const NOW = () => new Date('2025-06-18T10:30:00Z');
const fixtures = seedFixtures();
const cases = rehearsalCases(fixtures);
const token = fixtures.tokens.full_access;

/** A request the test can give up on: `done` settles with its status, or rejects when the connection ends without one. */
function request(port: number, sent: Sent): { done: Promise<number>; answered(): boolean; giveUp(): void } {
  let status: number | undefined;
  const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: sent.path, headers: sent.headers ?? {} });
  const done = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on('end', () => resolve(status ?? 0));
    });
    req.on('error', reject);
  });
  req.end(sent.body);
  return { done, answered: () => status !== undefined, giveUp: () => req.destroy() };
}

function flat(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
}

/** A transport over HTTP that reports a connection ending with no answer as a failure, as a client sees it. */
const attempt =
  (sendOne: (sent: Sent) => Promise<Received>) =>
  async (sent: Sent): Promise<Attempt> => {
    try {
      const received = await sendOne(sent);
      return { status: received.status, headers: flat(received.headers), text: received.text };
    } catch (error) {
      return { failed: error instanceof Error ? error.message : String(error) };
    }
  };

describe('node:http with no framework (createHttpListener: what the mock command serves with)', () => {
  const server = createServer(createHttpListener(createMockCore({ now: NOW, maxDelay: 50 })));
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const transport = attempt((sent) => send(port, sent));
  it.each(cases.map((c, i) => [c.name, c, i] as const))('%s', async (_name, rehearsal, i) => {
    await rehearsal.run(transport, `http-${i}`);
  });
});

describe('Express over HTTP (createMockApp)', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ now: NOW, maxDelay: 50 });
  });
  afterAll(() => mock.close());
  const transport = attempt((sent) => mock.send(sent));
  it.each(cases.map((c, i) => [c.name, c, i] as const))('%s', async (_name, rehearsal, i) => {
    await rehearsal.run(transport, `express-${i}`);
  });

  it('a dropped connection is what fetch reports for a network failure: a TypeError, no Response', async () => {
    const failure = fetch(`${mock.url}${RESUME}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, prefer: 'fault=network-error' },
      body: JSON.stringify({ project_id: fixtures.projects.paused, message: doc('x') }),
    });
    await expect(failure).rejects.toThrow(TypeError);
  });

  it('on a keep-alive connection that carried a request before, a dropped connection still answers nothing (one byte no HTTP answer begins with, so a browser does not resend it)', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const session = 'keep-alive';
    const sent = (prefer?: string) =>
      new Promise<string>((resolve) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port: mock.port,
            method: 'POST',
            path: RESUME,
            agent,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-mock-session': session, ...(prefer ? { prefer } : {}) },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(`${res.statusCode} on ${req.reusedSocket ? 'a reused' : 'a new'} connection`));
          },
        );
        req.on('error', (error) => resolve(`${error.message} on ${req.reusedSocket ? 'a reused' : 'a new'} connection`));
        req.end(JSON.stringify({ project_id: fixtures.projects.paused, message: doc('x') }));
      });
    try {
      expect(await sent()).toBe('200 on a new connection');
      expect(await sent('fault=network-error')).toMatch(/^Parse Error: Expected HTTP\/.* on a reused connection$/);
      expect(await sent('fault=network-error')).toBe('socket hang up on a new connection');
      const journal = (await mock.send({ method: 'GET', path: '/__mock/requests', headers: { 'x-mock-session': session } })).json() as { requests: unknown[] };
      expect(journal.requests.map((r) => (typeof r === 'object' && r !== null && 'status' in r ? r.status : undefined))).toEqual([200, 0, 0]);
    } finally {
      agent.destroy();
    }
  });
});

describe('Express: a timeout held until the client gives up', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ now: NOW, maxDelay: MAX_HOLD_MS });
  });
  afterAll(() => mock.close());

  it('holds the request with no answer; a client that gives up ends it, and the mock answers the next request as ever', async () => {
    const session = { 'x-mock-session': 'gives-up' };
    const held = request(mock.port, {
      path: CLOSE,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, prefer: 'fault=timeout', ...session },
      body: JSON.stringify({ goal_id: fixtures.goals.open, success: 'yes', retrospective: doc('x'), success_status: 'achieved' }),
    });
    // The journal lists the held request as soon as the mock has taken it (before the hold ends).
    await expect
      .poll(async () => ((await mock.send({ method: 'GET', path: '/__mock/requests?limit=1', headers: session })).json() as { requests: unknown[] }).requests)
      .toEqual([expect.objectContaining({ status: 0, fault: 'timeout', operation: 'closeGoal' })]);
    expect(held.answered()).toBe(false);
    held.giveUp();
    await expect(held.done).rejects.toThrow(/socket hang up|aborted|ECONNRESET/);
    const after = await mock.post(CLOSE, { goal_id: fixtures.goals.open, success: 'yes', retrospective: doc('x'), success_status: 'achieved' }, token, session);
    expect(after.status).toBe(200);
  });

  it('hold() ends when its signal aborts, long before its time', async () => {
    const controller = new AbortController();
    const held = hold(MAX_HOLD_MS, controller.signal);
    controller.abort();
    await expect(held).resolves.toBeUndefined();
    await expect(hold(MAX_HOLD_MS, AbortSignal.abort())).resolves.toBeUndefined();
  });
});

describe('MSW in Node (msw/node setupServer, fetch)', () => {
  const BASE = 'http://api.rehearsal.test';
  const handlers = createMockHandlers({ baseUrl: BASE, now: NOW, maxDelay: 50 });
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());
  const transport = async (sent: Sent): Promise<Attempt> => {
    const init: RequestInit = { method: sent.method ?? 'POST', headers: Object.entries(sent.headers ?? {}).map(([n, v]) => [n, String(v)]) };
    if (sent.body !== undefined) init.body = String(sent.body);
    try {
      const response = await fetch(`${BASE}${sent.path}`, init);
      const headers: Record<string, string> = {};
      for (const [name, value] of response.headers) headers[name] = value;
      return { status: response.status, headers, text: await response.text() };
    } catch (error) {
      return { failed: error instanceof Error ? error.message : String(error) };
    }
  };
  it.each(cases.map((c, i) => [c.name, c, i] as const))('%s', async (_name, rehearsal, i) => {
    await rehearsal.run(transport, `msw-${i}`);
  });

  const resume = (init: RequestInit = {}) =>
    fetch(`${BASE}${RESUME}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...init.headers },
      body: JSON.stringify({ project_id: fixtures.projects.paused, message: doc('x') }),
      ...(init.signal ? { signal: init.signal } : {}),
    });

  it('a network error is what fetch gives for a dropped connection: a TypeError, as from HttpResponse.error()', async () => {
    await expect(resume({ headers: { prefer: 'fault=network-error' } })).rejects.toThrow(TypeError);
  });

  it('mock.scenarios.add queues without HTTP (typed), list shows it counting down, reset() and clear() drop it', async () => {
    await handlers.reset();
    const added = await handlers.scenarios.add({ operation: 'resumeProject', prefer: 'code=500', times: 2 });
    expect(added).toEqual({ id: expect.any(String), operation: 'resumeProject', prefer: 'code=500', remaining: 2 });
    const failed = await resume();
    expect([failed.status, await failed.json()]).toEqual([500, specExample('resumeProject', 500).value]);
    expect(await handlers.scenarios.list()).toEqual([{ ...added, remaining: 1 }]);
    expect((await handlers.state()).projects.find((p) => p.stored_status === 'active' && p.name.startsWith('Localize'))).toBeUndefined();
    await handlers.reset();
    expect(await handlers.scenarios.list()).toEqual([]);
    expect((await resume()).status).toBe(200);
    await handlers.scenarios.add({ operation: 'closeGoal', prefer: 'fault=timeout' });
    await handlers.scenarios.clear();
    expect(await handlers.scenarios.list()).toEqual([]);
    // @ts-expect-error -- the operation is an operationId of the spec
    const misspelt = handlers.scenarios.add({ operation: 'closeGoals', prefer: 'code=500' });
    await expect(misspelt).rejects.toThrow('scenarios.add: operation must be one of resumeProject, closeGoal, got "closeGoals"');
    await expect(handlers.scenarios.add({ operation: 'closeGoal', prefer: 'code=500', times: 0 })).rejects.toThrow(/^scenarios\.add: times must be/);
    expect(await handlers.scenarios.list()).toEqual([]);
  });

  it('mock.scenarios.add queues a gateway 503 (and Prefer: code=503 answers one): the gateway page, marked, the state unchanged', async () => {
    await handlers.reset();
    const before = await handlers.state();
    const added = await handlers.scenarios.add({ operation: 'resumeProject', prefer: 'code=503' });
    const queued = await resume();
    expect([queued.status, queued.headers.get('content-type'), await queued.text()]).toEqual([503, 'text/html; charset=utf-8', gateway().get(503)]);
    expect(queued.headers.get(REHEARSAL_HEADER)).toBe(`scenario ${added.id}`);
    const asked = await resume({ headers: { prefer: 'code=503' } });
    expect([asked.status, await asked.text(), asked.headers.get(REHEARSAL_HEADER)]).toEqual([503, gateway().get(503), 'prefer']);
    expect(await handlers.state()).toEqual(before);
    expect((await handlers.requests(2)).map((r) => r.status)).toEqual([503, 503]);
    await handlers.reset();
  });

  it(`a session holds at most ${MAX_SCENARIOS} pending scenarios; one more is refused and nothing is queued`, async () => {
    await handlers.reset();
    for (let i = 0; i < MAX_SCENARIOS; i++) await handlers.scenarios.add({ operation: 'closeGoal', prefer: 'delay=1' });
    await expect(handlers.scenarios.add({ operation: 'closeGoal', prefer: 'delay=1' })).rejects.toThrow(`already has ${MAX_SCENARIOS} pending scenarios`);
    expect(await handlers.scenarios.list()).toHaveLength(MAX_SCENARIOS);
    await handlers.reset();
  });

  it('a timeout ends when the client aborts: fetch rejects with the abort, and the core stops holding', async () => {
    const slow = createMockHandlers({ baseUrl: BASE, now: NOW, maxDelay: MAX_HOLD_MS });
    const controller = new AbortController();
    const request = new Request(`${BASE}${RESUME}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, prefer: 'fault=timeout' },
      body: JSON.stringify({ project_id: fixtures.projects.paused, message: doc('x') }),
      signal: controller.signal,
    });
    const answer = slow.core.fetch(request);
    await expect.poll(async () => (await slow.requests()).map((r) => r.fault)).toEqual(['timeout']);
    controller.abort();
    const response = await answer;
    expect([response.type, response.status]).toEqual(['error', 0]);
  });
});

describe('mock/openapi.yaml documents the faults and the scenario limits the code applies', () => {
  it('the Fault enum is FAULTS; ScenarioRequest bounds times and prefer as limits.ts does', async () => {
    const control: unknown = (await import('../../generated/mock-control.json', { with: { type: 'json' } })).default;
    const schemas = isObject(control) && isObject(control['components']) && isObject(control['components']['schemas']) ? control['components']['schemas'] : {};
    const fault = schemas['Fault'];
    const request = schemas['ScenarioRequest'];
    const properties = isObject(request) && isObject(request['properties']) ? request['properties'] : {};
    expect(isObject(fault) ? fault['enum'] : undefined).toEqual([...FAULTS]);
    expect(isObject(properties['times']) ? [properties['times']['minimum'], properties['times']['maximum']] : undefined).toEqual([1, MAX_SCENARIO_TIMES]);
    expect(isObject(properties['prefer']) ? properties['prefer']['maxLength'] : undefined).toBe(MAX_PREFER_LENGTH);
  });
});

describe('the mock command: --max-delay', () => {
  const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
  const run = (args: string[]) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, exit, output: () => output };
  };

  it.each([
    [['--max-delay', 'soon'], 'error: --max-delay must be a whole number, got "soon"'],
    [['--max-delay', String(MAX_HOLD_MS + 1)], `error: --max-delay must be between 0 and ${MAX_HOLD_MS}, got ${MAX_HOLD_MS + 1}`],
  ])('exits 2 with one line on a bad value: %s', async (args, line) => {
    const mock = run(args);
    expect(await mock.exit).toBe(2);
    expect(mock.output().trim()).toBe(line);
  });

  it('holds a fault=timeout request for --max-delay, then drops it; the state is as before', async () => {
    const mock = run(['--port', '0', '--max-delay', '100']);
    try {
      await expect.poll(() => /mock listening on (http:\/\/\S+)/.exec(mock.output())?.[1]).toBeDefined();
      const url = /mock listening on (http:\/\/\S+)/.exec(mock.output())?.[1] ?? '';
      const before = await (await fetch(`${url}/__mock/state`)).text();
      const held = fetch(`${url}${CLOSE}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, prefer: 'fault=timeout' },
        body: JSON.stringify({ goal_id: fixtures.goals.open, success: 'yes', retrospective: doc('x'), success_status: 'achieved' }),
      });
      await expect(held).rejects.toThrow(TypeError);
      expect(await (await fetch(`${url}/__mock/state`)).text()).toBe(before);
    } finally {
      mock.child.kill('SIGTERM');
      await mock.exit;
    }
  });
});
