// Security: constant-time token comparison, tokens never echoed, stored or logged, loopback by default,
// --no-control, and no prototype pollution, over real HTTP (in process and as the CLI in a child process).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import { defaultSeed } from '../src/index.ts';
import { constantTimeEqual, toHex } from '../src/domain/digest.ts';
import { findToken, hashToken, type TokenRecord } from '../src/domain/security.ts';
import { GOAL_STORIES, PERSONAS, PROJECT_STORIES } from '../src/domain/state.ts';
import { readState, str } from './fuzz/state.ts';
import { CLOSE, RESUME, doc, send, startMock, type Received, type RunningMock, type Sent } from './http.ts';

// Every call of the core's constant-time comparison (digest.ts, plain JavaScript so it runs in browsers too) is
// counted (the real one still answers).
vi.mock('../src/domain/digest.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/domain/digest.ts')>();
  return { ...actual, constantTimeEqual: vi.fn(actual.constantTimeEqual) };
});
const compare = vi.mocked(constantTimeEqual);

const randomToken = (): string => `opk_${randomBytes(32).toString('base64url')}`;

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
const token = (persona: string): string => mock.fixtures.tokens[persona] ?? '';

// ── constant-time comparison ─────────────────────────────────────────────────────────────────────────────────────

describe('tokens are compared in constant time (security.ts findToken)', () => {
  const raws = Array.from({ length: 6 }, randomToken);
  /** Records whose `hash` reads are counted, to prove every entry is looked at. */
  function counted(): { records: TokenRecord[]; reads: number[] } {
    const reads = raws.map(() => 0);
    const records = raws.map((raw, i) => {
      const hash = hashToken(raw);
      const record: TokenRecord = { hash, personUuid: `person-${i}`, readOnly: i % 2 === 1 };
      Object.defineProperty(record, 'hash', {
        enumerable: true,
        get: () => {
          reads[i] = (reads[i] ?? 0) + 1;
          return hash;
        },
      });
      return record;
    });
    return { records, reads };
  }
  beforeEach(() => {
    compare.mockClear();
  });

  it('finds the record of each stored token (first match wins), trims the candidate, and finds nothing for another token', () => {
    const { records } = counted();
    for (const [i, raw] of raws.entries()) expect(findToken(records, raw)?.personUuid).toBe(`person-${i}`);
    expect(findToken(records, `  ${raws[2] ?? ''}\t`)?.personUuid).toBe('person-2');
    expect(findToken(records, randomToken())).toBeUndefined();
    expect(findToken(records, '')).toBeUndefined();
    expect(findToken([...records, ...records], raws[0] ?? '')?.personUuid).toBe('person-0');
  });

  it.each([
    ['matches the first stored hash', () => raws[0] ?? ''],
    ['matches the last stored hash', () => raws.at(-1) ?? ''],
    ['matches none', randomToken],
    ['is empty', () => ''],
    ['is 10,000 characters long', () => `opk_${'A'.repeat(10_000)}`],
  ])('a candidate that %s is compared with every stored hash, in constant time on two 32-byte digests', (_case, candidate) => {
    const { records, reads } = counted();
    findToken(records, candidate());
    expect(reads).toEqual(raws.map(() => 1));
    expect(compare).toHaveBeenCalledTimes(raws.length);
    for (const [a, b] of compare.mock.calls) {
      expect([a instanceof Uint8Array ? a.length : -1, b instanceof Uint8Array ? b.length : -1]).toEqual([32, 32]);
    }
  });

  it('an authenticated request scans every token of the store, whether its token is the first stored one or unknown', async () => {
    const state = readState(await mock.state());
    const counts: number[] = [];
    for (const candidate of [token('full_access'), token('suspended'), randomToken()]) {
      compare.mockClear();
      await mock.post(RESUME, { project_id: mock.fixtures.projects['paused'], message: doc('x') }, candidate, { 'x-mock-session': 'timing' });
      counts.push(compare.mock.calls.length);
    }
    expect(str(state.tokens[0] ?? {}, 'persona')).toBe('full_access'); // the first stored hash
    expect(counts).toEqual([state.tokens.length, state.tokens.length, state.tokens.length]);
  });

  it('a stored hash of the wrong length does not lock every persona out (it is compared against a dummy; seedFile.ts does not check sha256)', async () => {
    const seed = defaultSeed();
    seed.state.tokens.push({ persona: 'broken', sha256: 'abcd', person_uuid: seed.state.tokens[0]?.person_uuid ?? '', read_only: false });
    const broken = await startMock({ seed });
    try {
      const response = await broken.post(RESUME, { project_id: broken.fixtures.projects['paused'], message: doc('x') }, broken.fixtures.tokens['full_access']);
      expect(response.status).toBe(200);
    } finally {
      await broken.close();
    }
  });
});

// ── tokens never echoed ──────────────────────────────────────────────────────────────────────────────────────────

/** Requests that carry a token down every path of the pipeline, from the endpoint's 400 to the 200. */
function tokenBattery(fixtures: RunningMock['fixtures'], secrets: ReadonlyArray<string>, session: string): Sent[] {
  const resume = JSON.stringify({ project_id: fixtures.projects['paused'], message: doc('x') });
  const close = JSON.stringify({ goal_id: fixtures.goals['open'], success: 'yes', success_status: 'achieved', retrospective: doc('y') });
  const out: Sent[] = [];
  for (const secret of secrets) {
    for (const authorization of [`Bearer ${secret}`, secret, `bearer ${secret}`, `Token ${secret}`]) {
      const headers = { 'content-type': 'application/json', 'x-mock-session': session, authorization };
      out.push(
        { path: RESUME, headers, body: resume },
        { path: CLOSE, headers, body: close },
        { path: RESUME, headers, body: '{"project_id":' },
        { path: RESUME, headers: { ...headers, accept: 'application/json' }, body: '{' },
        { path: RESUME, headers: { ...headers, accept: 'text/html' }, body: resume },
        { path: RESUME, headers: { ...headers, 'content-type': 'text/plain' }, body: resume },
        { path: RESUME, headers, body: JSON.stringify({ unknown: 1 }) },
        { path: CLOSE, headers, body: '{}' },
        { path: CLOSE, headers, body: JSON.stringify({ goal_id: 42 }) },
        { path: RESUME, headers, body: JSON.stringify({ project_id: 'nonexistent', message: doc('x') }) },
        { path: RESUME, headers: { ...headers, prefer: 'code=418' }, body: resume },
        { path: RESUME, headers: { ...headers, prefer: 'code=401' }, body: resume },
        { path: RESUME, headers: { ...headers, 'x-mock-session': 'not a session!' }, body: resume },
        { method: 'PUT', path: RESUME, headers, body: resume },
        { method: 'GET', path: CLOSE, headers },
        { path: '/api/external/v2/x', headers, body: resume },
        { path: '/api/external/v1/a/b/c', headers, body: resume },
      );
    }
  }
  return out;
}

function leaks(text: string, secrets: ReadonlyArray<string>): string[] {
  return secrets.filter((s) => text.includes(s));
}

describe('tokens are never echoed, stored or journaled', () => {
  it('no answer on any path, and no control endpoint but the fixtures, contains a token', async () => {
    const session = 'no-echo';
    const secrets = [randomToken(), token('read_only'), token('full_access'), token('suspended')];
    for (const sent of tokenBattery(mock.fixtures, secrets, session)) {
      const response = await mock.send(sent);
      const where = `${sent.method ?? 'POST'} ${sent.path} → ${response.status}`;
      expect(response.text, where).not.toContain('opk_');
      expect(JSON.stringify(response.headers), where).not.toContain('opk_');
    }
    for (const path of ['/__mock/state', '/__mock/requests?limit=500', '/__mock/events', '/__mock/sessions']) {
      const response = await mock.send({ method: 'GET', path, headers: { 'x-mock-session': session } });
      expect(response.status).toBe(200);
      expect(response.text, path).not.toContain('opk_');
    }
    // The state keeps SHA-256 hashes only.
    const state = readState(await mock.state());
    expect(state.tokens.map((t) => str(t, 'sha256')).sort()).toEqual(
      Object.values<string>(mock.fixtures.tokens)
        .map((t) => toHex(hashToken(t)))
        .sort(),
    );
    // GET /__mock/fixtures hands out the seed's persona tokens (by design, mock/README.md), and nothing else.
    const fixtures = (await mock.send({ method: 'GET', path: '/__mock/fixtures' })).text;
    expect(leaks(fixtures, secrets.slice(1))).toHaveLength(3);
    expect(fixtures).not.toContain(secrets[0]);
  });
});

// ── the CLI in a child process ───────────────────────────────────────────────────────────────────────────────────

const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
type Cli = { child: ChildProcess; port: number; url: string; banner: string; output: () => string; stop: () => Promise<void> };

async function cli(args: string[]): Promise<Cli> {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '' } });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!/^(fixtures as JSON|control endpoints: off)/m.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the mock did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const url = /mock listening on (http:\/\/\S+)/.exec(output)?.[1] ?? '';
  const port = Number(/^port: (\d+)/m.exec(output)?.[1]);
  return {
    child,
    port,
    url,
    banner: output,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** GET /__mock/fixtures of a mock in another process, as string maps. */
async function fixturesOver(port: number): Promise<RunningMock['fixtures']> {
  const fixtures = (await send(port, { method: 'GET', path: '/__mock/fixtures' })).json();
  if (!isObject(fixtures)) throw new Error('GET /__mock/fixtures is not an object');
  const map = (key: string): Record<string, string> => {
    const value = fixtures[key];
    if (!isObject(value)) throw new Error(`fixtures.${key} is not an object`);
    return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
  };
  // Every name the fixtures promise, there and a string (the type says so; here it is checked).
  const named = <K extends string>(key: string, names: ReadonlyArray<K>): Record<K, string> & Record<string, string> => {
    const values = map(key);
    const missing = names.filter((name) => typeof values[name] !== 'string');
    if (missing.length > 0) throw new Error(`fixtures.${key} lacks ${missing.join(', ')}`);
    return Object.assign(Object.fromEntries(names.map((name) => [name, values[name] ?? ''])) as Record<K, string>, values);
  };
  return { tokens: named('tokens', PERSONAS), projects: named('projects', PROJECT_STORIES), goals: named('goals', GOAL_STORIES), people: map('people') };
}

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

/** The CLI as `npm start -- --port 0` runs it, shared by the tests below that need a separate process. */
let defaultCli: Cli;
beforeAll(async () => {
  defaultCli = await cli(['--port', '0']);
}, 15_000);
afterAll(() => defaultCli.stop());

describe('the CLI: loopback by default, a warning elsewhere, no request logging', () => {
  it('binds to 127.0.0.1 by default, without a warning, and is not reachable on another interface', async () => {
    expect(defaultCli.url).toBe(`http://127.0.0.1:${defaultCli.port}`);
    expect(defaultCli.banner).not.toMatch(/warning/i);
    expect(await reachable('127.0.0.1', defaultCli.port)).toBe(true);
    if (outsideAddress) expect(await reachable(outsideAddress, defaultCli.port)).toBe(false);
  });

  it('prints the persona tokens once at start (by design) and never writes a request, a token or anything else while serving', async () => {
    const before = defaultCli.output();
    const fixtures = await fixturesOver(defaultCli.port);
    const secrets = [randomToken(), fixtures.tokens['read_only'] ?? ''];
    expect(before).toContain(secrets[1]);
    for (const sent of tokenBattery(fixtures, secrets, 'cli-no-log')) expect((await send(defaultCli.port, sent)).text).not.toContain('opk_');
    await new Promise((r) => setTimeout(r, 100));
    expect(defaultCli.output()).toBe(before);
  });

  it('bound to 0.0.0.0 it says so, and warns that anyone who can reach the address can use the tokens', async () => {
    const open = await cli(['--host', '0.0.0.0', '--port', '0']);
    try {
      expect(open.url).toBe(`http://0.0.0.0:${open.port}`);
      expect(open.banner).toContain('warning: bound to 0.0.0.0, not loopback: anyone who can reach this address can use the tokens above');
      expect(await reachable('127.0.0.1', open.port)).toBe(true);
    } finally {
      await open.stop();
    }
  }, 15_000);
});

// ── --no-control ─────────────────────────────────────────────────────────────────────────────────────────────────

const CONTROL_ENDPOINTS: Sent[] = [
  { method: 'GET', path: '/__mock/fixtures' },
  { method: 'GET', path: '/__mock/state' },
  { method: 'GET', path: '/__mock/requests' },
  { method: 'GET', path: '/__mock/events' },
  { method: 'GET', path: '/__mock/sessions' },
  { method: 'POST', path: '/__mock/reset' },
  { method: 'POST', path: '/__mock/reset?all=true' },
];

function expectNotFound(response: Received, where: string): void {
  expect({ status: response.status, body: response.text, contentType: response.headers['content-type'] }, where).toEqual({
    status: 404,
    body: production.routeNotFound,
    contentType: 'text/html; charset=utf-8',
  });
}

describe('--no-control removes /__mock/', () => {
  it('in process (control: false): every control endpoint is production\'s 404 "Not Found", and the API still answers', async () => {
    const closed = await startMock({ control: false });
    try {
      for (const sent of CONTROL_ENDPOINTS) expectNotFound(await closed.send(sent), sent.path);
      expect(
        (await closed.post(RESUME, { project_id: closed.fixtures.projects['paused'], message: doc('x') }, closed.fixtures.tokens['full_access'])).status,
      ).toBe(200);
    } finally {
      await closed.close();
    }
  });

  it('as the CLI (--no-control): the banner says so and names no control URL, and /__mock/ is 404', async () => {
    const closed = await cli(['--no-control', '--port', '0']);
    try {
      expect(closed.banner).toContain('control endpoints: off (--no-control)');
      expect(closed.banner).not.toContain('/__mock/');
      for (const sent of CONTROL_ENDPOINTS) expectNotFound(await send(closed.port, sent), sent.path);
    } finally {
      await closed.stop();
    }
  }, 15_000);
});

// ── prototype pollution ──────────────────────────────────────────────────────────────────────────────────────────

/** Requests that try to write `polluted` (and an `authorization`) onto Object.prototype through every parser. */
function pollutionBattery(fixtures: RunningMock['fixtures'], session: string): Sent[] {
  const full = fixtures.tokens['full_access'] ?? '';
  const auth = { 'x-mock-session': session, authorization: `Bearer ${full}` };
  const jsonHeaders = { ...auth, 'content-type': 'application/json' };
  const formHeaders = { ...auth, 'content-type': 'application/x-www-form-urlencoded' };
  const payload = { polluted: 'yes', authorization: `Bearer ${full}`, readOnly: false };
  const pollutedDoc = JSON.stringify({ type: 'doc', content: [], ['__proto__']: payload, constructor: { prototype: payload } });
  const jsonBodies = [
    `{"__proto__":${JSON.stringify(payload)}}`,
    `{"constructor":{"prototype":${JSON.stringify(payload)}}}`,
    `{"prototype":${JSON.stringify(payload)}}`,
    `{"project_id":${JSON.stringify(fixtures.projects['paused'])},"message":${JSON.stringify(`{"type":"doc","content":[],"__proto__":${JSON.stringify(payload)},"constructor":{"prototype":${JSON.stringify(payload)}}}`)}}`,
    `{"project_id":${JSON.stringify(fixtures.projects['paused'])},"message":${JSON.stringify(pollutedDoc)},"subscriber_ids":["__proto__"]}`,
    `[{"__proto__":${JSON.stringify(payload)}}]`,
  ];
  const forms = [
    '__proto__[polluted]=yes',
    '__proto__[authorization]=Bearer%20x',
    'a[__proto__][polluted]=yes',
    'constructor[prototype][polluted]=yes',
    'constructor[prototype][authorization]=x',
    '__proto__=x&prototype[polluted]=yes',
  ];
  const out: Sent[] = [];
  for (const body of jsonBodies) out.push({ path: RESUME, headers: jsonHeaders, body }, { path: CLOSE, headers: jsonHeaders, body });
  for (const body of forms) out.push({ path: RESUME, headers: formHeaders, body }, { path: `${CLOSE}?${body}`, headers: jsonHeaders, body: '{}' });
  out.push(
    {
      method: 'POST',
      path: '/__mock/reset?__proto__[polluted]=yes',
      headers: { ...jsonHeaders, 'x-mock-session': 'pollution-control' },
      body: `{"__proto__":${JSON.stringify(payload)}}`,
    },
    { method: 'GET', path: '/__mock/events?since=1&__proto__[polluted]=yes&constructor[prototype][polluted]=yes', headers: auth },
    { method: 'GET', path: '/__mock/requests?__proto__=1', headers: auth },
    { path: RESUME, headers: { ...jsonHeaders, prefer: '__proto__=1, constructor=2' }, body: '{}' },
  );
  for (const name of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString']) {
    out.push(
      { path: RESUME, headers: { ...jsonHeaders, 'x-mock-session': name }, body: jsonBodies[3] ?? '{}' },
      { method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': name } },
    );
  }
  return out;
}

/** The mock behaves as before: no inherited token lets a tokenless request in, and answers carry no `polluted`. */
async function expectNormal(port: number, fixtures: RunningMock['fixtures']): Promise<void> {
  const session = `after-pollution-${randomBytes(4).toString('hex')}`;
  const body = JSON.stringify({ project_id: fixtures.projects['paused'], message: doc('Normal.') });
  const anonymous = await send(port, { path: RESUME, headers: { 'content-type': 'application/json', 'x-mock-session': session }, body });
  expect({ status: anonymous.status, body: anonymous.text }).toEqual({ status: 401, body: production.unauthorized });
  const ok = await send(port, {
    path: RESUME,
    headers: { 'content-type': 'application/json', 'x-mock-session': session, authorization: `Bearer ${fixtures.tokens['full_access'] ?? ''}` },
    body,
  });
  expect(ok.status).toBe(200);
  expect(ok.text).not.toContain('polluted');
  const readOnly = await send(port, {
    path: CLOSE,
    headers: { 'content-type': 'application/json', 'x-mock-session': session, authorization: `Bearer ${fixtures.tokens['read_only'] ?? ''}` },
    body: '{}',
  });
  expect(readOnly.status).toBe(403);
  for (const path of ['/__mock/fixtures', '/__mock/sessions', '/__mock/requests']) {
    expect((await send(port, { method: 'GET', path, headers: { 'x-mock-session': session } })).text, path).not.toContain('polluted');
  }
}

describe('no prototype pollution through JSON bodies, query strings, forms, headers or control endpoints', () => {
  it('in process: Object.prototype is untouched and a fresh request behaves normally', async () => {
    const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    for (const sent of pollutionBattery(mock.fixtures, 'pollution')) {
      const response = await mock.send(sent);
      expect(response.status, `${sent.path} ${String(sent.body)}`).toBeLessThan(501);
      expect(response.text).not.toMatch(/Mock response invalid/);
    }
    const probe: Record<string, unknown> = {};
    expect(probe['polluted']).toBeUndefined();
    expect(probe['authorization']).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    await expectNormal(mock.port, mock.fixtures);
    // A document with a __proto__ key is stored as an ordinary key, and GET /__mock/state shows it as data.
    const state = (await mock.send({ method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': 'pollution' } })).text;
    expect(state).toContain('"__proto__":{"polluted":"yes"');
    expect(JSON.stringify(readState(JSON.parse(state)).projects)).not.toContain('polluted');
  });

  it('in a separate process (the CLI): the same requests leave it behaving normally', async () => {
    const running = await fixturesOver(defaultCli.port);
    for (const sent of pollutionBattery(running, 'pollution')) expect((await send(defaultCli.port, sent)).status).toBeLessThan(501);
    await expectNormal(defaultCli.port, running);
    expect(defaultCli.output()).toBe(defaultCli.banner);
  });
});
