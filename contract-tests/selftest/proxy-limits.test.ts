// The validation proxy against answers built to cost: a 200 with 6,000 bad checklist
// entries is one entry of at most 100 violations and an exact "and N more", with the log bounded in bytes; codings
// stacked past MAX_CODINGS, or decoding past one byte budget for all the layers, are one violation and the proxy goes
// on serving; a target's field names and ids that hold LF, CR, ESC or C1 reach no line, JSON entry or JUnit raw.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesOf } from '../../mock/src/core/controls.ts';
import { createMockCore } from '../../mock/src/core/core.ts';
import { texts } from '../../spec/lib/messages.ts';
import { MAX_REPORTED } from '../../spec/lib/violations.ts';
import { baseBody } from '../harness/requests.ts';
import { operationModel } from '../model/profiles.ts';
import { budgetOf, decodeBody, MAX_CODINGS } from '../proxy/body.ts';
import type { FiledViolation } from '../proxy/check.ts';
import { TokenKnowledge } from '../proxy/knowledge.ts';
import { MIN_MAX_BYTES, ViolationLog, type Entry } from '../proxy/log.ts';
import { createValidationProxy, VIOLATIONS_HEADER, type ValidationProxy } from '../proxy/server.ts';
import { bigGoalAnswer } from './big-answer.ts';
import { listen, type Running } from './support.ts';

const NOW = new Date('2025-06-13T10:00:00Z');
const core = createMockCore({ now: () => NOW });
const fixtures = fixturesOf(core.seed, core.seed.state);
const CLOSE = operationModel('closeGoal');
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** What the target answers to the next closeGoal: status, headers and bytes. */
let answer: { status: number; headers: Record<string, string>; body: Buffer } = { status: 200, headers: {}, body: Buffer.alloc(0) };
let target: Running;
let proxy: ValidationProxy;
let port = 0;
const printed: Entry[] = [];
let answers = 0;

beforeAll(async () => {
  target = await listen(
    createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        // The records the proxy reads before a first write: none here (a warning of the exchange, not a violation).
        if ((req.url ?? '').startsWith('/__mock/')) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end('{}');
          return;
        }
        res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
        res.end(answer.body);
      });
    }),
  );
  proxy = createValidationProxy({
    target: target.url,
    knowledge: new TokenKnowledge({ tokens: fixtures.tokens, records: { projects: fixtures.projects, goals: fixtures.goals }, people: fixtures.people }),
    onViolation: (entry) => printed.push(entry),
  });
  port = Number(new URL(await proxy.listen(0)).port);
});
afterAll(async () => {
  await proxy.close();
  await target.close();
});

type Reply = { status: number; headers: IncomingMessage['headers']; bytes: Buffer };

function call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** closeGoal of the open goal with the full-access token, through the proxy; the log's entry for it. */
async function closeGoal(session: string): Promise<{ reply: Reply; entry: Entry | undefined }> {
  const before = proxy.log.entries().at(-1)?.seq ?? 0;
  const reply = await call(
    'POST',
    CLOSE.path,
    { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}`, 'x-mock-session': session },
    JSON.stringify(baseBody(CLOSE, fixtures.goals['open'] ?? '')),
  );
  return { reply, entry: proxy.log.entries(before)[0] };
}

const jsonAnswer = (text: string, extra: Record<string, string> = {}) => ({
  status: 200,
  headers: {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': texts.cacheControl,
    'x-request-id': `F_uAnbzq1dCbYgIAA${String(++answers).padStart(3, '0')}`,
    // The state rules read today from the Date header: the fixed clock's day.
    date: NOW.toUTCString(),
    ...extra,
  },
  body: Buffer.from(text),
});

describe('an answer with 6,000 bad array items', () => {
  it('is one entry of 100 violations and an exact "and N more", counted whole in the header and the summary', async () => {
    answer = jsonAnswer(bigGoalAnswer(6000));
    const { reply, entry } = await closeGoal('big');
    expect(reply.status).toBe(200);
    expect(reply.bytes.equals(answer.body)).toBe(true);
    if (!entry) throw new Error('no entry for the exchange');
    // The 42,000 schema errors of the checklist (7 per entry), and whatever else the answer breaks, all counted.
    expect(entry.errors).toBeGreaterThanOrEqual(42_000);
    expect(reply.headers[VIOLATIONS_HEADER.toLowerCase()]).toBe(String(entry.errors));
    expect(proxy.log.summary('', 0).violations).toBe(entry.errors);
    expect(entry.violations).toHaveLength(MAX_REPORTED + 1);
    expect(entry.lines).toHaveLength(MAX_REPORTED + 1);
    const left = entry.errors + entry.warnings - MAX_REPORTED;
    const counts = [`${entry.errors - MAX_REPORTED} errors`, ...(entry.warnings > 0 ? [`${entry.warnings} warning${entry.warnings === 1 ? '' : 's'}`] : [])];
    expect(entry.violations.at(-1)).toMatchObject({
      severity: 'error',
      code: 'violations.more',
      location: 'response',
      message: `and ${left} more (${counts.join(' and ')}) not listed: ${entry.errors + entry.warnings} in all, the first ${MAX_REPORTED} shown`,
    });
    expect(entry.violations.slice(0, MAX_REPORTED).every((v) => v.severity === 'error')).toBe(true);
    // The entry was 12.9 MB with every violation in it; now it is the 100 and the request.
    expect(Buffer.byteLength(JSON.stringify(entry))).toBeLessThan(128 * 1024);
    expect(printed.at(-1)?.seq).toBe(entry.seq);
  }, 60_000);
});

describe("the proxy's violations log", () => {
  const filed = (i: number, size: number): FiledViolation[] =>
    Array.from({ length: 3 }, (_, k) => ({
      location: ['response', 'body', `field-${i}-${k}`],
      code: 'schema.type',
      severity: 'error',
      message: `${'x'.repeat(size)} ${i}`,
      rule: 'spec.schema',
    }));
  const describeExchange = (i: number, size: number) => () => ({
    at: NOW.toISOString(),
    method: 'POST',
    path: CLOSE.path,
    status: 200,
    request: `curl -X POST --data-binary '${'y'.repeat(size)}${i}'`,
    response: '200 application/json',
    expected: 'the record decides',
  });

  it('keeps at most its bytes: the oldest entries go first, the newest always stays, and the count is exact', () => {
    const log = new ViolationLog(1000, MIN_MAX_BYTES);
    for (let i = 1; i <= 60; i++) {
      log.record('closeGoal', ['spec.schema'], filed(i, 300), describeExchange(i, 16_000));
      expect(log.bytes).toBeLessThanOrEqual(MIN_MAX_BYTES);
    }
    const kept = log.entries();
    expect(kept.length).toBeGreaterThan(10);
    expect(kept.length).toBeLessThan(60);
    expect(kept.at(-1)?.seq).toBe(60);
    expect(kept.map((e) => e.seq)).toEqual(Array.from({ length: kept.length }, (_, i) => 61 - kept.length + i));
    expect(kept.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0)).toBe(log.bytes);
    expect(log.summary('', 0).buffer).toEqual({ capacity: 1000, kept: kept.length, dropped: 60 - kept.length, bytes: log.bytes, max_bytes: MIN_MAX_BYTES });
    expect(log.summary('', 0).violations).toBe(180);
  });

  it('cuts a text from outside to a few hundred characters, so one entry never holds megabytes', () => {
    const log = new ViolationLog(10, MIN_MAX_BYTES);
    const entry = log.record('closeGoal', ['spec.schema'], filed(1, 2_000_000), describeExchange(1, 10));
    expect(entry?.violations[0]?.message).toBe(`${'x'.repeat(400)}… (2000002 characters)`);
    expect(log.bytes).toBeLessThan(8 * 1024);
    expect(new ViolationLog(10, 1).maxBytes).toBe(MIN_MAX_BYTES);
  });
});

describe('an answer whose codings stack', () => {
  const body = Buffer.from(JSON.stringify({ goal: { id: 'x' } }));
  const bounds = { maxBytes: 1024 * 1024, timeoutMs: 10_000 };
  const layers = (n: number, bytes: Buffer = body): Buffer => (n === 0 ? bytes : brotliCompressSync(layers(n - 1, bytes)));

  it(`undoes up to ${MAX_CODINGS} codings and refuses more in one line, before decoding any`, async () => {
    expect(await decodeBody(layers(MAX_CODINGS), Array(MAX_CODINGS).fill('br').join(', '), bounds)).toEqual({ ok: true, body });
    expect(await decodeBody(layers(4), 'br, br, br, br', bounds)).toEqual({
      ok: false,
      reason: 'encoding',
      message: 'Content-Encoding lists 4 codings (br, br, br, …); the proxy undoes at most 3 (servers send one)',
    });
    // `identity` and empty items are no codings.
    expect(await decodeBody(layers(1), 'identity, br, , identity', bounds)).toEqual({ ok: true, body });
  });

  it('refuses a name that is no coding of its own at once, even one every object has', async () => {
    for (const name of ['constructor', '__proto__', 'toString'])
      expect(await decodeBody(body, name, bounds)).toEqual({
        ok: false,
        reason: 'encoding',
        message: `Content-Encoding "${name.toLowerCase()}" is none the proxy can decode (gzip, deflate, br)`,
      });
  });

  it('holds all the layers to one byte budget: three that each fit but together pass twice --max-body-bytes are refused', async () => {
    // Stored (level 0) gzip of random bytes: every layer is as large as the body it holds.
    const random = randomBytes(Math.floor(bounds.maxBytes * 0.8));
    const stored = (bytes: Buffer): Buffer => gzipSync(bytes, { level: 0 });
    expect(await decodeBody(stored(stored(random)), 'gzip, gzip', bounds)).toEqual({ ok: true, body: random });
    expect(await decodeBody(stored(stored(stored(random))), 'gzip, gzip, gzip', bounds)).toEqual({
      ok: false,
      reason: 'size',
      message: `the answer's 3 codings decode to more than ${budgetOf(bounds.maxBytes)} bytes together (twice --max-body-bytes)`,
    });
  });

  it("decodes by the exchange's one deadline: an answer whose --timeout has run out is not decoded at all", async () => {
    expect(await decodeBody(layers(2), 'br, br', { ...bounds, deadline: performance.now() - 1 })).toEqual({
      ok: false,
      reason: 'timeout',
      message: 'the answer was not decoded within --timeout (10000 ms from the request)',
    });
    expect(await decodeBody(layers(2), 'br, br', { ...bounds, deadline: performance.now() + 60_000 })).toEqual({ ok: true, body });
  });

  it('forwards an answer with 5,000 codings as sent, files it as one violation, and goes on serving', async () => {
    answer = jsonAnswer('', { 'content-encoding': Array(5000).fill('br').join(',') });
    answer.body = layers(1, Buffer.from(bigGoalAnswer(1)));
    const { reply, entry } = await closeGoal('codings');
    expect(reply.status).toBe(200);
    expect(reply.bytes.equals(answer.body)).toBe(true);
    expect(reply.headers[VIOLATIONS_HEADER.toLowerCase()]).toBe('1');
    expect(entry?.lines).toEqual([
      '✗ error   response.body  Content-Encoding lists 5000 codings (br, br, br, …); the proxy undoes at most 3 (servers send one); it was forwarded unchecked  [response.encoding]',
    ]);
    const summary = await call('GET', '/__proxy/summary', {});
    expect(summary.status).toBe(200);
    answer = jsonAnswer(bigGoalAnswer(0));
    expect((await closeGoal('after')).reply.status).toBe(200);
  });
});

describe("a target's strings with line breaks and escape sequences", () => {
  const forged = ['\n✗ #1 fake', '\r', '\u001b[31m', '\u009b2J'];

  it('reach no printed line, no /__proxy/violations entry and no JUnit text raw', async () => {
    const body = JSON.parse(bigGoalAnswer(0));
    body.goal.id = `goal${forged.join('')}`;
    for (const name of forged) body.goal[`field${name}`] = 1;
    answer = jsonAnswer(JSON.stringify(body));
    const { entry } = await closeGoal('forged');
    if (!entry) throw new Error('no entry for the exchange');
    expect(entry.lines).toContain(
      `✗ error   response.body.goal.id  the response is about goal goal\\u000a✗ #1 fake\\u000d\\u001b[31m\\u009b2J, not the one that was closed (${fixtures.goals['open']})  [state.record]`,
    );
    expect(entry.lines).toContain(
      '! warning response.body.goal["field\\n✗ #1 fake"]  field "field\\n✗ #1 fake" is not in the spec (an additive field: reported, not a failure)  [field.unknown]',
    );
    expect(entry.lines).toContain(
      '! warning response.body.goal["field\\u001b[31m"]  field "field\\u001b[31m" is not in the spec (an additive field: reported, not a failure)  [field.unknown]',
    );
    const served = await call('GET', '/__proxy/violations', {});
    const listed: unknown = JSON.parse(served.bytes.toString('utf8'));
    const strings: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === 'string') strings.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
    };
    walk(listed);
    expect(strings.length).toBeGreaterThan(20);
    expect(strings.filter((s) => UNPRINTABLE.test(s))).toEqual([]);
    for (const line of printed.flatMap((e) => [...e.lines, e.request, e.response, e.path])) expect(line).not.toMatch(UNPRINTABLE);
    const junit = proxy.junit();
    expect(junit).toContain('goal\\u000a✗ #1 fake\\u000d\\u001b[31m\\u009b2J');
    expect(junit.replaceAll('\n', '')).not.toMatch(UNPRINTABLE);
  });
});
