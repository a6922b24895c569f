// The sessions in Redis, in process: the --store URL, the shared behaviour table on two replicas of one
// Redis driven alternately (every answer the same as one in-memory mock gives), eviction and reset across replicas,
// and the 503 when the store is gone. Replica processes, concurrency and faults: redis.processes.test.ts.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject, listOperations, responseSchemaPointer } from '../../spec/lib/openapi.ts';
import { createSchemaValidator, formatErrors } from '../../spec/lib/ajv.ts';
import { createMockApp, defaultSeed, type MockOptions } from '../src/index.ts';
import { openRedisSessions, type RedisSessions } from '../src/storage/redisSessions.ts';
import { parseStoreUrl } from '../src/storage/redisStoreUrl.ts';
import { EVENT_JOURNAL_LIMIT } from '../src/storage/store.ts';
import { behaviourTable, runCase, seedFixtures, type Exchange, type Transport } from './behaviour.ts';
import { CLOSE, RESUME, doc, send, type Sent } from './http.ts';
import { redisMissing, startRedis, type RedisServer } from './redisServer.ts';

describe('--store URL', () => {
  it.each([
    ['redis://127.0.0.1:6379/0', { host: '127.0.0.1', port: 6379, db: 0 }, 2000],
    ['redis://localhost', { host: 'localhost', port: 6379, db: 0 }, 2000],
    ['redis://cache.internal:6380/3?timeout=500', { host: 'cache.internal', port: 6380, db: 3 }, 500],
    ['redis://[::1]:6379/1', { host: '::1', port: 6379, db: 1 }, 2000],
    ['rediss://user:p%40ss@redis.example:6380/0', { host: 'redis.example', port: 6380, db: 0, username: 'user', password: 'p@ss' }, 2000],
  ])('reads %s', (url, expected, timeoutMs) => {
    const parsed = parseStoreUrl(url);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.target.options).toMatchObject(expected);
    expect(parsed.target.timeoutMs).toBe(timeoutMs);
    expect(parsed.target.shown).not.toContain('p%40ss');
  });

  it.each([
    [
      'http://127.0.0.1:6379/0',
      '--store must be a redis:// or rediss:// URL, got http://127.0.0.1:6379/0; expected redis://host:port/db, e.g. redis://127.0.0.1:6379/0',
    ],
    ['127.0.0.1:6379', '--store is not a URL: "127.0.0.1:6379"; expected redis://host:port/db, e.g. redis://127.0.0.1:6379/0'],
    ['localhost:6379', '--store must be a redis:// or rediss:// URL, got localhost:6379; expected redis://host:port/db, e.g. redis://127.0.0.1:6379/0'],
    ['not a url', '--store is not a URL: "not a url"; expected redis://host:port/db, e.g. redis://127.0.0.1:6379/0'],
    [
      'redis://:secret@127.0.0.1:6379/zero',
      '--store has a database that is not a number: redis://:***@127.0.0.1:6379/zero; expected redis://host:port/db, e.g. redis://127.0.0.1:6379/0',
    ],
    [
      'redis://127.0.0.1:6379/0?db=1',
      '--store has an unknown parameter "db" (only timeout=MS): redis://127.0.0.1:6379/0?db=1; expected redis://host:port/db, e.g. redis://127.0.0.1:6379/0',
    ],
    [
      'redis://127.0.0.1:6379/0?timeout=0',
      '--store timeout must be 50 to 60000 ms: redis://127.0.0.1:6379/0?timeout=0; expected redis://host:port/db, e.g. redis://127.0.0.1:6379/0',
    ],
  ])('refuses %s in one line that never shows a password', (url, message) => {
    expect(parseStoreUrl(url)).toEqual({ ok: false, message });
  });
});

const missing = redisMissing();

/** UUIDs in a fixed order (random-looking, as the spec's id patterns want), so two mocks that make the same writes make the same ids. */
function sequentialIds(): () => string {
  let n = 0;
  return () => {
    const hex = createHash('sha256').update(String(++n)).digest('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
}

type Listening = { port: number; close(): Promise<void> };

async function listen(options: MockOptions): Promise<Listening> {
  const server = createMockApp(options).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** An answer as two mocks can share it: no Date, no per-process request id, no timing (nor the length it changes). */
function comparable(exchange: Exchange): unknown {
  const { date: _date, 'x-request-id': requestId, connection: _connection, 'keep-alive': _keepAlive, 'content-length': _length, ...headers } = exchange.headers;
  return {
    status: exchange.status,
    headers: { ...headers, 'x-request-id': requestId !== undefined },
    text: exchange.text.replace(/"duration_ms":\d+/g, '"duration_ms":0'),
  };
}

const received = async (port: number, sent: Sent): Promise<Exchange> => {
  const answer = await send(port, sent);
  return {
    status: answer.status,
    headers: Object.fromEntries(Object.entries(answer.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v])),
    text: answer.text,
  };
};

describe.skipIf(missing !== undefined)(`two mocks on one Redis${missing ? ` (${missing})` : ''}`, () => {
  let redis: RedisServer;
  const opened: RedisSessions[] = [];
  const servers: Listening[] = [];
  const open = async (prefix: string, options: Parameters<typeof openRedisSessions>[1]): Promise<RedisSessions> => {
    const sessions = await openRedisSessions(redis.url, { ...options, prefix });
    opened.push(sessions);
    return sessions;
  };
  const serve = async (options: MockOptions): Promise<Listening> => {
    const server = await listen(options);
    servers.push(server);
    return server;
  };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all(opened.map((s) => s.close()));
    await redis?.stop();
  });

  describe('the shared behaviour table, alternating between the replicas, answers as one in-memory mock', () => {
    const table = behaviourTable(seedFixtures());
    const now = () => new Date('2025-06-13T10:00:00Z');
    let replicas: Listening[] = [];
    let memory: Listening;
    beforeAll(async () => {
      // The replicas draw ids from one sequence, as one process would; the in-memory mock from its own.
      const seed = defaultSeed();
      const newId = sequentialIds();
      const base = { seed, now, newId, bodyLimit: 4096 };
      replicas = [
        await serve({ ...base, sessions: await open('table', { seed, storeOptions: { now, newId } }) }),
        await serve({ ...base, sessions: await open('table', { seed, storeOptions: { now, newId } }) }),
      ];
      memory = await serve({ now, newId: sequentialIds(), bodyLimit: 4096 });
    });
    let turn = 0;
    it('gives the same answers to the whole table sent as one sequence in one session', async () => {
      const requests = table.flatMap((c) => c.requests);
      const fromMemory = await runCase((sent) => received(memory.port, sent), { name: 'all', requests, check: () => undefined }, 'one-session');
      const fromReplicas = await runCase(
        (sent) => received(replicas[turn++ % 2]?.port ?? 0, sent),
        { name: 'all', requests, check: () => undefined },
        'one-session',
      );
      expect(fromReplicas.filter((a) => a.status === 200).length).toBeGreaterThan(20);
      expect(fromReplicas.map(comparable)).toEqual(fromMemory.map(comparable));
    }, 120_000);
    it.each(table.map((c, i) => [c.name, c, i] as const))('%s', async (_name, behaviour, i) => {
      const fromMemory = await runCase((sent) => received(memory.port, sent), behaviour, `case-${i}`);
      const alternating: Transport = (sent) => received(replicas[turn++ % 2]?.port ?? 0, sent);
      const fromReplicas = await runCase(alternating, behaviour, `case-${i}`);
      behaviour.check(fromReplicas);
      expect(fromReplicas.map(comparable)).toEqual(fromMemory.map(comparable));
    });
  });

  describe('the same answers where the history matters: a notification another person caused is listed to its recipient', () => {
    it('answers a sequence of writes by two people, the session list and the journals as the in-memory mock does', async () => {
      const fixtures = seedFixtures();
      const now = () => new Date('2025-06-13T10:00:00Z');
      const seed = defaultSeed();
      const newId = sequentialIds();
      const base = { seed, now, newId };
      const replicas = [
        await serve({ ...base, sessions: await open('history', { seed, storeOptions: { now, newId } }) }),
        await serve({ ...base, sessions: await open('history', { seed, storeOptions: { now, newId } }) }),
      ];
      const memory = await serve({ now, newId: sequentialIds() });
      const token = (persona: string): string => fixtures.tokens[persona] ?? '';
      const json = (path: string, body: unknown, persona: string, session = 'history'): Sent => ({
        path,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token(persona)}`, 'x-mock-session': session },
        body: JSON.stringify(body),
      });
      const get = (path: string, session = 'history'): Sent => ({ method: 'GET', path, headers: { 'x-mock-session': session } });
      const comment = fixtures.people['comment_only'] ?? '';
      const sequence: Sent[] = [
        // Alice closes the goal for everyone and subscribes Carol: Carol is notified …
        json(
          CLOSE,
          {
            goal_id: fixtures.goals['open'],
            success: 'yes',
            success_status: 'achieved',
            retrospective: doc('Done, thanks ', { id: comment, label: 'Carol' }),
            send_notifications_to_everyone: true,
            subscriber_ids: [comment],
          },
          'full_access',
        ),
        // … and resumes the paused project mentioning Carol, who can see it: notified again.
        json(
          RESUME,
          { project_id: fixtures.projects['paused'], message: doc('Back on, ', { id: comment, label: 'Carol' }), subscriber_ids: [comment] },
          'full_access',
        ),
        json(RESUME, { project_id: fixtures.projects['active'], message: doc('Go.') }, 'full_access', 'other'),
        json(CLOSE, { goal_id: fixtures.goals['open'], success: 'no', success_status: 'missed', retrospective: doc('Undone.') }, 'comment_only'),
        json(RESUME, { project_id: fixtures.projects['paused'], message: doc('Again.') }, 'full_access'),
        get('/__mock/state'),
        get('/__mock/events'),
        get('/__mock/events?since=1'),
        get('/__mock/requests?limit=3'),
        get('/__mock/fixtures'),
        { method: 'POST', path: '/__mock/reset', headers: { 'x-mock-session': 'other' } },
        get('/__mock/state', 'other'),
      ];
      let turn = 0;
      for (const sent of sequence) {
        const fromMemory = await received(memory.port, sent);
        const fromReplica = await received(replicas[turn++ % 2]?.port ?? 0, sent);
        expect(comparable(fromReplica), `${sent.method ?? 'POST'} ${sent.path}`).toEqual(comparable(fromMemory));
      }
      const sessions = async (port: number) => (await received(port, get('/__mock/sessions'))).text.replace(/"created_at":"[^"]+"/g, '');
      expect(await sessions(replicas[0]?.port ?? 0)).toBe(await sessions(memory.port));
      expect(await sessions(replicas[1]?.port ?? 0)).toBe(await sessions(memory.port));
    });
  });

  describe('sessions across replicas', () => {
    it('keeps at most maxSessions named sessions between them, dropping the least recently used (and never the default)', async () => {
      const seed = defaultSeed();
      const a = await serve({ seed, sessions: await open('evict', { seed, maxSessions: 2 }) });
      const b = await serve({ seed, sessions: await open('evict', { seed, maxSessions: 2 }) });
      const fixtures = seedFixtures();
      const resume = (session: string): Sent => ({
        path: RESUME,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}`, 'x-mock-session': session },
        body: JSON.stringify({ project_id: fixtures.projects['paused'], message: doc('x') }),
      });
      const state = async (port: number, session: string): Promise<unknown> =>
        JSON.parse((await received(port, { method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': session } })).text);
      expect((await received(a.port, resume('one'))).status).toBe(200);
      await state(b.port, 'default');
      await state(b.port, 'two');
      await state(a.port, 'one');
      await state(b.port, 'three');
      const listed = JSON.parse((await received(a.port, { method: 'GET', path: '/__mock/sessions' })).text);
      expect(isObject(listed) && Array.isArray(listed['sessions']) ? listed['sessions'].map((s: unknown) => (isObject(s) ? s['name'] : null)) : null).toEqual([
        'default',
        'one',
        'three',
      ]);
      expect(await state(b.port, 'one')).toMatchObject({ projects: [{ stored_status: 'active' }, {}, {}] });
    });

    it('resets one session or all of them for every replica', async () => {
      const seed = defaultSeed();
      const a = await serve({ seed, sessions: await open('reset', { seed }) });
      const b = await serve({ seed, sessions: await open('reset', { seed }) });
      const fixtures = seedFixtures();
      const resume = (session: string): Sent => ({
        path: RESUME,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}`, 'x-mock-session': session },
        body: JSON.stringify({ project_id: fixtures.projects['paused'], message: doc('x') }),
      });
      const stored = async (port: number, session: string): Promise<unknown> => {
        const value: unknown = JSON.parse((await received(port, { method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': session } })).text);
        return isObject(value) && Array.isArray(value['projects']) && isObject(value['projects'][0]) ? value['projects'][0]['stored_status'] : undefined;
      };
      await received(a.port, resume('r1'));
      await received(a.port, resume('r2'));
      expect([await stored(b.port, 'r1'), await stored(b.port, 'r2')]).toEqual(['active', 'active']);
      expect((await received(b.port, { method: 'POST', path: '/__mock/reset', headers: { 'x-mock-session': 'r1' } })).text).toBe('{"reset":"r1"}');
      expect([await stored(a.port, 'r1'), await stored(a.port, 'r2')]).toEqual(['paused', 'active']);
      expect((await received(b.port, { method: 'POST', path: '/__mock/reset?all=true' })).text).toBe('{"reset":"all"}');
      expect(await stored(a.port, 'r2')).toBe('paused');
    });

    it('puts the seed back when Redis lost it (flushed), and goes on', async () => {
      const seed = defaultSeed();
      const sessions = await open('flushed', { seed });
      const a = await serve({ seed, sessions });
      const fixtures = seedFixtures();
      const { Redis } = await import('ioredis');
      const admin = new Redis(redis.port, '127.0.0.1');
      await admin.flushall();
      await admin.quit();
      const answer = await received(a.port, {
        path: RESUME,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}` },
        body: JSON.stringify({ project_id: fixtures.projects['paused'], message: doc('x') }),
      });
      expect(answer.status).toBe(200);
    });
  });

  describe('large writes', () => {
    it('stores a close that notifies 9,000 space members (more rows than Lua unpacks at once), trimmed to the history limit as in memory', async () => {
      const seed = defaultSeed();
      const space = seed.state.spaces[0];
      const model = seed.state.people[0];
      if (!space || !model) throw new Error('the seed has no space or person');
      for (let i = 0; i < 9000; i++) {
        const uuid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
        seed.state.people.push({ ...model, uuid, full_name: `Member ${i}`, email: `member${i}@example.com`, company_admin: false, suspended: false });
        space.member_uuids.push(uuid);
      }
      const fixtures = seedFixtures();
      const close: Sent = {
        path: CLOSE,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}` },
        body: JSON.stringify({
          goal_id: fixtures.goals['open'],
          success: 'yes',
          success_status: 'achieved',
          retrospective: doc('Done.'),
          send_notifications_to_everyone: true,
        }),
      };
      const shared = await serve({ seed, sessions: await open('large', { seed }) });
      const memory = await serve({ seed: structuredClone(seed) });
      const notifications = async (port: number): Promise<number> => {
        expect((await received(port, close)).status).toBe(200);
        const state: unknown = JSON.parse((await received(port, { method: 'GET', path: '/__mock/state' })).text);
        return isObject(state) && Array.isArray(state['notifications']) ? state['notifications'].length : -1;
      };
      const stored = await notifications(shared.port);
      expect(stored).toBe(await notifications(memory.port));
      expect(stored).toBe(EVENT_JOURNAL_LIMIT);
    });
  });

  describe('when Redis is gone', () => {
    it('answers API and control requests with the one-line 503 that mock/openapi.yaml documents, and recovers when it is back', async () => {
      const seed = defaultSeed();
      const own = await startRedis();
      const sessions = await openRedisSessions(own.url, { seed, prefix: 'gone' });
      opened.push(sessions);
      const a = await serve({ seed, sessions });
      const fixtures = seedFixtures();
      const resume: Sent = {
        path: RESUME,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}` },
        body: JSON.stringify({ project_id: fixtures.projects['paused'], message: doc('x') }),
      };
      expect((await received(a.port, resume)).status).toBe(200);
      await own.kill();
      const api = await received(a.port, resume);
      const control = await received(a.port, { method: 'GET', path: '/__mock/state' });
      const unreadable = await received(a.port, { ...resume, body: '{' });
      for (const answer of [api, control]) {
        expect(answer.status).toBe(503);
        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(answer.text.split('\n')).toHaveLength(1);
        expect(JSON.parse(answer.text)).toEqual({
          error: 'Mock store unavailable',
          message: expect.stringMatching(
            /^The mock's shared store: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 is unreachable \((ECONNREFUSED|connection closed)\)\. The request may or may not have been applied; retry it once the store is back\.$/,
          ),
        });
      }
      // What needs no store is answered as ever.
      expect(unreadable.status).toBe(400);

      const document: unknown = JSON.parse(readFileSync(new URL('../../generated/mock-control.json', import.meta.url), 'utf8'));
      if (!isObject(document)) throw new Error('generated/mock-control.json is not a document');
      const validator = createSchemaValidator(document);
      // Every control but the Service ones (the CLI server's probes and metrics, which need no store).
      for (const operation of listOperations(document).filter((o) => !(Array.isArray(o.operation['tags']) && o.operation['tags'].includes('Service')))) {
        const pointer = responseSchemaPointer(document, operation.pointer, 503, 'application/json');
        expect(pointer, `${operation.operationId} documents the 503`).toBeDefined();
        expect(formatErrors(validator.validate(pointer ?? '', JSON.parse(control.text))), operation.operationId).toBe('');
      }

      await own.start();
      await expectRecovery(a.port, resume);
      await own.stop();
    });

    it('answers 503 naming what Redis refused (out of memory), and 200 again once it accepts writes', async () => {
      const seed = defaultSeed();
      const sessions = await open('full', { seed });
      const a = await serve({ seed, sessions });
      const fixtures = seedFixtures();
      const resume: Sent = {
        path: RESUME,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}` },
        body: JSON.stringify({ project_id: fixtures.projects['paused'], message: doc('x') }),
      };
      const { Redis } = await import('ioredis');
      const admin = new Redis(redis.port, '127.0.0.1');
      try {
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
        await admin.config('SET', 'maxmemory', '1');
        const refused = await received(a.port, resume);
        expect(refused.status).toBe(503);
        expect(JSON.parse(refused.text)).toEqual({
          error: 'Mock store unavailable',
          message: expect.stringMatching(
            /^The mock's shared store: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 refused the command \(OOM command not allowed when used memory > 'maxmemory'\.\)\. The request may or may not have been applied; retry it once the store is back\.$/,
          ),
        });
      } finally {
        await admin.config('SET', 'maxmemory', '0');
        await admin.quit();
      }
      await expectRecovery(a.port, resume);
    });
  });

  describe('what Redis may lose, and what a session may keep', () => {
    const fixtures = seedFixtures();
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}` };
    const resume = (message: string, session = 'bytes'): Sent => ({
      path: RESUME,
      headers: { ...auth, 'x-mock-session': session },
      body: JSON.stringify({ project_id: fixtures.projects['paused'], message }),
    });

    it("refuses at start, in one line naming the fix, a Redis whose maxmemory-policy can evict the mock's keys", async () => {
      const own = await startRedis();
      const { Redis } = await import('ioredis');
      const admin = new Redis(own.port, '127.0.0.1');
      try {
        await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
        const opening = openRedisSessions(own.url, { seed: defaultSeed(), prefix: 'evicting' });
        await expect(opening).rejects.toThrow(
          `cannot use Redis at ${own.url}: its maxmemory-policy is allkeys-lru, which lets Redis evict the mock's keys and tear sessions; set it to noeviction (CONFIG SET maxmemory-policy noeviction, or "maxmemory-policy noeviction" in redis.conf)`,
        );
        // Nothing was written to it.
        expect(await admin.keys('evicting:*')).toEqual([]);
      } finally {
        await admin.quit();
        await own.stop();
      }
    });

    it('answers 503, never a wrong 200, once the policy is changed to an evicting one while it runs; and 200 again when it is back', async () => {
      const seed = defaultSeed();
      const sessions = await open('policy', { seed });
      const a = await serve({ seed, sessions });
      const { Redis } = await import('ioredis');
      const admin = new Redis(redis.port, '127.0.0.1');
      try {
        expect((await received(a.port, resume(doc('x'), 'p'))).status).toBe(200);
        await admin.config('SET', 'maxmemory-policy', 'volatile-lru');
        // The mock asks again every few seconds; the test asks now rather than wait.
        await sessions.checkEvictionPolicy();
        const refused = await received(a.port, resume(doc('y'), 'p'));
        expect(refused.status).toBe(503);
        expect(JSON.parse(refused.text)).toEqual({
          error: 'Mock store unavailable',
          message: expect.stringMatching(
            /^The mock's shared store: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 is unsafe: its maxmemory-policy is volatile-lru, which lets Redis evict/,
          ),
        });
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
        await sessions.checkEvictionPolicy();
        expect((await received(a.port, resume(doc('z'), 'p'))).status).toBe(200);
      } finally {
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
        await admin.quit();
      }
    });

    it('answers a session record that is not its JSON with a 503 that says so (Redis answered), and a reset mends it', async () => {
      const seed = defaultSeed();
      const sessions = await open('corrupt', { seed });
      const a = await serve({ seed, sessions });
      expect((await received(a.port, resume(doc('x'), 'c'))).status).toBe(200);
      const { Redis } = await import('ioredis');
      const admin = new Redis(redis.port, '127.0.0.1');
      try {
        await admin.hset('corrupt:session:{c}', 'base', '{"projects": [');
        const api = await received(a.port, resume(doc('y'), 'c'));
        const control = await received(a.port, { method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': 'c' } });
        for (const answer of [api, control]) {
          expect(answer.status).toBe(503);
          const body = JSON.parse(answer.text);
          expect(body.error).toBe('Mock store unavailable');
          expect(body.message).toMatch(
            /^The mock's shared store \(Redis\) holds the records of session "c" that is not the mock's JSON \(.+\); Redis itself answered\. Reset that session \(POST \/__mock\/reset with X-Mock-Session: c\) to start it again from the seed\.$/,
          );
          expect(body.message).not.toMatch(/unreachable/);
        }
        expect((await received(a.port, { method: 'POST', path: '/__mock/reset', headers: { 'x-mock-session': 'c' } })).status).toBe(200);
        expect((await received(a.port, resume(doc('z'), 'c'))).status).toBe(200);
      } finally {
        await admin.quit();
      }
    });

    it("keeps a session's threads within the byte budget in Redis as in memory: the same threads kept, the same 507", async () => {
      const seed = defaultSeed();
      const now = (): Date => new Date('2025-06-18T10:30:00Z');
      const options = { seed, now, maxSessionBytes: 256 * 1024 };
      const shared = await serve({ ...options, sessions: await open('budget', { seed, storeOptions: { now, maxBytes: 256 * 1024 } }) });
      const memory = await serve({ ...options, seed: structuredClone(seed) });
      const threads = async (port: number): Promise<string[]> => {
        for (let i = 0; i < 6; i++) expect((await received(port, resume(doc(String.fromCharCode(97 + i).repeat(100 * 1024))))).status).toBe(200);
        expect((await received(port, resume(doc('x'.repeat(300 * 1024))))).status).toBe(507);
        const state: unknown = JSON.parse((await received(port, { method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': 'bytes' } })).text);
        if (!isObject(state) || !Array.isArray(state['comment_threads'])) throw new Error('no comment threads in the state');
        return state['comment_threads'].map((t: unknown) => JSON.stringify(isObject(t) ? t['message'] : t).slice(0, 100));
      };
      const fromRedis = await threads(shared.port);
      expect(fromRedis).toEqual(await threads(memory.port));
      expect(fromRedis.filter((t) => t.includes('"text":"eee') || t.includes('"text":"fff'))).toHaveLength(2);
      expect(fromRedis.filter((t) => /"text":"(aaa|bbb|ccc|ddd)/.test(t))).toHaveLength(0);
      const { Redis } = await import('ioredis');
      const admin = new Redis(redis.port, '127.0.0.1');
      try {
        const costs = (await admin.lrange('budget:session:{bytes}:comment_threads:bytes', 0, -1)).map(Number);
        expect(costs).toHaveLength(await admin.llen('budget:session:{bytes}:comment_threads'));
        expect(Number(await admin.hget('budget:session:{bytes}', 'tb'))).toBe(costs.reduce((a, b) => a + b, 0));
        expect(Number(await admin.hget('budget:session:{bytes}', 'tb'))).toBeLessThanOrEqual(256 * 1024);
      } finally {
        await admin.quit();
      }
    });
  });
});

/** Sends the request until it is answered 200 (the mock recovered on its own), for at most 10 s. */
async function expectRecovery(port: number, sent: Sent): Promise<void> {
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = (await received(port, sent)).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(status).toBe(200);
}
