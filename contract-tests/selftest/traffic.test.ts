// Recorded traffic: the contract suite's whole traffic recorded through the proxy in front of the mock
// (proxy --record's recorder), with no credential left in any form; drift finds nothing in that faithful recording and
// flags each production deviation injected into it (wrong status, missing field, wrong error text, wrong order of
// checks, a write changing what it leaves alone), in SARIF that holds to 2.1.0's structure; replay against a fresh mock
// finds every answer the same and names each difference a faulty implementation makes; the HAR reader is bounded
// and reads a browser's export; the recorder stops at its bound and keeps the file valid.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { texts } from '../../spec/lib/messages.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import { drift } from '../drift/drift.ts';
import { driftSarif } from '../drift/report.ts';
import { HAR_BOUNDS, HarError, harFromText, readHar, type Har, type HarEntry } from '../har/har.ts';
import { ExchangeMasker } from '../har/mask-exchange.ts';
import { Recorder } from '../har/recorder.ts';
import { operationModels } from '../model/profiles.ts';
import { RULE_ORDER } from '../proxy/check.ts';
import { parseFixtures, TokenKnowledge, type Fixtures } from '../proxy/knowledge.ts';
import { createValidationProxy, type ValidationProxy } from '../proxy/server.ts';
import { fixtureMap, replay } from '../replay/replay.ts';
import { runContract, spawnProxy, startFaultProxy, startMock, type Running } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'contract-traffic-'));
const harFile = join(dir, 'suite.har');
let mock: Running;
let proxy: ValidationProxy;
let fixtures: Fixtures;
let fixturesDoc: unknown;
let har: Har;
let harTextRead = '';
let tokens: string[] = [];

beforeAll(async () => {
  mock = await startMock({ validateResponses: false });
  const text = await (await fetch(`${mock.url}/__mock/fixtures`)).text();
  fixturesDoc = JSON.parse(text);
  const parsed = parseFixtures(text);
  if (!parsed.ok) throw new Error(parsed.error);
  fixtures = parsed.fixtures;
  tokens = Object.values(fixtures.tokens).filter((t): t is string => typeof t === 'string');
  const recorder = new Recorder({
    file: harFile,
    origin: mock.url,
    personas: Object.entries(fixtures.tokens).map(([persona, token]) => [token ?? '', persona] as const),
    fixtures: { ...fixtures.records, people: fixtures.people },
  });
  proxy = createValidationProxy({ target: mock.url, knowledge: new TokenKnowledge(fixtures), onExchange: (rq, rs) => recorder.add(rq, rs, new Date(0), 0) });
  const url = await proxy.listen(0);
  const run = await runContract({ CONTRACT_BASE_URL: url }, 180_000);
  if (run.code !== 0) throw new Error(`the contract suite through the recording proxy failed:\n${run.stdout.slice(-3000)}`);
  recorder.close();
  harTextRead = readFileSync(harFile, 'utf8');
  har = readHar(harFile).har;
}, 240_000);

afterAll(async () => {
  await proxy?.close();
  await mock?.close();
});

/** Every form the masker knows of a secret (raw, URL-encoded, base64 standard and URL-safe, hex). */
function forms(secret: string): string[] {
  const b64 = Buffer.from(secret).toString('base64');
  return [secret, encodeURIComponent(secret), b64, b64.replace(/=+$/, ''), b64.replace(/\+/g, '-').replace(/\//g, '_'), Buffer.from(secret).toString('hex')];
}

const copy = (): Har => JSON.parse(JSON.stringify(har));
const bodyOf = (e: HarEntry): unknown => JSON.parse(e.response.content.text ?? 'null');
const authOf = (e: HarEntry): string | undefined => e.request.headers.find((h) => h.name.toLowerCase() === 'authorization')?.value;
const isApi = (e: HarEntry): boolean =>
  e.request.method === 'POST' && /\/api\/external\/v1\/(projects\/resume|goals\/close)$/.test(new URL(e.request.url).pathname);
const driftOf = (h: Har) => drift(h, harFromText(JSON.stringify(h)).exchanges);
const rulesAt = (result: ReturnType<typeof driftOf>, entry: number): string[] =>
  result.findings.filter((f) => f.entry === entry).flatMap((f) => f.violations.filter((v) => v.severity === 'error').map((v) => v.rule));

describe('proxy --record: the contract suite recorded through the proxy', () => {
  it('is HAR 1.2 with every exchange forwarded, each credential named by its persona or $token-<n>, and no token in any form', () => {
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries.length).toBe(proxy.log.summary('', 0).exchanges);
    expect(har.log.entries.some((e) => new URL(e.request.url).pathname.startsWith('/__proxy'))).toBe(false);
    for (const token of tokens) for (const form of forms(token)) expect(harTextRead.includes(form), `a form of a token: ${form.slice(0, 6)}…`).toBe(false);
    expect(harTextRead).not.toMatch(/opk_[A-Za-z0-9_-]{8,}/);
    const auths = new Set(har.log.entries.map(authOf));
    for (const persona of ['full_access', 'read_only', 'comment_only', 'no_access', 'suspended']) expect(auths).toContain(`Bearer $${persona}`);
    expect(auths).toContain('Bearer\t$full_access');
    expect(auths).toContain('bearer $full_access');
    expect([...auths].filter((a) => a !== undefined && /^Bearer \$token-\d+$/.test(a)).length).toBeGreaterThan(0);
    // The forms noted for drift: `garbage` is not a token in production's form, an unknown opk_ token is.
    expect(Object.values(har.log._tokens ?? {})).toContain('other');
    expect(Object.values(har.log._tokens ?? {})).toContain('opk');
    expect(har.log._fixtures).toMatchObject({ projects: fixtures.records.projects, goals: fixtures.records.goals });
  });

  it('masks a credential echoed in bodies, query strings, cookies and X- headers, in every form, the same token under the same name', () => {
    const [token = '', other = `opk_${'q'.repeat(43)}`] = [tokens[0], `opk_${'Z'.repeat(43)}`];
    const masker = new ExchangeMasker([[token, 'full_access']]);
    const echo = [token, Buffer.from(`Bearer ${other}`).toString('base64'), encodeURIComponent(other), Buffer.from(other).toString('hex')].join(' ');
    const entry = masker.entry(
      'http://127.0.0.1:1',
      {
        method: 'POST',
        url: `/api/external/v1/goals/close?access_token=${encodeURIComponent(other)}&goal_id=x`,
        headers: [
          ['Authorization', `Bearer ${other}`],
          ['Cookie', `session=${token}; theme=dark`],
          ['X-Api-Key', other],
          ['Content-Type', 'application/json'],
        ],
        body: Buffer.from(JSON.stringify({ note: `token ${token}`, other: Buffer.from(other).toString('base64') })),
      },
      { status: 400, headers: { 'content-type': 'application/json', 'set-cookie': `s=${other}` }, body: Buffer.from(JSON.stringify({ echo })) },
      { started: new Date(0), durationMs: 3 },
    );
    const text = JSON.stringify(entry);
    for (const secret of [token, other]) for (const form of forms(secret)) expect(text.includes(form), form.slice(0, 8)).toBe(false);
    expect(entry.request.headers[0]).toEqual({ name: 'Authorization', value: 'Bearer $token-1' });
    expect(masker.nameOf(other)).toBe('token-1');
    expect(masker.nameOf(token)).toBe('full_access');
    // The bodies stay JSON.
    expect(() => JSON.parse(entry.request.postData?.text ?? '')).not.toThrow();
    expect(JSON.parse(entry.response.content.text ?? '')).toEqual({ echo: expect.stringContaining('$full_access') });
    expect(entry.startedDateTime).toBe('1970-01-01T00:00:00.000Z');
  });
});

describe('drift', () => {
  it('finds nothing in the faithful recording, and runs the rules the proxy ran live', () => {
    const result = driftOf(har);
    expect(result.findings.map((f) => `${f.entry} ${f.lines.join(' | ')}`)).toEqual([]);
    expect(result.violations).toBe(0);
    const live = proxy.log.summary('', 0);
    expect(result.checked).toBe(live.checked);
    const ruleSet = (ops: Record<string, { rules: Record<string, unknown> }>): string[] =>
      [...new Set(Object.values(ops).flatMap((o) => Object.keys(o.rules)))].sort();
    expect(ruleSet(result.log.summary('', 0).operations)).toEqual(ruleSet(live.operations));
  });

  it('flags each production deviation injected into the recording, under its rule', () => {
    const entries = har.log.entries;
    const readOnly = entries.findIndex((e) => isApi(e) && authOf(e) === 'Bearer $read_only' && e.response.status === 403 && e.request.postData?.text !== '{}');
    const readOnlyEmpty = entries.findIndex((e) => isApi(e) && authOf(e) === 'Bearer $read_only' && e.request.postData?.text === '{}');
    const noToken = entries.findIndex((e) => isApi(e) && authOf(e) === undefined && e.response.status === 401);
    const ok = entries.findIndex((e) => isApi(e) && e.response.status === 200 && isObject(bodyOf(e)));
    const closed = entries.findIndex((e) => isApi(e) && e.request.url.includes('goals/close') && e.response.status === 200);
    expect([readOnly, readOnlyEmpty, noToken, ok, closed].every((i) => i >= 0)).toBe(true);

    const faults: Array<[string, (h: Har) => number, string]> = [
      [
        'wrong status: a read-only token answered 200',
        (h) => {
          const e = h.log.entries[readOnly];
          if (e) Object.assign(e.response, { status: 200, content: { ...entries[ok]?.response.content } });
          return readOnly;
        },
        'answer.read-only',
      ],
      [
        'missing field: a 200 without a required field',
        (h) => {
          const e = h.log.entries[ok];
          const body = e ? bodyOf(e) : undefined;
          const record = isObject(body) ? Object.values(body).find(isObject) : undefined;
          if (e && record) {
            delete record['name'];
            e.response.content.text = JSON.stringify(body);
          }
          return ok;
        },
        'spec.schema',
      ],
      [
        'wrong error text: the 401 in other words',
        (h) => {
          const e = h.log.entries[noToken];
          if (e) e.response.content.text = 'Not authorized';
          return noToken;
        },
        'answer.token',
      ],
      [
        'wrong order of checks: a read-only token with {} answered the missing-fields 400',
        (h) => {
          const e = h.log.entries[readOnlyEmpty];
          if (e)
            Object.assign(e.response, {
              status: 400,
              headers: [{ name: 'content-type', value: 'application/json' }],
              content: { size: 0, mimeType: 'application/json', text: JSON.stringify({ error: 'Bad request', message: 'Missing required fields: goal_id' }) },
            });
          return readOnlyEmpty;
        },
        'answer.read-only',
      ],
      [
        'a write leaving the wrong field alone: a close that leaves is_closed false',
        (h) => {
          const e = h.log.entries[closed];
          const body = e ? bodyOf(e) : undefined;
          if (e && isObject(body) && isObject(body['goal'])) {
            body['goal']['is_closed'] = false;
            e.response.content.text = JSON.stringify(body);
          }
          return closed;
        },
        'state',
      ],
    ];
    for (const [name, inject, rule] of faults) {
      const faulty = copy();
      const at = inject(faulty);
      const result = driftOf(faulty);
      expect(rulesAt(result, at), name).toContain(rule);
      expect(
        result.findings.every((f) => f.entry === at || f.entry > at),
        name,
      ).toBe(true);
    }
  });

  it('flags a write that changes a field it leaves alone (left-alone), from the same record’s earlier answer in the recording', () => {
    const seen = new Set<string>();
    let second = -1;
    // The same record written twice by the same caller in the same session: the record is the request's target field
    // (the suite's property runs write the operations' fixtures in a seeded order, so the same URL is not the same record).
    const targetOf = (e: HarEntry): unknown => {
      const op = operationModels().find((o) => e.request.url.endsWith(o.path));
      const sent: unknown = JSON.parse(e.request.postData?.text ?? 'null');
      return op && isObject(sent) ? sent[op.targetField] : undefined;
    };
    // A control that changes the mock (a reset) forgets that session's answers, as the rule does: pairs span none.
    const sessionOf = (e: HarEntry): string => e.request.headers.find((h) => h.name.toLowerCase() === 'x-mock-session')?.value ?? '';
    har.log.entries.forEach((e, i) => {
      if (second >= 0) return;
      if (e.request.method !== 'GET' && new URL(e.request.url).pathname.startsWith('/__mock/')) {
        for (const key of [...seen]) if (key.startsWith(`${sessionOf(e)} `)) seen.delete(key);
        return;
      }
      if (!isApi(e) || e.response.status !== 200 || typeof targetOf(e) !== 'string') return;
      const key = `${sessionOf(e)} ${authOf(e)} ${e.request.url} ${String(targetOf(e))}`;
      if (seen.has(key)) second = i;
      seen.add(key);
    });
    expect(second).toBeGreaterThan(0);
    const faulty = copy();
    const e = faulty.log.entries[second];
    const body = e ? bodyOf(e) : undefined;
    const record = isObject(body) ? Object.values(body).find(isObject) : undefined;
    if (!e || !record) throw new Error('no record in the second write');
    record['name'] = `${String(record['name'])} (renamed)`;
    e.response.content.text = JSON.stringify(body);
    expect(rulesAt(driftOf(faulty), second)).toContain('left-alone');
  });

  it('writes SARIF 2.1.0: version, the driver with its rules, each result with a known ruleId, a level and a message', () => {
    const faulty = copy();
    const e = faulty.log.entries.find((x) => isApi(x) && authOf(x) === undefined && x.response.status === 401);
    if (!e) throw new Error('no 401');
    e.response.content.text = 'nope';
    const sarif: unknown = JSON.parse(driftSarif(driftOf(faulty), 'suite.har', '0.0.0'));
    if (!isObject(sarif) || !Array.isArray(sarif['runs'])) throw new Error('no runs');
    expect(sarif['version']).toBe('2.1.0');
    expect(sarif['$schema']).toBe('https://json.schemastore.org/sarif-2.1.0.json');
    const [run] = sarif['runs'];
    expect(run.tool.driver.name).toBe('service-external-api drift');
    const ids: string[] = run.tool.driver.rules.map((r: { id: string }) => r.id);
    expect(ids).toEqual([...RULE_ORDER]);
    expect(run.results.length).toBeGreaterThan(0);
    for (const result of run.results) {
      expect(ids[result.ruleIndex]).toBe(result.ruleId);
      expect(['error', 'warning', 'note', 'none']).toContain(result.level);
      expect(typeof result.message.text).toBe('string');
      expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe('suite.har');
    }
    expect(run.results.map((r: { ruleId: string }) => r.ruleId)).toContain('answer.token');
    expect(run.results.find((r: { ruleId: string }) => r.ruleId === 'answer.token').message.text).toContain(JSON.stringify(texts.unauthorized));
  });
});

describe('replay', () => {
  it('finds every answer of the recording the same from a fresh mock, the recorded fixtures mapped to its own', async () => {
    const fresh = await startMock({ validateResponses: false });
    try {
      const target = new URL(fresh.url);
      const doc: unknown = await (await fetch(`${fresh.url}/__mock/fixtures`)).json();
      expect(fixtureMap(har.log._fixtures, doc).size).toBe(0);
      const { exchanges } = harFromText(harTextRead);
      const result = await replay(har, exchanges, { target, tokens: fixtures.tokens, map: new Map(), mock: true });
      expect(result.findings).toEqual([]);
      expect(result.same).toBeGreaterThan(200);
    } finally {
      await fresh.close();
    }
  });

  it('names, for each deviation of a faulty implementation, the first differing JSON pointer with both values', async () => {
    const faulty = await startFaultProxy(mock.url, {
      response: (req, reply) => {
        if (reply.status === 401) return { ...reply, body: 'Not authorized' };
        if (reply.status === 200 && req.path.includes('goals/close')) {
          const body: unknown = JSON.parse(reply.body);
          if (isObject(body) && isObject(body['goal'])) body['goal']['is_closed'] = false;
          return { ...reply, body: JSON.stringify(body) };
        }
        if (reply.status === 403 && req.path.includes('projects/resume')) return { ...reply, status: 404 };
        // The order of checks: a read-only token's empty close answered the missing-fields 400 instead of the 403.
        if (reply.status === 403 && req.path.includes('goals/close') && req.body === '{}')
          return { status: 400, headers: { ...reply.headers, 'content-type': 'application/json' }, body: '{"error":"Bad request"}' };
        if (reply.status === 200 && req.path.includes('projects/resume')) {
          const body: unknown = JSON.parse(reply.body);
          if (isObject(body) && isObject(body['project'])) delete body['project']['name'];
          return { ...reply, body: JSON.stringify(body) };
        }
        return reply;
      },
    });
    try {
      const { exchanges } = harFromText(harTextRead);
      const result = await replay(har, exchanges, { target: new URL(faulty.url), tokens: fixtures.tokens, map: new Map(), mock: true });
      const seen = new Set(result.findings.map((f) => `${f.difference.pointer}: ${f.difference.recorded} → ${f.difference.got}`));
      expect(seen).toContain(`(body): ${JSON.stringify(texts.unauthorized)} → "Not authorized"`);
      expect(seen).toContain('/goal/is_closed: true → false');
      expect(seen).toContain('(status): 403 → 404');
      expect(seen).toContain('(status): 403 → 400');
      expect([...seen].some((line) => /^\/project\/name: "[^"]+" → \(absent\)$/.test(line))).toBe(true);
      expect(result.differ).toBe(result.findings.length);
    } finally {
      await faulty.close();
    }
  });
});

describe('coverage of the proxy', () => {
  it('GET /__proxy/summary is a coverage file: merged with drift’s of the same traffic, every count doubles', async () => {
    const { mergeReports, reportOf } = await import('../coverage/merge.ts');
    const summary: unknown = JSON.parse(JSON.stringify(proxy.log.summary('', 0)));
    const live = reportOf(summary, 'summary.json');
    const offline = reportOf(JSON.parse(JSON.stringify(driftOf(har).log.coverage.report())), 'drift.json');
    const merged = mergeReports([live, offline]);
    for (const [id, op] of Object.entries(live.operations)) {
      expect(op.exchanges).toBeGreaterThan(0);
      expect(merged.operations[id]?.exchanges).toBe(op.exchanges + (offline.operations[id]?.exchanges ?? 0));
      expect(op.statuses.unseen).toEqual(['405', '413']);
      expect(merged.operations[id]?.statuses.unseen).toEqual(op.statuses.unseen.filter((s) => offline.operations[id]?.statuses.unseen.includes(s)));
    }
  });
});

describe('the HAR reader', () => {
  it('refuses what is not HAR, or is past its bounds, in one line', () => {
    const refused = (text: string, bounds = HAR_BOUNDS): string => {
      try {
        harFromText(text, bounds);
      } catch (error) {
        if (error instanceof HarError) return error.message;
        throw error;
      }
      return 'accepted';
    };
    expect(refused('not json')).toMatch(/^is not HAR: not JSON \(/);
    expect(refused('{"entries": []}')).toBe('is not HAR: no "log" object at the top');
    expect(refused('{"log": {"entries": {}}}')).toBe('is not HAR: log.entries is not a list');
    expect(refused('{"log": {"entries": [{"request": {"url": "/"}, "response": {"status": 200}}]}}')).toBe(
      'is not HAR: log.entries[0].request has no method and url',
    );
    expect(refused(`{"log": {"entries": [${'['.repeat(100)}${']'.repeat(100)}]}}`)).toBe('nests deeper than 64 levels');
    expect(refused('{"log": {"entries": [1, 2, 3]}}', { ...HAR_BOUNDS, maxEntries: 2 })).toBe('has 3 entries, more than the 2 read');
    expect(refused('{"log": {"entries": []}}', { ...HAR_BOUNDS, maxBytes: 10 })).toBe('is more than the 10 bytes read');
    for (const message of [refused('not json'), refused('{"log": 1}')]) expect(message).not.toContain('\n');
  });

  it('reads a browser’s "Save all as HAR": extra and _ fields, pseudo-headers, base64 bodies, no postData, cookies', () => {
    const browser = {
      log: {
        version: '1.2',
        creator: { name: 'WebInspector', version: '537.36' },
        pages: [{ id: 'page_1', title: 'app', startedDateTime: '2025-01-01T00:00:00.000Z', pageTimings: {} }],
        entries: [
          {
            _initiator: { type: 'script' },
            _priority: 'High',
            _resourceType: 'fetch',
            pageref: 'page_1',
            startedDateTime: '2025-01-01T00:00:00.000Z',
            time: 12.5,
            request: {
              method: 'POST',
              url: 'https://staging.example.com/base/api/external/v1/goals/close?goal_id=x',
              httpVersion: 'http/2.0',
              headers: [
                { name: ':authority', value: 'staging.example.com' },
                { name: 'authorization', value: 'Bearer $full_access' },
              ],
              queryString: [{ name: 'goal_id', value: 'x' }],
              cookies: [{ name: 'sid', value: 'v', httpOnly: true }],
              headersSize: -1,
              bodySize: 0,
            },
            response: {
              status: 401,
              statusText: '',
              httpVersion: 'http/2.0',
              headers: [{ name: 'content-type', value: 'text/plain' }],
              cookies: [],
              content: { size: 12, mimeType: 'text/plain', text: Buffer.from(texts.unauthorized).toString('base64'), encoding: 'base64' },
              redirectURL: '',
              headersSize: -1,
              bodySize: -1,
              _transferSize: 300,
            },
            cache: {},
            timings: { blocked: 1, dns: -1, send: 0, wait: 10, receive: 1, _blocked_queueing: 0.5 },
            _fromCache: 'memory',
          },
        ],
      },
    };
    const { exchanges } = harFromText(JSON.stringify(browser));
    expect(exchanges).toHaveLength(1);
    const [one] = exchanges;
    expect(one?.request.url).toBe('/api/external/v1/goals/close?goal_id=x');
    expect(one?.request.headers).toEqual([['authorization', 'Bearer $full_access']]);
    expect(one?.received.body.toString()).toBe(texts.unauthorized);
    writeFileSync(join(dir, 'browser.har'), JSON.stringify(browser));
    expect(readHar(join(dir, 'browser.har')).exchanges[0]?.received.status).toBe(401);
  });
});

describe('the recorder', () => {
  it('stops at --record-max-bytes with one line, keeping a valid file of what it recorded', async () => {
    const file = join(dir, 'small.har');
    const request = { method: 'POST', url: '/api/external/v1/goals/close', headers: [['Content-Type', 'application/json']] as const, body: Buffer.from('{}') };
    const answer = { status: 401, headers: {}, body: Buffer.from(texts.unauthorized) };
    // One entry's size, from a recorder without a bound; the bounded one takes two of them and refuses the third.
    const sizer = new Recorder({ file, origin: 'http://127.0.0.1:1' });
    sizer.add(request, answer, new Date(0), 1);
    sizer.close();
    const lines: string[] = [];
    const recorder = new Recorder({ file, origin: 'http://127.0.0.1:1', maxBytes: 2 * sizer.bytes + 10, onStop: (line) => lines.push(line) });
    for (let i = 0; i < 5; i++) recorder.add(request, answer, new Date(0), 1);
    recorder.close();
    expect(lines).toEqual([
      `proxy: --record stopped at 2 exchanges: the next would pass --record-max-bytes ${2 * sizer.bytes + 10}; the proxy goes on forwarding and checking`,
    ]);
    expect(readHar(file).exchanges).toHaveLength(2);
  });

  it('keeps the file valid across flushes, each adding only its new entries and the credentials’ forms met since', async () => {
    const file = join(dir, 'flushes.har');
    const recorder = new Recorder({ file, origin: 'http://127.0.0.1:1', personas: [[tokens[0] ?? '', 'full_access']] });
    const send = (authorization: string): void =>
      recorder.add(
        { method: 'POST', url: '/api/external/v1/goals/close', headers: [['Authorization', authorization]], body: Buffer.from('{}') },
        { status: 401, headers: {}, body: Buffer.from(texts.unauthorized) },
        new Date(0),
        1,
      );
    expect(readHar(file).exchanges).toEqual([]);
    send(`Bearer ${tokens[0] ?? ''}`);
    await new Promise((r) => setImmediate(r));
    recorder.flush();
    expect(readHar(file).exchanges).toHaveLength(1);
    send('Bearer garbage');
    send(`Bearer opk_${'k'.repeat(43)}`);
    await new Promise((r) => setImmediate(r));
    recorder.flush();
    recorder.flush();
    send('Bearer garbage');
    recorder.close();
    const { har: read, exchanges } = readHar(file);
    expect(exchanges.map((e) => e.request.headers[0]?.[1])).toEqual(['Bearer $full_access', 'Bearer $token-1', 'Bearer $token-2', 'Bearer $token-1']);
    expect(read.log._tokens).toEqual({ 'token-1': 'other', 'token-2': 'opk' });
  });

  it('without --tokens, names each persona’s token from the mock’s fixtures answer passing through (and masks it there)', () => {
    const file = join(dir, 'learned.har');
    const recorder = new Recorder({ file, origin: 'http://127.0.0.1:1' });
    const close = {
      method: 'POST',
      url: '/api/external/v1/goals/close',
      headers: [['Authorization', `Bearer ${fixtures.tokens.read_only ?? ''}`]] as const,
      body: Buffer.from('{}'),
    };
    const refused = { status: 403, headers: {}, body: Buffer.from(texts.readOnly) };
    recorder.add(close, refused, new Date(0), 1);
    recorder.add(
      { method: 'GET', url: '/__mock/fixtures', headers: [], body: undefined },
      { status: 200, headers: {}, body: Buffer.from(JSON.stringify(fixturesDoc)) },
      new Date(0),
      1,
    );
    recorder.add(close, refused, new Date(0), 1);
    recorder.close();
    const text = readFileSync(file, 'utf8');
    for (const token of tokens) expect(text).not.toContain(token);
    const { har: read, exchanges } = readHar(file);
    expect(exchanges.map((e) => e.request.headers[0]?.[1])).toEqual(['Bearer $token-1', undefined, 'Bearer $read_only']);
    expect(JSON.parse(exchanges[1]?.received.body.toString() ?? '{}')).toMatchObject({ tokens: { full_access: '$full_access', read_only: '$read_only' } });
    expect(read.log._fixtures).toMatchObject({ projects: fixtures.records.projects, people: fixtures.people });
  });

  it('proxy --record: the file is valid HAR within a second of the last exchange and after SIGTERM', { timeout: 60_000 }, async () => {
    const file = join(dir, 'cli.har');
    const tokensFile = join(dir, 'fixtures.json');
    writeFileSync(tokensFile, JSON.stringify(fixturesDoc));
    const child = spawnProxy(['--target', mock.url, '--port', '0', '--tokens', tokensFile, '--record', file]);
    try {
      const [, port] = await child.waitFor(/^proxy listening on http:\/\/127\.0\.0\.1:(\d+) → /m);
      expect(child.output()).toMatch(/^recording: .*cli\.har \(HAR 1\.2, credentials masked, up to 67108864 bytes\)$/m);
      const answer = await fetch(`http://127.0.0.1:${port}/api/external/v1/goals/close`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fixtures.tokens.read_only ?? ''}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(answer.status).toBe(403);
      await new Promise((r) => setTimeout(r, 1300));
      const early = readHar(file);
      expect(early.exchanges.map((e) => [e.request.url, e.received.status])).toEqual([['/api/external/v1/goals/close', 403]]);
      expect(early.har.log.entries[0]?.request.headers.find((h) => h.name === 'authorization')?.value).toBe('Bearer $read_only');
      await fetch(`http://127.0.0.1:${port}/__proxy/summary`);
      await fetch(`http://127.0.0.1:${port}/__mock/fixtures`);
      child.kill('SIGTERM');
      const { code } = await child.exited;
      expect(code).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(readHar(file).exchanges.map((e) => e.request.url)).toEqual(['/api/external/v1/goals/close', '/__mock/fixtures']);
      for (const token of tokens) expect(text).not.toContain(token);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
