// A queued scenario lives and dies with its session, in memory and in Redis alike: a session in
// use keeps its queue however many other sessions queue theirs (a scenario is used when it is taken, as its session
// is), the session's eviction drops its queue, and a session made again under the same name inherits nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeed } from '../src/index.ts';
import { openRedisSessions, type RedisSessions } from '../src/storage/redisSessions.ts';
import { seedFixtures } from './behaviour.ts';
import { RESUME, doc, startMock, type RunningMock } from './http.ts';
import { redisMissing, startRedis, type RedisServer } from './redisServer.ts';

const missing = redisMissing();
const NOW = () => new Date('2025-06-18T10:30:00Z');
const MAX_SESSIONS = 3;

/** The checks, on a mock that keeps at most MAX_SESSIONS named sessions. */
async function livesWithItsSession(mock: RunningMock, tag: string): Promise<void> {
  const fixtures = seedFixtures();
  const live = `${tag}-live`;
  const queue = (session: string, times: number) =>
    mock.send({
      path: '/__mock/scenarios',
      headers: { 'content-type': 'application/json', 'x-mock-session': session },
      body: JSON.stringify({ operation: 'resumeProject', prefer: 'code=500', times }),
    });
  // The no-access persona's resume is 404 unless a scenario answers it, and changes nothing.
  const resume = async (session: string): Promise<number> =>
    (
      await mock.send({
        path: RESUME,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens.no_access}`, 'x-mock-session': session },
        body: JSON.stringify({ project_id: fixtures.projects.paused, message: doc('x') }),
      })
    ).status;
  const remaining = async (session: string): Promise<number[]> => {
    const listed = (await mock.send({ method: 'GET', path: '/__mock/scenarios', headers: { 'x-mock-session': session } })).json();
    return (listed as { scenarios: Array<{ remaining: number }> }).scenarios.map((s) => s.remaining);
  };

  expect((await queue(live, 1000)).status).toBe(201);
  expect([await resume(live), await resume(live)]).toEqual([500, 500]);
  // Other sessions queue theirs, twice as many as the mock keeps, while the live one goes on being used: it stays.
  for (let i = 0; i < 2 * MAX_SESSIONS; i++) {
    expect((await queue(`${tag}-other-${i}`, 1)).status).toBe(201);
    expect(await resume(live), `after ${tag}-other-${i}`).toBe(500);
  }
  expect(await remaining(live)).toEqual([1000 - 2 - 2 * MAX_SESSIONS]);
  // Left unused while as many other sessions are made as the mock keeps: it is evicted, and its queue with it.
  for (let i = 0; i < MAX_SESSIONS; i++) expect((await queue(`${tag}-later-${i}`, 1)).status).toBe(201);
  expect(await remaining(live)).toEqual([]);
  // Made again under the same name, it starts from the seed with no scenario.
  expect(await resume(live)).toBe(404);
  expect(await remaining(live)).toEqual([]);
  // The evicted session's reset too: a reset session starts with no scenario.
  const reset = `${tag}-reset`;
  expect((await queue(reset, 5)).status).toBe(201);
  expect((await mock.send({ method: 'POST', path: '/__mock/reset', headers: { 'x-mock-session': reset } })).status).toBe(200);
  expect(await remaining(reset)).toEqual([]);
  expect(await resume(reset)).toBe(404);
}

describe('scenarios live and die with their session', () => {
  it('in memory (--max-sessions)', async () => {
    const mock = await startMock({ now: NOW, maxSessions: MAX_SESSIONS });
    try {
      await livesWithItsSession(mock, 'memory');
    } finally {
      await mock.close();
    }
  });

  it('in memory: the byte budget that drops a session drops its queue', async () => {
    const mock = await startMock({ now: NOW, maxSessions: 10_000, maxTotalBytes: 100_000 });
    try {
      const queued = await mock.send({
        path: '/__mock/scenarios',
        headers: { 'content-type': 'application/json', 'x-mock-session': 'budget-first' },
        body: JSON.stringify({ operation: 'closeGoal', prefer: 'code=500', times: 3 }),
      });
      expect(queued.status).toBe(201);
      // Reading sessions are about 0.7 KB each (their record and journal): 300 push the first one out of 100 KB.
      for (let i = 0; i < 300; i++) await mock.send({ method: 'GET', path: '/__mock/events', headers: { 'x-mock-session': `budget-${i}` } });
      const sessions = (await mock.send({ method: 'GET', path: '/__mock/sessions' })).json() as { sessions: Array<{ name: string }> };
      expect(sessions.sessions.map((s) => s.name)).not.toContain('budget-first');
      const listed = await mock.send({ method: 'GET', path: '/__mock/scenarios', headers: { 'x-mock-session': 'budget-first' } });
      expect(listed.json()).toEqual({ scenarios: [] });
    } finally {
      await mock.close();
    }
  }, 60_000);
});

describe.skipIf(missing !== undefined)(`scenarios live and die with their session in Redis${missing ? ` (${missing})` : ''}`, () => {
  let redis: RedisServer;
  let sessions: RedisSessions;
  let mock: RunningMock;
  beforeAll(async () => {
    redis = await startRedis();
    const seed = defaultSeed();
    sessions = await openRedisSessions(redis.url, { seed, prefix: 'lifetime', maxSessions: MAX_SESSIONS, storeOptions: { now: NOW } });
    mock = await startMock({ seed, now: NOW, sessions });
  });
  afterAll(async () => {
    await mock?.close();
    await sessions?.close();
    await redis?.stop();
  });

  it('--store (the sessions index)', async () => {
    await livesWithItsSession(mock, 'redis');
  });
});
