// The validation proxy's bodies: an answer compressed with gzip, deflate or br is checked
// decoded and forwarded byte for byte; a body that is not what its Content-Encoding says is itself a violation; and the
// proxy's own reads of the mock's records stop at --max-body-bytes and --timeout, the client's request answered either way.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { fixturesOf } from '../../mock/src/core/controls.ts';
import { endlessAnswer } from '../../mock/test/fuzz/proxyAttack.ts';
import { createMockCore } from '../../mock/src/core/core.ts';
import { TokenKnowledge } from '../proxy/knowledge.ts';
import { createValidationProxy, VIOLATIONS_HEADER, type ProxyOptions } from '../proxy/server.ts';
import { listen } from './support.ts';

const NOW = new Date('2025-06-13T10:00:00Z');
const RESUME = '/api/external/v1/projects/resume';
const opened: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const thing of opened.splice(0)) await thing.close();
});

type Exchange = { status: number; headers: IncomingMessage['headers']; bytes: Buffer };

function call(port: number, path: string, headers: Record<string, string>, body?: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: body === undefined ? 'GET' : 'POST', path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const running = await listen(createServer(handler));
  opened.push(running);
  return running.port;
}

const core = createMockCore({ now: () => NOW });
const fixtures = fixturesOf(core.seed, core.seed.state);
const knowledge = (): TokenKnowledge =>
  new TokenKnowledge({ tokens: fixtures.tokens, records: { projects: fixtures.projects, goals: fixtures.goals }, people: fixtures.people });

/** The mock, answering through `encode` (what the target sends instead of the mock's bytes, and its Content-Encoding). */
function mockTarget(
  encode: (bytes: Buffer, req: IncomingMessage) => { bytes: Buffer; encoding?: string },
  records?: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<number> {
  return serve((req, res) => {
    if (records?.(req, res)) return;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const body = req.method === 'POST' ? Buffer.concat(chunks) : undefined;
      void core
        .fetch(new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) }))
        .then(async (answer) => {
          const plain = Buffer.from(await answer.arrayBuffer());
          const sent = encode(plain, req);
          const out: Record<string, string> = Object.fromEntries(answer.headers);
          delete out['content-length'];
          if (sent.encoding) out['content-encoding'] = sent.encoding;
          // The mock's clock is fixed: its Date header says the same day (the state rules read today from it).
          res.writeHead(answer.status, { ...out, date: NOW.toUTCString(), 'content-length': String(sent.bytes.length) });
          res.end(sent.bytes);
        });
    });
  });
}

async function proxyTo(port: number, extra: Partial<ProxyOptions> = {}) {
  const proxy = createValidationProxy({ target: `http://127.0.0.1:${port}`, knowledge: knowledge(), ...extra });
  opened.push(proxy);
  const url = await proxy.listen(0);
  return { proxy, port: Number(new URL(url).port) };
}

const resumeBody = (_label: string): string => JSON.stringify({ project_id: fixtures.projects['paused'], message: '{"type":"doc","content":[]}' });

describe('a target that compresses its answers', () => {
  for (const [coding, encode] of [
    ['gzip', (b: Buffer) => gzipSync(b)],
    ['deflate', (b: Buffer) => deflateSync(b)],
    ['br', (b: Buffer) => brotliCompressSync(b)],
  ] as const) {
    it(`finds no violation in a correct ${coding} 200 or 401, and forwards the ${coding} bytes unchanged`, async () => {
      const sent: Buffer[] = [];
      // As a server does: compressed only when the client accepts it (the proxy's own reads do not).
      const target = await mockTarget((bytes, req) => {
        if (!(req.headers['accept-encoding'] ?? '').includes(coding)) return { bytes };
        const out = encode(bytes);
        sent.push(out);
        return { bytes: out, encoding: coding };
      });
      const { proxy, port } = await proxyTo(target);
      const headers = { 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br', 'x-mock-session': `enc-${coding}` };
      const ok = await call(port, RESUME, { ...headers, authorization: `Bearer ${fixtures.tokens['full_access']}` }, resumeBody(coding));
      expect(ok.status).toBe(200);
      expect(ok.headers['content-encoding']).toBe(coding);
      expect(ok.headers[VIOLATIONS_HEADER.toLowerCase()]).toBeUndefined();
      expect(ok.bytes.equals(sent[0] ?? Buffer.alloc(1))).toBe(true);
      const refused = await call(port, RESUME, headers, resumeBody(coding));
      expect(refused.status).toBe(401);
      expect(refused.headers[VIOLATIONS_HEADER.toLowerCase()]).toBeUndefined();
      expect(refused.bytes.equals(sent[1] ?? Buffer.alloc(1))).toBe(true);
      expect(proxy.log.entries(0)).toEqual([]);
      expect(proxy.log.summary('', 0)).toMatchObject({ checked: 2, broken: 0, violations: 0 });
    });
  }

  it('reads a raw deflate stream as browsers do, and a chain of codings last applied first', async () => {
    const target = await mockTarget((bytes, req) =>
      (req.url ?? '').startsWith('/__mock/')
        ? { bytes }
        : req.headers['x-mock-session'] === 'raw'
          ? { bytes: deflateRawSync(bytes), encoding: 'deflate' }
          : { bytes: gzipSync(brotliCompressSync(bytes)), encoding: 'br, gzip' },
    );
    const { proxy, port } = await proxyTo(target);
    for (const session of ['raw', 'chain']) {
      const ok = await call(
        port,
        RESUME,
        { 'content-type': 'application/json', 'x-mock-session': session, authorization: `Bearer ${fixtures.tokens['full_access']}` },
        resumeBody(session),
      );
      expect(ok.status).toBe(200);
      expect(ok.headers[VIOLATIONS_HEADER.toLowerCase()]).toBeUndefined();
    }
    expect(proxy.log.summary('', 0)).toMatchObject({ checked: 2, broken: 0 });
  });

  it('files a body that is not what its Content-Encoding says as one encoding violation, and forwards it as sent', async () => {
    const target = await mockTarget((bytes, req) =>
      (req.url ?? '').startsWith('/__mock/')
        ? { bytes }
        : req.headers['x-mock-session'] === 'zstd'
          ? { bytes, encoding: 'zstd' }
          : { bytes: Buffer.concat([bytes, Buffer.from('not gzip')]), encoding: 'gzip' },
    );
    const { proxy, port } = await proxyTo(target);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}` };
    const bad = await call(port, RESUME, { ...headers, 'x-mock-session': 'bad' }, resumeBody('bad'));
    expect(bad.status).toBe(200);
    expect(bad.headers[VIOLATIONS_HEADER.toLowerCase()]).toBe('1');
    expect(bad.bytes.toString('utf8')).toMatch(/^\{"project":\{.*not gzip$/);
    const unknown = await call(port, RESUME, { ...headers, 'x-mock-session': 'zstd' }, resumeBody('zstd'));
    expect(unknown.headers[VIOLATIONS_HEADER.toLowerCase()]).toBe('1');
    const [first, second] = proxy.log.entries(0);
    expect(first?.violations).toEqual([
      {
        severity: 'error',
        rule: 'encoding',
        code: 'response.encoding',
        location: 'response.body',
        message: expect.stringMatching(/^the body does not decode as Content-Encoding gzip: .+; it was forwarded unchecked$/),
      },
    ]);
    expect(second?.violations[0]?.message).toBe('Content-Encoding "zstd" is none the proxy can decode (gzip, deflate, br); it was forwarded unchecked');
  });

  it('stops decoding at --max-body-bytes: a small gzip that inflates past it is response.too-large, forwarded unchanged', async () => {
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20));
    const target = await mockTarget((bytes, req) => ((req.url ?? '').startsWith('/__mock/') ? { bytes } : { bytes: bomb, encoding: 'gzip' }));
    const { proxy, port } = await proxyTo(target, { maxBodyBytes: 64 * 1024 });
    const answer = await call(
      port,
      RESUME,
      { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}` },
      resumeBody('bomb'),
    );
    expect(answer.bytes.equals(bomb)).toBe(true);
    expect(gunzipSync(answer.bytes).length).toBe(4 * 1024 * 1024);
    expect(answer.headers[VIOLATIONS_HEADER.toLowerCase()]).toBe('1');
    expect(proxy.log.entries(0)[0]?.violations.map((v) => [v.rule, v.code, v.message])).toEqual([
      ['size', 'response.too-large', 'the answer decodes to more than the 65536 bytes the proxy checks (--max-body-bytes); it was forwarded unchecked'],
    ]);
  });
});

describe('the records the proxy reads before a first write', () => {
  const recordsPath = (req: IncomingMessage): boolean => (req.url ?? '').startsWith('/__mock/records/');

  it('stops an endless records answer at --max-body-bytes, answers the client, and reports the missing baseline', async () => {
    let sent = 0;
    const target = await mockTarget(
      (bytes) => ({ bytes }),
      (req, res) => {
        if (!recordsPath(req)) return false;
        endlessAnswer(res, (bytes) => {
          sent += bytes;
        });
        return true;
      },
    );
    const { proxy, port } = await proxyTo(target, { maxBodyBytes: 256 * 1024, timeoutMs: 20_000 });
    const answer = await call(
      port,
      RESUME,
      { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}` },
      resumeBody('endless'),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.bytes.toString('utf8'))).toMatchObject({ project: { state: 'active' } });
    // Each of the fixture records was cut off near the bound (plus what the sockets buffer), never read on.
    expect(sent).toBeLessThan(knowledge().recordIds.length * 16 * 1024 * 1024);
    expect(sent).toBeGreaterThan(256 * 1024);
    // The failed baselines are warnings (the exchange itself is correct): counted in the summary, never a violation.
    expect(proxy.log.summary('', 0)).toMatchObject({ checked: 1, broken: 0, violations: 0, warnings: 5, warnings_by_code: { 'left-alone.baseline': 5 } });
    expect(answer.headers[VIOLATIONS_HEADER.toLowerCase()]).toBeUndefined();
  }, 30_000);

  it('gives up a records answer that trickles past --timeout, and still answers the client', async () => {
    const target = await mockTarget(
      (bytes) => ({ bytes }),
      (req, res) => {
        if (!recordsPath(req)) return false;
        res.writeHead(200, { 'content-type': 'application/json' });
        const tick = setInterval(() => (res.destroyed ? clearInterval(tick) : res.write(' ')), 50);
        res.on('close', () => clearInterval(tick));
        return true;
      },
    );
    const { proxy, port } = await proxyTo(target, { timeoutMs: 1000 });
    const answer = await call(
      port,
      RESUME,
      { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}` },
      resumeBody('slow'),
    );
    expect(answer.status).toBe(200);
    expect(proxy.log.summary('', 0)).toMatchObject({ checked: 1, broken: 0, warnings_by_code: { 'left-alone.baseline': 5 } });
  }, 30_000);
});
