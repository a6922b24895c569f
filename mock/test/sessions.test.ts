// What a session costs: a session that only reads shares the seed's state (copy on write: its own
// copy is made at its first write that changes something), and the byte budget counts everything a session holds
// (its record, its request journal, its copy of the seed and its history), so the bound holds for any mix of reads
// and writes.
import { describe, expect, it } from 'vitest';
import { createMockCore } from '../src/core/core.ts';
import { fixturesOf } from '../src/core/controls.ts';
import { defaultSeed } from '../src/domain/seed.ts';
import { MemorySessions, SESSION_BYTES, type RequestRecord } from '../src/storage/sessions.ts';
import { measureDocument } from '../src/domain/rules.ts';
import type { Principal } from '../src/domain/security.ts';
import { resumeProjectWrite } from '../src/operations/resumeProject.ts';

const NOW = new Date('2025-06-13T10:00:00Z');
const options = { now: () => NOW };
const seed = defaultSeed();
const fixtures = fixturesOf(seed, seed.state);
const RESUME = 'http://127.0.0.1/api/external/v1/projects/resume';
const entry: RequestRecord = { at: NOW.toISOString(), method: 'GET', path: '/__mock/events', status: 200, operation: null, duration_ms: 1 };

/** The principal of the full-access token, as the core's step 6 finds it. */
function fullAccess(sessions: MemorySessions): Principal {
  const principal = sessions.read('probe', (store) => store.authenticate(fixtures.tokens.full_access));
  if (!principal) throw new Error('the seed has no full-access token');
  return principal;
}

describe('a session that only reads', () => {
  it('shares the seed’s state with every other reading session instead of holding a copy', () => {
    const sessions = new MemorySessions(seed, options);
    const a = sessions.read('a', (store) => store.state);
    const b = sessions.read('b', (store) => store.state);
    expect(a).toBe(b);
    expect(sessions.list().map((s) => [s.name, s.events])).toEqual([
      ['a', 0],
      ['b', 0],
    ]);
  });

  it('is counted at SESSION_BYTES plus its request journal, without a copy of the seed', () => {
    const sessions = new MemorySessions(seed, options, 1000);
    for (let i = 0; i < 200; i++) sessions.record(`reader-${i}`, entry);
    let expected = 0;
    for (let i = 0; i < 200; i++) expected += SESSION_BYTES + measureDocument({ seq: i + 1, session: `reader-${i}`, ...entry }).bytes;
    expect(sessions.retainedBytes).toBe(expected);
    expect(expected / 200).toBeLessThan(1024);
  });

  it('keeps no copy after a write that failed (a 401, a 404): it still reads the shared seed', () => {
    const sessions = new MemorySessions(seed, options);
    const principal = fullAccess(sessions);
    const refused = sessions.write('reader', (store) => store.authenticate('opk_unknown'));
    expect(refused).toBeUndefined();
    const missing = sessions.write('reader', (store) =>
      store.apply(resumeProjectWrite(principal, { project_id: '00000000-0000-4000-8000-000000000000', message: { type: 'doc', content: [] } })),
    );
    expect(missing).toMatchObject({ ok: false });
    expect(sessions.read('reader', (store) => store.state)).toBe(sessions.read('other', (store) => store.state));
    expect(sessions.retainedBytes).toBe(3 * SESSION_BYTES);
  });
});

describe('a session that writes', () => {
  it('gets its own copy at its first write, leaving the seed and every reading session as they were', () => {
    const sessions = new MemorySessions(seed, options);
    const principal = fullAccess(sessions);
    const shared = sessions.read('reader', (store) => store.state);
    const outcome = sessions.write('writer', (store) =>
      store.apply(resumeProjectWrite(principal, { project_id: seed.fixtures.projects.paused, message: { type: 'doc', content: [] } })),
    );
    expect(outcome).toMatchObject({ ok: true });
    const own = sessions.read('writer', (store) => store.state);
    expect(own).not.toBe(shared);
    const paused = (state: typeof own) => state.projects.find((p) => p.uuid === seed.fixtures.projects.paused)?.stored_status;
    expect(paused(own)).toBe('active');
    expect(paused(shared)).toBe('paused');
    expect(paused(seed.state)).toBe('paused');
    expect(sessions.read('reader', (store) => store.state)).toBe(shared);
    expect(sessions.list().find((s) => s.name === 'writer')?.events).toBe(1);
  });

  it('is counted with its copy of the seed and its history', () => {
    const sessions = new MemorySessions(seed, options);
    const principal = fullAccess(sessions);
    sessions.write('writer', (store) =>
      store.apply(resumeProjectWrite(principal, { project_id: seed.fixtures.projects.paused, message: { type: 'doc', content: [] } })),
    );
    const own = sessions.get('writer').store;
    // probe (read) + writer (written): each SESSION_BYTES; the writer also its copy of the seed and its history.
    expect(sessions.retainedBytes).toBe(2 * SESSION_BYTES + measureDocument(seed.state).bytes + own.retainedBytes);
  });
});

describe('the byte budget with sessions that only read', () => {
  it('drops the least recently used reading sessions past --max-total-bytes, as it drops writing ones', () => {
    const budget = 100 * 1024;
    const sessions = new MemorySessions(seed, options, 10_000, budget);
    for (let i = 0; i < 1000; i++) {
      sessions.read(`reader-${i}`, (store) => store.events.length);
      sessions.record(`reader-${i}`, entry);
    }
    const names = sessions.list().map((s) => s.name);
    expect(sessions.retainedBytes).toBeLessThanOrEqual(budget);
    expect(names.length).toBeLessThan(1000);
    expect(names.length).toBeGreaterThan(50);
    expect(names.at(-1)).toBe('reader-999');
    expect(names).not.toContain('reader-0');
  });

  it('holds through the HTTP path: 500 GET /__mock/events with distinct X-Mock-Session share one state', async () => {
    const core = createMockCore({ now: () => NOW, maxSessions: 20_000 });
    for (let i = 0; i < 500; i++) {
      const answer = await core.fetch(new Request('http://127.0.0.1/__mock/events', { headers: { 'x-mock-session': `r-${i}` } }));
      expect(answer.status).toBe(200);
    }
    const sessions = core.sessions;
    if (!(sessions instanceof MemorySessions)) throw new Error('the core keeps its sessions in memory by default');
    expect(sessions.list()).toHaveLength(500);
    expect(sessions.read('r-0', (store) => store.state)).toBe(sessions.read('r-499', (store) => store.state));
    expect(sessions.retainedBytes).toBeLessThan(500 * 1024);
    // A write in one of them still answers as before, and only that one gets a copy.
    const written = await core.fetch(
      new Request(RESUME, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens.full_access}`, 'x-mock-session': 'r-7' },
        body: JSON.stringify({ project_id: fixtures.projects.paused, message: '{"type":"doc","content":[]}' }),
      }),
    );
    expect(written.status).toBe(200);
    expect(sessions.read('r-7', (store) => store.state)).not.toBe(sessions.read('r-8', (store) => store.state));
    expect(sessions.read('r-8', (store) => store.state)).toBe(sessions.read('r-0', (store) => store.state));
  });
});
