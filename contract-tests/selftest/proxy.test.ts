// The validation proxy (contract-tests/proxy/): in front of the faithful mock it reports nothing, for a QA smoke set
// and for the whole contract suite; in front of each fault of faults.ts it reports every fault the smoke set reaches;
// it forwards requests and answers unchanged (streaming, repeated headers, no header added); it answers 502 when
// the target is down; its buffer is bounded; no token ever appears in what it reports; and its command line prints
// its URL, refuses bad options with exit 2 and writes the JUnit report on SIGTERM.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { texts } from '../../spec/lib/messages.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import { createClient, type ApiRequest, type ApiResponse } from '../io/client.ts';
import { expectedNote } from '../model/expected.ts';
import { UNKNOWN_ID } from '../model/id-model.ts';
import { operationModels } from '../model/profiles.ts';
import { baseBody } from '../harness/requests.ts';
import { parseFixtures, TokenKnowledge, type Fixtures } from '../proxy/knowledge.ts';
import { createValidationProxy, VIOLATIONS_HEADER, type ValidationProxy } from '../proxy/server.ts';
import { cases, type Tokens } from './faults.ts';
import { runContract, spawnProxy, startFaultProxy, startMock, type Fault, type ProxiedReply, type ProxiedRequest, type Running } from './support.ts';

let mock: Running;
let fixturesText = '';
let fixtures: Fixtures;
let tokens: Tokens = {};
let records: { projects: Record<string, string>; goals: Record<string, string> } = { projects: {}, goals: {} };
const dir = mkdtempSync(join(tmpdir(), 'contract-proxy-'));

beforeAll(async () => {
  mock = await startMock({ selfCheck: 'off' });
  fixturesText = await (await fetch(`${mock.url}/__mock/fixtures`)).text();
  const parsed = parseFixtures(fixturesText);
  if (!parsed.ok) throw new Error(parsed.error);
  fixtures = parsed.fixtures;
  const value: unknown = JSON.parse(fixturesText);
  const strings = (v: unknown): Record<string, string> =>
    isObject(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
  tokens = isObject(value) ? strings(value['tokens']) : {};
  records = isObject(value) ? { projects: strings(value['projects']), goals: strings(value['goals']) } : records;
});
afterAll(() => mock.close());

/** A proxy in front of `target`, knowing the mock's fixtures unless told otherwise. */
async function proxyTo(
  target: string,
  options: { knowledge?: TokenKnowledge; capacity?: number; timeoutMs?: number } = {},
): Promise<{ proxy: ValidationProxy; url: string }> {
  const proxy = createValidationProxy({
    target,
    knowledge: options.knowledge ?? new TokenKnowledge(fixtures),
    capacity: options.capacity ?? 100,
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  return { proxy, url: await proxy.listen(0) };
}

/**
 * QA's smoke set: each operation with the full, read-only and no token, an unknown id, missing fields, the valid
 * write once more (the same record answered twice: what the write leaves alone can be compared), and the editor's write.
 */
function smokeSet(session: string): ApiRequest[] {
  return operationModels().flatMap((op) => {
    const id = op.group === 'projects' ? records.projects['paused'] : records.goals['open'];
    const valid = JSON.stringify(baseBody(op, id ?? UNKNOWN_ID));
    const headers = (token?: string): Record<string, string> => ({
      'content-type': 'application/json',
      'x-mock-session': session,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    });
    return [
      { method: 'POST', path: op.path, headers: headers(tokens['full_access']), body: valid },
      { method: 'POST', path: op.path, headers: headers(tokens['read_only']), body: valid },
      { method: 'POST', path: op.path, headers: headers(), body: valid },
      { method: 'POST', path: op.path, headers: headers(tokens['full_access']), body: JSON.stringify(baseBody(op, UNKNOWN_ID)) },
      { method: 'POST', path: op.path, headers: headers(tokens['full_access']), body: '{}' },
      { method: 'POST', path: op.path, headers: headers(tokens['full_access']), body: valid },
      // The editor writes too (a space member at 70): its answer's caller fields are its own.
      { method: 'POST', path: op.path, headers: headers(tokens['editor']), body: valid },
    ];
  });
}

async function sendAll(url: string, requests: ReadonlyArray<ApiRequest>): Promise<ApiResponse[]> {
  const client = createClient({ baseUrl: url, timeoutMs: 10_000 });
  const out: ApiResponse[] = [];
  for (const request of requests) out.push(await client.send(request));
  return out;
}

/** Wraps a fault so that the test knows whether it changed anything the smoke set sent or got. */
/** The fault "a read-only token may write": requests with the read-only token (those `when` picks) reach the server with the full-access one. */
function readOnlyWritesAsFullAccess(when: (req: ProxiedRequest) => boolean = () => true): Fault {
  return {
    request: (req) => {
      const auth = req.headers['authorization'];
      const from = tokens['read_only'] ?? '-';
      return auth?.includes(from) && when(req) ? { ...req, headers: { ...req.headers, authorization: auth.replace(from, tokens['full_access'] ?? '') } } : req;
    },
  };
}

function tracked(fault: Fault): { fault: Fault; changed: () => boolean; replied: Array<{ req: ProxiedRequest; reply: ProxiedReply }> } {
  let changed = false;
  const replied: Array<{ req: ProxiedRequest; reply: ProxiedReply }> = [];
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  const wrapped: Fault = fault.controls === true ? { controls: true } : {};
  if (fault.request) {
    const inner = fault.request;
    wrapped.request = (req) => {
      const out = inner(req);
      if (out !== 'hang' && 'status' in out) replied.push({ req, reply: out });
      else if (!same(out, req)) changed = true;
      return out;
    };
  }
  if (fault.response) {
    const inner = fault.response;
    wrapped.response = (req, reply: ProxiedReply) => {
      const out = inner(req, reply);
      if (!same(out, reply)) changed = true;
      return out;
    };
  }
  return { fault: wrapped, changed: () => changed, replied };
}

const noToken = (text: string): void => {
  for (const [persona, token] of Object.entries(tokens)) expect(text.includes(token), `the ${persona} token appears in:\n${text}`).toBe(false);
};

describe('the validation proxy in front of the faithful mock', () => {
  it('reports no violation for the smoke set, and sends no X-Contract-Violations header', async () => {
    const { proxy, url } = await proxyTo(mock.url);
    try {
      const responses = await sendAll(url, smokeSet('proxy-faithful'));
      expect(responses.map((r) => r.status)).toEqual([200, 403, 401, 404, 400, 200, 200, 200, 403, 401, 404, 400, 200, 200]);
      for (const r of responses) expect(r.headers[VIOLATIONS_HEADER.toLowerCase()]).toBeUndefined();
      const summary = proxy.log.summary('', 0);
      expect(summary).toMatchObject({ exchanges: 14, checked: 14, broken: 0, violations: 0 });
      // The read-only 403 and the 401 come without a Content-Type, as production sends them: one rule with the suite
      // (expected.ts), noted once and not counted as warnings.
      expect([summary.warnings, summary.warnings_by_code, summary.expected]).toEqual([0, {}, { answers: 4, note: expectedNote(4) }]);
      expect(expectedNote(4)).toBe(
        `4 error answers came without a Content-Type, as production sends them (the spec's "Errors"; RULES.md#decision-2): expected, not counted as warnings`,
      );
      for (const op of operationModels()) {
        const rules = summary.operations[op.operationId]?.rules ?? {};
        for (const rule of [
          'spec.status',
          'spec.schema',
          'answer.token',
          'answer.read-only',
          'answer.missing-fields',
          'answer.record',
          'state',
          'agreement',
          'left-alone',
        ])
          expect(rules, `${op.operationId} ${rule}`).toHaveProperty(rule);
        // The coverage of the traffic: the documented statuses seen, the fields and values sent, the rules run.
        const coverage = summary.coverage.operations[op.operationId];
        expect(coverage?.exchanges).toBe(7);
        expect(coverage?.statuses.seen).toEqual({ '200': 3, '400': 1, '401': 1, '403': 1, '404': 1 });
        expect(coverage?.statuses.unseen).toEqual(['405', '406', '413', '415', '500']);
        expect(coverage?.request_fields.unsent).toEqual([]);
        // The --tokens file is the mock's fixtures: the records were read before the first write, so both writes compare.
        expect(coverage?.rules['left-alone']).toEqual({ run: 3, skipped: {} });
        expect(coverage?.response_fields.non_null).toContain('Person.full_name');
        expect(summary.coverage.summary.find((line) => line.startsWith(`${op.operationId}: `))).toMatch(
          new RegExp(`^${op.operationId}: 7 exchanges; statuses 5/10 \\(never 405 406 413 415 500\\); response fields \\d+/\\d+ non-null`),
        );
      }
      expect(proxy.junit()).toMatch(/<system-out>coverage of the traffic: closeGoal: 7 exchanges; statuses 5\/10 \(never 405 406 413 415 500\)/);
    } finally {
      await proxy.close();
    }
  });

  it("holds an answer forced with the mock's Prefer header to the spec only", async () => {
    const { proxy, url } = await proxyTo(mock.url);
    try {
      const [valid] = smokeSet('proxy-prefer');
      if (!valid) throw new Error('no smoke request');
      const responses = await sendAll(url, [
        { ...valid, headers: { ...valid.headers, prefer: 'code=404' } },
        { ...valid, headers: { ...valid.headers, prefer: 'code=500' } },
        valid,
      ]);
      // A 404 or a 500 to a valid request of the full-access person would break production's rules; forced, they are
      // documented answers, and the same request without the header is checked in full again.
      expect(responses.map((r) => r.status)).toEqual([404, 500, 200]);
      expect(proxy.log.summary('', 0)).toMatchObject({ checked: 3, broken: 0 });
      expect(proxy.log.summary('', 0).operations['resumeProject']?.rules).toMatchObject({ 'answer.record': { checked: 1, failed: 0 }, state: { checked: 1 } });
    } finally {
      await proxy.close();
    }
  });

  it('reports no violation for the whole contract suite run through it (exit 0), and checks every kind of answer', { timeout: 120_000 }, async () => {
    const { proxy, url } = await proxyTo(mock.url);
    try {
      const run = await runContract({ CONTRACT_BASE_URL: url, CONTRACT_NUM_RUNS: '5' }, 110_000);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      const summary = proxy.log.summary('', 0);
      expect(summary.violations, JSON.stringify(proxy.log.entries(), null, 2)).toBe(0);
      expect(summary.checked).toBeGreaterThan(200);
      for (const op of operationModels()) {
        const rules = Object.keys(summary.operations[op.operationId]?.rules ?? {});
        expect(rules).toEqual(
          expect.arrayContaining(['answer.transport', 'answer.inputs', 'answer.token', 'answer.read-only', 'answer.missing-fields', 'answer.record', 'state']),
        );
      }
    } finally {
      await proxy.close();
    }
  });
});

describe('the validation proxy in front of each injected fault', () => {
  const reached = new Map<string, boolean>();
  let index = 0;
  for (const c of cases) {
    for (const injected of c.faults) {
      const session = `proxy-fault-${index++}`;
      it(`${injected.name}: at least one violation when the smoke set reaches it${c.exit === 0 ? ' (a control: never a violation)' : ''}, none when it does not`, {
        timeout: 30_000,
      }, async () => {
        const t = tracked(injected.fault(tokens));
        const faulty = await startFaultProxy(mock.url, t.fault);
        const { proxy, url } = await proxyTo(faulty.url, { timeoutMs: 800 });
        try {
          const responses = await sendAll(url, smokeSet(session));
          // A reply the fault made up is only a change when the mock would have answered otherwise.
          let changed = t.changed();
          for (const { req, reply } of t.replied) {
            const [direct] = await sendAll(mock.url, [
              { method: req.method, path: req.path, headers: { ...req.headers, 'x-mock-session': `${session}-direct` }, body: req.body },
            ]);
            if (direct?.status !== reply.status || direct.text !== reply.body) changed = true;
          }
          const summary = proxy.log.summary('', 0);
          const entries = JSON.stringify(proxy.log.entries(), null, 2);
          reached.set(injected.name, changed);
          if (c.exit === 0 || !changed) expect(summary.violations, entries).toBe(0);
          else {
            expect(summary.violations, `${injected.name} reached the smoke set but the proxy saw nothing`).toBeGreaterThan(0);
            const broken = responses.filter((r) => r.headers[VIOLATIONS_HEADER.toLowerCase()] !== undefined);
            expect(broken.length, 'answers that broke the contract carry the header').toBeGreaterThan(0);
            for (const r of broken) expect(Number(r.headers[VIOLATIONS_HEADER.toLowerCase()])).toBeGreaterThan(0);
          }
          noToken(`${entries}\n${JSON.stringify(proxy.log.summary('', 0))}\n${proxy.junit()}`);
        } finally {
          await proxy.close();
          await faulty.close();
        }
      });
    }
  }

  it("the smoke set reaches the brief's six faults, and the proxy names each", () => {
    for (const name of ['wrong status', 'dropped required field', 'wrong type', 'wrong error body', 'read-only token writes', 'state not applied'])
      expect(reached.get(name), name).toBe(true);
  });
  it('the smoke set reaches the faults beyond one caller, and the proxy names each', () => {
    for (const name of [
      'the editor gets full access in every answer',
      'the editor shows the champion’s unread notifications',
      'a nested project’s permissions are not the caller’s (the champion without full access)',
      'contributors champion, contributor, reviewer',
      'targets newest first',
      'task statuses in reverse',
      'the project’s subscription list is the write’s',
      'a goal’s projects name its parent goal',
      'updated_at two hours after closed_at (local time written as UTC)',
      'access levels written 70.0',
      'a whole float written as an integer (progress 100)',
    ])
      expect(reached.get(name), name).toBe(true);
  });
});

describe('what the proxy reports', () => {
  it('names the broken rule with the request as curl, the token as its variable, and the response', async () => {
    const swap = readOnlyWritesAsFullAccess();
    const faulty = await startFaultProxy(mock.url, swap);
    const { proxy, url } = await proxyTo(faulty.url);
    try {
      const [response] = await sendAll(url, smokeSet('proxy-report').slice(1, 2));
      expect(response?.status).toBe(200);
      expect(response?.headers[VIOLATIONS_HEADER.toLowerCase()]).toBe('1');
      const listed: unknown = await (await fetch(`${url}/__proxy/violations`)).json();
      const entry = isObject(listed) && Array.isArray(listed['violations']) ? listed['violations'][0] : undefined;
      expect(entry).toMatchObject({ seq: 1, operation: 'resumeProject', method: 'POST', path: '/api/external/v1/projects/resume', status: 200 });
      expect(isObject(entry) ? entry['request'] : '').toMatch(
        /^curl -sS -i -X POST 'http:\/\/127\.0\.0\.1:\d+\/api\/external\/v1\/projects\/resume' .*-H "authorization: Bearer \$CONTRACT_READ_ONLY_TOKEN"/,
      );
      const readOnly = JSON.stringify(texts.readOnly).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      expect(isObject(entry) && Array.isArray(entry['lines']) ? entry['lines'][0] : '').toMatch(
        new RegExp(
          `^✗ error {3}response\\.status {2}A read-only token \\(read_only in the --tokens file\\) is 403 ${readOnly} \\(RULES\\.md#read-only-tokens\\): expected 403 ${readOnly} in plain text; got 200 .* \\[expected\\.status\\]$`,
        ),
      );
      noToken(JSON.stringify(listed));
    } finally {
      await proxy.close();
      await faulty.close();
    }
  });

  it('puts the decisive violation first and groups its consequences under it (a read-only write answered 200 with a broken body)', async () => {
    const swap = readOnlyWritesAsFullAccess();
    // The write goes through, and its answer lacks most of the project: forty schema errors follow from the one 200.
    const broken: Fault = { ...swap, response: (_req, reply) => (reply.status === 200 ? { ...reply, body: JSON.stringify({ project: { id: 'x' } }) } : reply) };
    const faulty = await startFaultProxy(mock.url, broken);
    const { proxy, url } = await proxyTo(faulty.url);
    try {
      const [response] = await sendAll(url, smokeSet('proxy-order').slice(1, 2));
      expect(response?.status).toBe(200);
      const count = Number(response?.headers[VIOLATIONS_HEADER.toLowerCase()]);
      expect(count).toBeGreaterThan(10);
      const listed: unknown = await (await fetch(`${url}/__proxy/violations`)).json();
      const entry = isObject(listed) && Array.isArray(listed['violations']) ? listed['violations'][0] : undefined;
      const violations = isObject(entry) && Array.isArray(entry['violations']) ? entry['violations'].filter(isObject) : [];
      const lines = isObject(entry) && Array.isArray(entry['lines']) ? entry['lines'].map(String) : [];
      expect(violations[0]).toMatchObject({ code: 'expected.status', rule: 'answer.read-only' });
      expect(violations[0]?.['follows']).toBeUndefined();
      const errors = violations.filter((v) => v['severity'] === 'error');
      expect(errors.length).toBe(count);
      expect(errors.slice(1).every((v) => v['follows'] === 'expected.status')).toBe(true);
      expect(lines[0]).toMatch(/^✗ error {3}response\.status {2}A read-only token .* \[expected\.status\]$/);
      expect(lines.slice(1, count).every((line) => line.startsWith('  ↳ ✗ error'))).toBe(true);
    } finally {
      await proxy.close();
      await faulty.close();
    }
  });

  it('learns a read-only token from the traffic when no --tokens file names it', async () => {
    const swapWrites = readOnlyWritesAsFullAccess((req) => req.body !== '{}');
    const faulty = await startFaultProxy(mock.url, swapWrites);
    const { proxy, url } = await proxyTo(faulty.url, { knowledge: new TokenKnowledge() });
    try {
      const [write] = smokeSet('proxy-learn').slice(1, 2);
      if (!write) throw new Error('no smoke request');
      const [first, second] = await sendAll(url, [{ ...write, body: '{}' }, write]);
      expect([first?.status, second?.status]).toEqual([403, 200]);
      const entries = proxy.log.entries();
      expect(entries).toHaveLength(1);
      expect(entries[0]?.lines[0]).toContain('A read-only token (the server answered it with the read-only 403 earlier) is 403');
      expect(entries[0]?.request).toContain('"authorization: Bearer $TOKEN"');
      noToken(JSON.stringify(entries));
    } finally {
      await proxy.close();
      await faulty.close();
    }
  });

  it('masks every credential: an unknown token as $TOKEN, Basic credentials, cookies', async () => {
    const teapot = createServer((_req, res) => res.writeHead(418).end('no'));
    teapot.listen(0, '127.0.0.1');
    await new Promise((r) => teapot.once('listening', r));
    const address = teapot.address();
    const { proxy, url } = await proxyTo(`http://127.0.0.1:${isObject(address) ? String(address['port']) : '0'}`);
    const secret = `opk_${'S'.repeat(43)}`;
    try {
      const op = operationModels()[0];
      if (!op) throw new Error('no operation');
      await sendAll(url, [
        {
          method: 'POST',
          path: op.path,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, cookie: 'session=cookie-secret-value' },
          body: '{}',
        },
        { method: 'POST', path: op.path, headers: { 'content-type': 'application/json', authorization: 'Basic dXNlcjpwYXNzd29yZA==' }, body: '{}' },
      ]);
      const [first, second] = proxy.log.entries();
      expect(first?.request).toContain('-H "authorization: Bearer $TOKEN" -H "cookie: $COOKIE"');
      expect(second?.request).toContain('-H "authorization: Basic $CREDENTIALS"');
      const text = JSON.stringify(proxy.log.entries());
      for (const s of [secret, 'cookie-secret-value', 'dXNlcjpwYXNzd29yZA==']) expect(text).not.toContain(s);
    } finally {
      await proxy.close();
      teapot.close();
    }
  });

  it('keeps at most --max-violations exchanges (the newest) and counts every one; reset empties it; other /__proxy paths are 404/405', async () => {
    const teapot = createServer((_req, res) => res.writeHead(418).end('no'));
    teapot.listen(0, '127.0.0.1');
    await new Promise((r) => teapot.once('listening', r));
    const address = teapot.address();
    const { proxy, url } = await proxyTo(`http://127.0.0.1:${isObject(address) ? String(address['port']) : '0'}`, { capacity: 3 });
    try {
      const op = operationModels()[0];
      if (!op) throw new Error('no operation');
      await sendAll(
        url,
        Array.from({ length: 5 }, () => ({ method: 'POST', path: op.path, headers: { 'content-type': 'application/json' }, body: '{}' })),
      );
      const listed: unknown = await (await fetch(`${url}/__proxy/violations`)).json();
      expect(isObject(listed) && Array.isArray(listed['violations']) ? listed['violations'].map((e) => (isObject(e) ? e['seq'] : 0)) : []).toEqual([3, 4, 5]);
      const summary: unknown = await (await fetch(`${url}/__proxy/summary`)).json();
      expect(summary).toMatchObject({
        exchanges: 5,
        checked: 5,
        broken: 5,
        by_code: { 'status.undocumented': 5 },
        buffer: { capacity: 3, kept: 3, dropped: 2 },
      });
      expect((await fetch(`${url}/__proxy/reset`, { method: 'POST' })).status).toBe(200);
      expect(await (await fetch(`${url}/__proxy/summary`)).json()).toMatchObject({ exchanges: 0, broken: 0, buffer: { kept: 0 } });
      expect((await fetch(`${url}/__proxy/nothing`)).status).toBe(404);
      expect((await fetch(`${url}/__proxy/summary`, { method: 'DELETE' })).status).toBe(405);
    } finally {
      await proxy.close();
      teapot.close();
    }
  });
});

describe('forwarding', () => {
  it('forwards the request unchanged, streamed (repeated headers in order, Host set to the target, hop-by-hop dropped, nothing added) and passes the answer back unchanged', async () => {
    let firstChunk: () => void = () => undefined;
    const gotFirstChunk = new Promise<void>((r) => (firstChunk = r));
    const echo = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => {
        chunks.push(c);
        firstChunk();
      });
      req.on('end', () => {
        const body = JSON.stringify({ method: req.method, url: req.url, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, 'Fine', [
          'Content-Type',
          'application/json',
          'Set-Cookie',
          'a=1',
          'Set-Cookie',
          'b=2',
          'X-Custom',
          'kept',
          'Content-Length',
          String(Buffer.byteLength(body)),
        ]);
        res.end(body);
      });
    });
    echo.listen(0, '127.0.0.1');
    await new Promise((r) => echo.once('listening', r));
    const address = echo.address();
    const port = isObject(address) ? String(address['port']) : '0';
    const { proxy, url } = await proxyTo(`http://127.0.0.1:${port}`);
    try {
      const target = new URL(url);
      const answer = await new Promise<{ status: number | undefined; message: string | undefined; raw: string[]; headers: IncomingHttpHeaders; body: string }>(
        (resolve, reject) => {
          const req = httpRequest(
            {
              host: target.hostname,
              port: target.port,
              method: 'POST',
              path: '/api/external/v1/projects/resume?x=1',
              headers: [
                'Host',
                target.host,
                'Content-Type',
                'application/json',
                'Authorization',
                'Bearer first',
                'Authorization',
                'Bearer second',
                'X-Trace',
                'abc',
                'Connection',
                'keep-alive, X-Drop',
                'X-Drop',
                'hop',
                'Transfer-Encoding',
                'chunked',
              ],
            },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () =>
                resolve({
                  status: res.statusCode,
                  message: res.statusMessage,
                  raw: res.rawHeaders,
                  headers: res.headers,
                  body: Buffer.concat(chunks).toString('utf8'),
                }),
              );
            },
          );
          req.on('error', reject);
          req.write('{"project_id":');
          // The rest is sent only once the target has the first part: a proxy that waited for the whole body would hang.
          void gotFirstChunk.then(() => req.end('"x"}'));
        },
      );
      expect(answer.status).toBe(200);
      expect(answer.message).toBe('Fine');
      const pairs = (raw: string[]): string[] => raw.flatMap((v, i) => (i % 2 === 0 ? [`${v}: ${raw[i + 1] ?? ''}`] : []));
      expect(pairs(answer.raw).filter((h) => !/^(date|connection|keep-alive|x-contract-violations):/i.test(h))).toEqual([
        'Content-Type: application/json',
        'Set-Cookie: a=1',
        'Set-Cookie: b=2',
        'X-Custom: kept',
        `Content-Length: ${Buffer.byteLength(answer.body)}`,
      ]);
      const echoed: unknown = JSON.parse(answer.body);
      expect(echoed).toMatchObject({ method: 'POST', url: '/api/external/v1/projects/resume?x=1', body: '{"project_id":"x"}' });
      const received = isObject(echoed) && Array.isArray(echoed['rawHeaders']) ? echoed['rawHeaders'].map(String) : [];
      // Connection and Transfer-Encoding are the proxy's own connection to the target (hop-by-hop, RFC 9110 §7.6.1).
      expect(pairs(received).filter((h) => !/^(connection|transfer-encoding):/i.test(h))).toEqual([
        `Host: 127.0.0.1:${port}`,
        'Content-Type: application/json',
        'Authorization: Bearer first',
        'Authorization: Bearer second',
        'X-Trace: abc',
      ]);
    } finally {
      await proxy.close();
      echo.close();
    }
  });

  it('answers 502 with one line when the target is down', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await new Promise((r) => closed.once('listening', r));
    const address = closed.address();
    const port = isObject(address) ? String(address['port']) : '0';
    await new Promise((r) => closed.close(r));
    const { proxy, url } = await proxyTo(`http://127.0.0.1:${port}`);
    try {
      const [response] = await sendAll(url, [
        { method: 'POST', path: '/api/external/v1/projects/resume', headers: { 'content-type': 'application/json' }, body: '{}' },
      ]);
      expect(response?.status).toBe(502);
      expect(response?.text).toBe(`proxy: cannot reach http://127.0.0.1:${port} (ECONNREFUSED)\n`);
      expect(proxy.log.summary('', 0)).toMatchObject({ upstream_errors: 1, broken: 0 });
    } finally {
      await proxy.close();
    }
  });
});

describe('npm run proxy', () => {
  it('prints its URL (--port 0), prints each broken exchange without the token, and writes the JUnit report on SIGTERM', { timeout: 60_000 }, async () => {
    const tokensFile = join(dir, 'fixtures.json');
    writeFileSync(tokensFile, fixturesText);
    const report = join(dir, 'reports', 'proxy.xml');
    const swap = readOnlyWritesAsFullAccess();
    const faulty = await startFaultProxy(mock.url, swap);
    const child = spawnProxy(['--target', faulty.url, '--port', '0', '--tokens', tokensFile, '--report', report]);
    try {
      const [, port] = await child.waitFor(/^proxy listening on http:\/\/127\.0\.0\.1:(\d+) → /m);
      expect(child.output()).toMatch(/^port: \d+$/m);
      const responses = await sendAll(`http://127.0.0.1:${port ?? ''}`, smokeSet('proxy-cli'));
      expect(responses.filter((r) => r.headers[VIOLATIONS_HEADER.toLowerCase()] !== undefined).map((r) => r.status)).toEqual([200, 200]);
      await child.waitFor(/^✗ #2 closeGoal: POST \/api\/external\/v1\/goals\/close → 200 \(1 violation\)$/m);
      child.kill('SIGTERM');
      const { code, stdout } = await child.exited;
      expect(code, stdout).toBe(0);
      expect(stdout).toMatch(/^SIGTERM: 14 exchanges checked, 2 broke the contract \(2 violations, \d+ warnings\); JUnit report: /m);
      noToken(stdout);
      const xml = readFileSync(report, 'utf8');
      // 18 rules per operation (the header rules and the encoding rule among them).
      expect(xml).toMatch(/<testsuites name="contract proxy → http:\/\/127\.0\.0\.1:\d+" tests="36" failures="2"/);
      for (const op of operationModels()) {
        expect(xml).toContain(`<testsuite name="${op.operationId}" tests="18" failures="1"`);
        expect(xml).toMatch(
          new RegExp(`<testcase classname="${op.operationId}" name="answer\\.read-only: [^"]*" time="0">\\s*<failure message="1 of 1 exchanges broke it">`),
        );
      }
      noToken(xml);
    } finally {
      child.kill('SIGKILL');
      await faulty.close();
    }
  });

  it.each([
    ['no --target', [], /^proxy: --target is required/],
    ['a bad --port', ['--target', 'http://127.0.0.1:1', '--port', 'http'], /^proxy: --port must be a whole number, got "http"$/],
    ['an unknown option', ['--target', 'http://127.0.0.1:1', '--verbose'], /^proxy: unknown option --verbose \(see --help\)$/],
    // Not "unknown option --port <value>", as the proxy said before it shared the mock's option reading (options.ts).
    ['a --port without its value', ['--target', 'http://127.0.0.1:1', '--port'], /^proxy: Option '--port <value>' argument missing \(see --help\)$/],
    ['a --target that is not a URL', ['--target', 'staging'], /^proxy: --target is not a URL/],
  ])('exits 2 with one line on %s', { timeout: 30_000, concurrent: true }, async (_case, args, line) => {
    const { code, stdout, stderr } = await spawnProxy(args).exited;
    expect(code, stderr).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr.trimEnd()).toMatch(line);
  });

  it('prints its usage with --help (exit 0)', { timeout: 30_000 }, async () => {
    const { code, stdout } = await spawnProxy(['--help']).exited;
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: service-external-api proxy --target URL \[options\]/);
    expect(stdout).toContain('--tokens FILE');
  });

  it('exits 2 on a --tokens file with a malformed token, without printing it', { timeout: 30_000 }, async () => {
    const file = join(dir, 'bad-tokens.json');
    writeFileSync(file, JSON.stringify({ full_access: 'secret-value-not-a-token' }));
    const { code, stderr } = await spawnProxy(['--target', 'http://127.0.0.1:1', '--tokens', file]).exited;
    expect(code).toBe(2);
    expect(stderr).toMatch(/^proxy: --tokens .*bad-tokens\.json: full_access is not an API token \(opk_ followed by 43 characters/);
    expect(stderr).not.toContain('secret-value');
  });
});
