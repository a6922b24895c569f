// Defects found while moving the mock onto its framework-free core, each pinned.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { defaultSeed } from '../src/domain/seed.ts';
import { parseSeed } from '../src/domain/seedFile.ts';
import { RESUME, startMock, type RunningMock } from './http.ts';

const CLOCK = new Date('2025-06-18T10:30:00Z');
let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock({ now: () => CLOCK });
});
afterAll(() => mock.close());

async function journal(session: string): Promise<Array<Record<string, unknown>>> {
  const body = (await mock.send({ method: 'GET', path: '/__mock/requests', headers: { 'x-mock-session': session } })).json();
  const list = isObject(body) ? body['requests'] : undefined;
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** Sends a body in two chunks `pause` ms apart, in the given session; resolves with the status. */
function slowUpload(port: number, session: string, first: string, second: string, pause: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: RESUME,
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-mock-session': session },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.write(first);
    setTimeout(() => req.end(second), pause);
  });
}

describe('the request journal', () => {
  it('measures duration_ms from the arrival of the request, also for a 413 (it was always 0 there: the start was taken at the end)', async () => {
    const small = await startMock({ bodyLimit: 1000 });
    try {
      expect(await slowUpload(small.port, 'slow-413', `{"message":"${'x'.repeat(500)}`, `${'y'.repeat(600)}"}`, 300)).toBe(413);
      expect(await slowUpload(small.port, 'slow-401', '{', '}', 300)).toBe(401);
      for (const [session, status] of [
        ['slow-413', 413],
        ['slow-401', 401],
      ] as const) {
        const body = (await small.send({ method: 'GET', path: '/__mock/requests', headers: { 'x-mock-session': session } })).json();
        const entry: unknown = isObject(body) && Array.isArray(body['requests']) ? body['requests'][0] : undefined;
        if (!isObject(entry)) throw new Error(`no journal entry in ${session}`);
        expect(entry['status']).toBe(status);
        // The second chunk was sent 300 ms after the first: the server cannot have answered much sooner than that
        // after the request arrived (the bound leaves room for when the server noticed the first chunk).
        expect(Number(entry['duration_ms'])).toBeGreaterThanOrEqual(100);
      }
    } finally {
      await small.close();
    }
  });

  it('stamps entries and sessions with the injected clock, not the wall clock', async () => {
    await mock.post(RESUME, {}, undefined, { 'x-mock-session': 'clock' });
    const [entry] = await journal('clock');
    expect(entry?.['at']).toBe(CLOCK.toISOString());
    const sessions = (await mock.send({ method: 'GET', path: '/__mock/sessions' })).json();
    const listed = isObject(sessions) && Array.isArray(sessions['sessions']) ? sessions['sessions'].filter(isObject) : [];
    expect(listed.find((s) => s['name'] === 'clock')?.['created_at']).toBe(CLOCK.toISOString());
  });
});

const UUID = '0f6a3c1e-1d2b-4c5d-8e9f-a0b1c2d3e4f5';
const row = (state: Record<string, unknown>, name: string): Record<string, unknown> => {
  const rows = state[name];
  const first = Array.isArray(rows) ? rows[0] : undefined;
  if (!isObject(first)) throw new Error(`no ${name}[0]`);
  return first;
};
const activity = (): Record<string, unknown> => ({
  id: 'a',
  action: 'project_resuming',
  author_uuid: UUID,
  project_uuid: UUID,
  goal_uuid: null,
  content: {},
  comment_thread_id: 't',
  inserted_at: '2025-06-18T10:30:00Z',
});

describe('seed files are validated against a schema derived from the spec', () => {
  it('names the first wrong field: a project without access (it passed, then every resume was a 500)', () => {
    const seed = defaultSeed();
    const broken: Record<string, unknown> = JSON.parse(JSON.stringify(seed));
    const projects = isObject(broken['state']) ? broken['state']['projects'] : undefined;
    if (!Array.isArray(projects) || !isObject(projects[0])) throw new Error('no project');
    delete projects[0]['access'];
    expect(parseSeed(JSON.stringify(broken))).toEqual({ ok: false, error: '$.state.projects[0].access is missing' });
  });

  it('checks every row the State schema describes, not only projects and goals: activities, tokens, access levels', () => {
    const cases: Array<[string, (state: Record<string, unknown>) => void, string]> = [
      [
        'an activity of an unknown kind',
        (state) => Object.assign(state, { activities: [{ ...activity(), action: 'project_pausing' }] }),
        '$.state.activities[0].action must be equal to one of the allowed values',
      ],
      [
        'a subscription without its list',
        (state) => Object.assign(state, { subscriptions: [{ id: 's', person_uuid: UUID, type: 'invited', canceled: false }] }),
        '$.state.subscriptions[0].subscription_list_id is missing',
      ],
      [
        'a named level that is no access level',
        (state) => Object.assign(row(state, 'projects'), { access: { public: 0, company: 10, space: 10, people: { [UUID]: 50 } } }),
        `$.state.projects[0].access.people.${UUID} must be equal to one of the allowed values`,
      ],
      [
        'a token that is no SHA-256',
        (state) => Object.assign(row(state, 'tokens'), { sha256: 'ABC' }),
        '$.state.tokens[0].sha256 must match pattern "^[0-9a-f]{64}$"',
      ],
    ];
    for (const [what, edit, error] of cases) {
      const seed: Record<string, unknown> = JSON.parse(JSON.stringify(defaultSeed()));
      if (!isObject(seed['state'])) throw new Error('no state');
      edit(seed['state']);
      expect(parseSeed(JSON.stringify(seed)), what).toEqual({ ok: false, error });
    }
  });

  it('names a value outside a spec enum', () => {
    const seed = defaultSeed();
    const text = JSON.stringify(seed).replace('"stored_status":"paused"', '"stored_status":"resumed"');
    expect(parseSeed(text)).toEqual({ ok: false, error: '$.state.projects[0].stored_status must be equal to one of the allowed values' });
  });

  it('npm start exits 2 with that line instead of serving 500s', () => {
    const seed = defaultSeed();
    const text = JSON.stringify(seed).replace('"access":', '"acess":');
    const file = join(mkdtempSync(join(tmpdir(), 'seed-')), 'seed.json');
    writeFileSync(file, text);
    const run = spawnSync(process.execPath, [new URL('../src/main.ts', import.meta.url).pathname, '--seed', file, '--port', '0'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe(`error: --seed ${file}: $.state.projects[0].access is missing`);
  });
});
