// Mock processes sharing one Redis, started as `npm start -- --store redis://…` starts them: 200 concurrent
// writes spread over two replicas leave the state and journals of some serial order; a replica killed with SIGKILL
// under load loses no write it answered 200; Redis unreachable at start is exit 2 naming the URL; Redis stopped or
// frozen under load is a 503 (never a wrong 200, never a hang) and the mock recovers on its own when it is back.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { freePort } from '../../spec/lib/ports.ts';
import { redisMissing, startRedis, type RedisServer } from './redisServer.ts';
import { CLOSE, RESUME, doc } from './http.ts';

const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
const missing = redisMissing();

type Replica = { child: ChildProcess; url: string; output(): string; exit: Promise<number | null> };

function spawnMock(args: string[], env: Record<string, string> = {}): { child: ChildProcess; output(): string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['--max-semi-space-size=4', MAIN, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '', MOCK_STORE: '', ...env },
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function startReplica(args: string[]): Promise<Replica> {
  const mock = spawnMock(args);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const port = /^port: (\d+)$/m.exec(mock.output())?.[1];
    if (port && mock.output().includes('state: in Redis at')) return { ...mock, url: `http://127.0.0.1:${port}` };
    if (mock.child.exitCode !== null) throw new Error(`the mock exited: ${mock.output()}`);
    if (Date.now() > deadline) throw new Error(`the mock did not start: ${mock.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type Answer = { status: number; text: string; ms: number } | { error: string; ms: number };

/** One request, bounded: an answer, or the error (a killed replica) — never a wait without end. */
async function call(url: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}${path}`, {
      method: init.method ?? 'POST',
      headers: init.headers ?? {},
      body: init.body,
      signal: AbortSignal.timeout(20_000),
    });
    return { status: response.status, text: await response.text(), ms: performance.now() - started };
  } catch (error) {
    return {
      error: error instanceof Error ? `${error.name}: ${error.cause instanceof Error ? error.cause.message : error.message}` : String(error),
      ms: performance.now() - started,
    };
  }
}

function json(value: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(value);
  if (!isObject(parsed)) throw new Error(`not a JSON object: ${value.slice(0, 200)}`);
  return parsed;
}
function list(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter(isObject) : [];
}
const statusOf = (answer: Answer): number | string => ('status' in answer ? answer.status : answer.error);
function textOf(answer: Answer): string {
  if ('error' in answer) throw new Error(answer.error);
  return answer.text;
}

describe('the mock command with --store', () => {
  it('exits 2 with one line naming the URL when Redis cannot be reached at start', async () => {
    const port = await freePort();
    const mock = spawnMock(['--store', `redis://127.0.0.1:${port}/0`]);
    expect(await mock.exit).toBe(2);
    expect(mock.output()).toBe(`error: cannot use Redis at redis://127.0.0.1:${port}/0: ECONNREFUSED\n`);
  }, 30_000);

  it('exits 2 with one line for a malformed MOCK_STORE, never printing its password', async () => {
    const mock = spawnMock([], { MOCK_STORE: 'redis://:hunter2@127.0.0.1:6379/db0' });
    expect(await mock.exit).toBe(2);
    expect(mock.output()).toBe(
      'error: MOCK_STORE has a database that is not a number: redis://:***@127.0.0.1:6379/db0; expected redis://host:port/db, e.g. redis://127.0.0.1:6379/0\n',
    );
  }, 30_000);
});

describe.skipIf(missing !== undefined)(`mock processes on one Redis${missing ? ` (${missing})` : ''}`, () => {
  let redis: RedisServer;
  let a: Replica;
  let b: Replica;
  let fixtures: { tokens: Record<string, string>; projects: Record<string, string>; goals: Record<string, string>; people: Record<string, string> };
  beforeAll(async () => {
    redis = await startRedis();
    [a, b] = await Promise.all([
      startReplica(['--store', redis.url, '--store-prefix', 'replicas']),
      startReplica(['--store', redis.url, '--store-prefix', 'replicas']),
    ]);
    const raw = json(await (await fetch(`${a.url}/__mock/fixtures`)).text());
    const strings = (key: string): Record<string, string> =>
      Object.fromEntries(Object.entries(isObject(raw[key]) ? raw[key] : {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
    fixtures = { tokens: strings('tokens'), projects: strings('projects'), goals: strings('goals'), people: strings('people') };
  }, 120_000);
  afterAll(async () => {
    for (const replica of [a, b]) replica?.child.kill('SIGKILL');
    await redis?.stop();
  });

  const headers = (session: string): Record<string, string> => ({
    'content-type': 'application/json',
    authorization: `Bearer ${fixtures.tokens['full_access']}`,
    'x-mock-session': session,
  });
  const marker = (i: number): string => `write ${i};`;

  it('200 concurrent writes spread over both replicas leave the state and journals of one serial order', async () => {
    const session = 'race';
    const carol = fixtures.people['comment_only'] ?? '';
    const writes = Array.from({ length: 200 }, (_, i) => {
      const target = i % 2 === 0 ? a : b;
      const body =
        i % 4 === 0
          ? { path: RESUME, body: { project_id: fixtures.projects['paused'], message: doc(marker(i)), subscriber_ids: [carol] } }
          : i % 4 === 1
            ? { path: RESUME, body: { project_id: fixtures.projects['active'], message: doc(marker(i)) } }
            : i % 4 === 2
              ? {
                  path: CLOSE,
                  body: {
                    goal_id: fixtures.goals['open'],
                    success: i % 8 === 2 ? 'yes' : 'no',
                    success_status: i % 8 === 2 ? 'achieved' : 'missed',
                    retrospective: doc(marker(i)),
                    send_notifications_to_everyone: i % 8 === 2,
                  },
                }
              : { path: CLOSE, body: { goal_id: fixtures.goals['closed'], success: 'yes', success_status: 'achieved', retrospective: doc(marker(i)) } };
      return call(target.url, body.path, { headers: headers(session), body: JSON.stringify(body.body) });
    });
    const answers = await Promise.all(writes);
    expect(answers.map(statusOf).filter((s) => s !== 200)).toEqual([]);

    const events = list(json(textOf(await call(a.url, '/__mock/events', { method: 'GET', headers: { 'x-mock-session': session } })))['events']);
    const state = json(textOf(await call(b.url, '/__mock/state', { method: 'GET', headers: { 'x-mock-session': session } })));
    const seed = json(textOf(await call(b.url, '/__mock/state', { method: 'GET', headers: { 'x-mock-session': 'untouched' } })));
    const count = (value: Record<string, unknown>, table: string): number => list(value[table]).length;

    // Every write once, numbered 1…200 with no gap: the journal is a serial order.
    expect(events.map((e) => e['seq'])).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    // The history tables were appended in that same order, one row set per write.
    const activities = list(state['activities']).slice(count(seed, 'activities'));
    expect(activities.map((r) => r['id'])).toEqual(events.map((e) => e['activity_id']));
    for (const table of ['activities', 'comment_threads', 'subscription_lists']) expect(count(state, table), table).toBe(count(seed, table) + 200);
    expect(count(state, 'subscriptions')).toBe(count(seed, 'subscriptions') + events.reduce((n, e) => n + list(e['subscriptions']).length, 0));
    expect(count(state, 'notifications')).toBe(count(seed, 'notifications') + events.reduce((n, e) => n + list(e['notified']).length, 0));
    expect(events.reduce((n, e) => n + list(e['notified']).length, 0)).toBeGreaterThan(50);
    const threads = list(state['comment_threads']).map((t) => JSON.stringify(t['message']));
    for (let i = 0; i < 200; i++)
      expect(
        threads.filter((t) => t.includes(`"${marker(i)}"`)),
        marker(i),
      ).toHaveLength(1);

    // The records hold what the last write of that order left: the open goal's outcome is its last close's.
    const open = list(seed['goals']).find((g) => g['closed_at'] === null)?.['uuid'];
    const lastClose = activities.findLast((r) => r['action'] === 'goal_closing' && r['goal_uuid'] === open);
    const goal = list(state['goals']).find((g) => g['uuid'] === open);
    const content = isObject(lastClose?.['content']) ? lastClose['content'] : {};
    expect(content['success']).toBeDefined();
    expect([goal?.['success'], goal?.['success_status']]).toEqual([content['success'], content['success_status']]);
    expect(list(state['projects']).map((p) => p['stored_status'])).toEqual(['active', 'active', 'closed']);

    // The request journal has every write, each with its own seq.
    const journal = list(json(textOf(await call(b.url, '/__mock/requests?limit=500', { method: 'GET', headers: { 'x-mock-session': session } })))['requests']);
    expect(journal).toHaveLength(200);
    expect(new Set(journal.map((r) => r['seq'])).size).toBe(200);
  }, 120_000);

  it('a replica killed with SIGKILL under load loses no write it answered 200', async () => {
    const session = 'kill';
    const total = 240;
    const outcomes: Array<{ replica: 'a' | 'b'; answer: Answer }> = [];
    let next = 0;
    let killed = false;
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const replica = i % 2 === 0 ? 'a' : 'b';
        const answer = await call(replica === 'a' ? a.url : b.url, RESUME, {
          headers: headers(session),
          body: JSON.stringify({ project_id: fixtures.projects['paused'], message: doc(marker(i)) }),
        });
        outcomes[i] = { replica, answer };
        if (!killed && outcomes.filter(Boolean).length >= 60) {
          killed = true;
          a.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await a.exit;

    const answered = outcomes.flatMap((o, i) => ('status' in o.answer && o.answer.status === 200 ? [i] : []));
    // Not vacuous: the killed replica answered writes before it died, and refused some after.
    expect(outcomes.some((o) => o.replica === 'a' && 'status' in o.answer && o.answer.status === 200)).toBe(true);
    expect(outcomes.some((o) => o.replica === 'a' && 'error' in o.answer)).toBe(true);
    expect(
      outcomes
        .filter((o) => o.replica === 'b')
        .map((o) => statusOf(o.answer))
        .filter((s) => s !== 200),
    ).toEqual([]);

    const state = json(textOf(await call(b.url, '/__mock/state', { method: 'GET', headers: { 'x-mock-session': session } })));
    const threads = list(state['comment_threads']).map((t) => JSON.stringify(t['message']));
    for (const i of answered)
      expect(
        threads.filter((t) => t.includes(`"${marker(i)}"`)),
        marker(i),
      ).toHaveLength(1);
    // A write the killed replica never answered was applied once or not at all, never twice.
    for (let i = 0; i < total; i++) expect(threads.filter((t) => t.includes(`"${marker(i)}"`)).length, marker(i)).toBeLessThanOrEqual(1);
    const events = list(json(textOf(await call(b.url, '/__mock/events', { method: 'GET', headers: { 'x-mock-session': session } })))['events']);
    expect(events.map((e) => e['seq'])).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    expect(events.length).toBe(threads.length - 1);
  }, 120_000);
});

describe.skipIf(missing !== undefined)(`a mock whose Redis goes away${missing ? ` (${missing})` : ''}`, () => {
  let redis: RedisServer;
  let mock: Replica;
  let fixtures: Record<string, unknown>;
  beforeAll(async () => {
    redis = await startRedis();
    mock = await startReplica(['--store', `${redis.url}?timeout=1000`, '--store-prefix', 'faults']);
    fixtures = json(await (await fetch(`${mock.url}/__mock/fixtures`)).text());
  }, 120_000);
  afterAll(async () => {
    mock?.child.kill('SIGKILL');
    await redis?.stop();
  });

  const write = (): Promise<Answer> => {
    const tokens = isObject(fixtures['tokens']) ? fixtures['tokens'] : {};
    const goals = isObject(fixtures['goals']) ? fixtures['goals'] : {};
    return call(mock.url, CLOSE, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${String(tokens['full_access'])}` },
      body: JSON.stringify({ goal_id: goals['open'], success: 'yes', success_status: 'achieved', retrospective: doc('x') }),
    });
  };
  /** Writes until one is 200 (the mock recovered on its own), at most `seconds`. */
  async function recovered(seconds: number): Promise<Answer[]> {
    const seen: Answer[] = [];
    const deadline = Date.now() + seconds * 1000;
    while (Date.now() < deadline) {
      const answer = await write();
      seen.push(answer);
      if ('status' in answer && answer.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return seen;
  }
  const isUnavailable = (answer: Answer, reason: RegExp): boolean =>
    'status' in answer &&
    answer.status === 503 &&
    !answer.text.includes('\n') &&
    reason.test(String(json(answer.text)['message'])) &&
    json(answer.text)['error'] === 'Mock store unavailable';

  it('answers 503 while Redis is stopped under load, and 200 again once it is back, without a restart', async () => {
    expect(statusOf(await write())).toBe(200);
    // Load from 4 clients while Redis is killed and, a moment later, started again (empty: the seed goes back in).
    type Phase = 'up' | 'stopping' | 'down' | 'starting' | 'back';
    const phases: Array<{ phase: Phase; answer: Answer }> = [];
    let phase: Phase = 'up';
    let stop = false;
    const client = async (): Promise<void> => {
      while (!stop) {
        const sentIn = phase;
        const answer = await write();
        // Only a request sent and answered within one phase says what that phase answers.
        if (sentIn === phase) phases.push({ phase, answer });
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await new Promise((resolve) => setTimeout(resolve, 300));
    phase = 'stopping';
    await redis.kill();
    phase = 'down';
    await new Promise((resolve) => setTimeout(resolve, 1500));
    phase = 'starting';
    await redis.start();
    phase = 'back';
    await new Promise((resolve) => setTimeout(resolve, 2500));
    stop = true;
    await Promise.all(clients);

    const down = phases.filter((p) => p.phase === 'down').map((p) => p.answer);
    expect(down.length).toBeGreaterThan(0);
    expect(down.filter((answer) => !isUnavailable(answer, /is unreachable/))).toEqual([]);
    expect(
      phases
        .filter((p) => p.phase === 'up')
        .map((p) => statusOf(p.answer))
        .filter((s) => s !== 200),
    ).toEqual([]);
    const back = phases.filter((p) => p.phase === 'back').map((p) => statusOf(p.answer));
    expect(back.every((s) => s === 200 || s === 503)).toBe(true);
    expect(back.at(-1)).toBe(200);
    expect(mock.child.exitCode).toBeNull();
  }, 60_000);

  it('answers 503 within its command timeout while Redis is frozen (SIGSTOP), and 200 again once it runs (SIGCONT)', async () => {
    expect(statusOf((await recovered(10)).at(-1) ?? { error: 'none', ms: 0 })).toBe(200);
    redis.process().kill('SIGSTOP');
    try {
      const first = await write();
      expect(isUnavailable(first, /did not answer within 1000 ms|is unreachable/), JSON.stringify(first)).toBe(true);
      const more = await Promise.all([write(), write(), write()]);
      expect(more.filter((answer) => !isUnavailable(answer, /did not answer within 1000 ms|is unreachable/))).toEqual([]);
    } finally {
      redis.process().kill('SIGCONT');
    }
    const after = await recovered(15);
    expect(after.map(statusOf).filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statusOf(after.at(-1) ?? { error: 'none', ms: 0 })).toBe(200);
    expect(mock.child.exitCode).toBeNull();
  }, 60_000);
});
