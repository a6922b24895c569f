// Defects found while moving the mock onto its framework-free core (issue 14, item 6), each pinned.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { defaultSeed } from '../src/seed.ts';
import { parseSeed } from '../src/seedFile.ts';
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

describe('seed files are validated against a schema derived from the spec', () => {
  it('names the first wrong field: a project without access (it passed, then every resume was a 500)', () => {
    const seed = defaultSeed();
    const broken: Record<string, unknown> = JSON.parse(JSON.stringify(seed));
    const projects = isObject(broken['state']) ? broken['state']['projects'] : undefined;
    if (!Array.isArray(projects) || !isObject(projects[0])) throw new Error('no project');
    delete projects[0]['access'];
    expect(parseSeed(JSON.stringify(broken))).toEqual({ ok: false, error: '$.state.projects[0].access is missing' });
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
