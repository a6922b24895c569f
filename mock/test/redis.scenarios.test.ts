// Failure a frontend can rehearse, on replicas sharing one Redis: the cases of rehearsal.ts with every
// request sent to the other replica than the one before (a scenario queued through one is consumed through the
// other; a reset through one drops what the other queued), and a scenario consumed exactly `times` times however many
// requests reach the replicas at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeed } from '../src/index.ts';
import { openRedisSessions, type RedisSessions } from '../src/storage/redisSessions.ts';
import { seedFixtures } from './behaviour.ts';
import { RESUME, doc, send, startMock, type RunningMock, type Sent } from './http.ts';
import { redisMissing, startRedis, type RedisServer } from './redisServer.ts';
import { rehearsalCases, type Attempt } from './rehearsal.ts';

const missing = redisMissing();
const NOW = () => new Date('2025-06-18T10:30:00Z');

async function attempt(port: number, sent: Sent): Promise<Attempt> {
  try {
    const answer = await send(port, sent);
    const headers = Object.fromEntries(Object.entries(answer.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
    return { status: answer.status, headers, text: answer.text };
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}

describe.skipIf(missing !== undefined)(`scenarios and faults on two replicas of one Redis${missing ? ` (${missing})` : ''}`, () => {
  let redis: RedisServer;
  const opened: RedisSessions[] = [];
  let replicas: RunningMock[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    const seed = defaultSeed();
    for (let i = 0; i < 2; i++) {
      const sessions = await openRedisSessions(redis.url, { seed, prefix: 'rehearsal', storeOptions: { now: NOW } });
      opened.push(sessions);
      replicas.push(await startMock({ seed, now: NOW, sessions, maxDelay: 50 }));
    }
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await Promise.all(opened.map((s) => s.close()));
    await redis?.stop();
    replicas = [];
  });

  let turn = 0;
  const alternating = (sent: Sent): Promise<Attempt> => attempt(replicas[turn++ % 2]?.port ?? 0, sent);
  it.each(rehearsalCases(seedFixtures()).map((c, i) => [c.name, c, i] as const))('%s', async (_name, rehearsal, i) => {
    await rehearsal.run(alternating, `replicas-${i}`);
  });

  it('a scenario queued through one replica answers exactly `times` of 60 concurrent requests spread over both', async () => {
    const fixtures = seedFixtures();
    // The no-access persona's resume is 404 whenever no scenario answers it, and changes nothing: every request
    // counts, none depends on another.
    const resume: Sent = {
      path: RESUME,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens.no_access}`, 'x-mock-session': 'race' },
      body: JSON.stringify({ project_id: fixtures.projects.paused, message: doc('x') }),
    };
    for (const times of [1, 7, 59]) {
      const queued = await attempt(replicas[0]?.port ?? 0, {
        path: '/__mock/scenarios',
        headers: { 'content-type': 'application/json', 'x-mock-session': 'race' },
        body: JSON.stringify({ operation: 'resumeProject', prefer: 'code=500', times }),
      });
      expect('status' in queued && queued.status).toBe(201);
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => attempt(replicas[i % 2]?.port ?? 0, resume)));
      const statuses = answers.map((a) => ('status' in a ? a.status : a.failed));
      expect(
        statuses.filter((s) => s === 500),
        `times ${times}`,
      ).toHaveLength(times);
      expect(
        statuses.filter((s) => s === 404),
        `times ${times}`,
      ).toHaveLength(60 - times);
      const left = await attempt(replicas[1]?.port ?? 0, { method: 'GET', path: '/__mock/scenarios', headers: { 'x-mock-session': 'race' } });
      expect('text' in left && JSON.parse(left.text)).toEqual({ scenarios: [] });
    }
  }, 60_000);
});
