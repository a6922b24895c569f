// The validation proxy against hostile traffic: it holds no more than its buffers when the target does not
// read an upload or the client does not read an answer (backpressure both ways), forwards an absolute-form target in
// origin form to --target only, answers only the Host names it listens on, and refuses a cross-site reset.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenHosts } from '../../mock/src/server/hosts.ts';
import { createValidationProxy, type ValidationProxy } from '../proxy/server.ts';
import { listen } from './support.ts';

const MB = 1024 * 1024;
const opened: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const thing of opened.splice(0)) await thing.close();
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  const running = await listen(server);
  opened.push(running);
  return { server, port: running.port };
}

async function proxyTo(port: number, extra: Partial<Parameters<typeof createValidationProxy>[0]> = {}): Promise<{ proxy: ValidationProxy; port: number }> {
  const proxy = createValidationProxy({ target: `http://127.0.0.1:${port}`, allowedHosts: (own) => listenHosts('127.0.0.1', own), ...extra });
  opened.push(proxy);
  const url = await proxy.listen(0);
  return { proxy, port: Number(new URL(url).port) };
}

/** Waits until `value()` stops growing (two samples 200 ms apart), or reaches `limit`; returns the last value. */
async function untilStalled(value: () => number, limit: number): Promise<number> {
  let last = -1;
  for (let i = 0; i < 150; i++) {
    const now = value();
    if (now >= limit || now === last) return now;
    last = now;
    await new Promise((r) => setTimeout(r, 200));
  }
  return value();
}

function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (d) => {
      out += d.toString('utf8');
      if (/\r\n\r\n/.test(out) && /content-length: (\d+)/i.test(out)) {
        const length = Number(/content-length: (\d+)/i.exec(out)?.[1]);
        if (out.length - out.indexOf('\r\n\r\n') - 4 >= length) socket.end();
      }
    });
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('backpressure', () => {
  it('an upload to a target that does not read stalls the client instead of filling the proxy', async () => {
    let received = 0;
    const target = await serve((req) => {
      req.pause(); // never reads
      req.socket.on('data', () => undefined);
      received = 0;
    });
    const { port } = await proxyTo(target.port);
    const socket: Socket = connect(port, '127.0.0.1');
    opened.push({ close: () => socket.destroy() });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const total = 256 * MB;
    socket.write(
      `POST /api/external/v1/projects/resume HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(MB, 0x20);
    let written = 0;
    const pump = (): void => {
      while (written < total && socket.write(chunk)) written += MB;
      if (written < total)
        socket.once('drain', () => {
          written += MB;
          pump();
        });
    };
    pump();
    const accepted = await untilStalled(() => socket.bytesWritten, total);
    // Without backpressure the proxy reads the whole upload into memory; with it, only the sockets' buffers fill.
    expect(accepted).toBeLessThan(48 * MB);
    expect(received).toBe(0);
  }, 60_000);

  it('an answer the client does not read stalls the target instead of filling the proxy, and is a size violation', async () => {
    let sent = 0;
    const total = 256 * MB;
    const target = await serve((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(total) });
        const chunk = Buffer.alloc(MB, 0x20);
        const pump = (): void => {
          while (sent < total && res.write(chunk)) sent += MB;
          if (sent < total)
            res.once('drain', () => {
              sent += MB;
              pump();
            });
        };
        pump();
      });
    });
    const { proxy, port } = await proxyTo(target.port);
    const socket = connect(port, '127.0.0.1');
    opened.push({ close: () => socket.destroy() });
    let head = '';
    socket.on('data', (d: Buffer) => {
      if (!head.includes('\r\n\r\n')) head += d.toString('latin1');
      socket.pause(); // reads the head, then nothing more
    });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`POST /api/external/v1/projects/resume HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    const pushed = await untilStalled(() => sent, total);
    expect(pushed).toBeLessThan(48 * MB);
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toMatch(/\r\nX-Contract-Violations: 1\r\n/i);
    expect(
      proxy.log
        .entries(0)
        .at(-1)
        ?.violations.map((v) => v.code),
    ).toContain('response.too-large');
  }, 60_000);
});

describe('what the proxy forwards and to whom it answers', () => {
  it('forwards an absolute-form target in origin form to --target, with the target as Host', async () => {
    const seen: Array<{ url: string | undefined; host: string | undefined }> = [];
    const target = await serve((req, res) => {
      seen.push({ url: req.url, host: req.headers.host });
      res.writeHead(404, { 'content-length': '0' });
      res.end();
    });
    const { port } = await proxyTo(target.port);
    const answer = await raw(port, `GET http://internal-admin.example/secret?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(seen).toEqual([{ url: '/secret?x=1', host: `127.0.0.1:${target.port}` }]);
    const refused = await raw(port, `GET ftp://internal-admin.example/x HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(refused).toMatch(/^HTTP\/1\.1 400 /);
    expect(seen).toHaveLength(1);
  });

  it('answers 421 to a Host it does not listen on (DNS rebinding) and forwards nothing', async () => {
    let forwarded = 0;
    const target = await serve((_req, res) => {
      forwarded++;
      res.end();
    });
    const { port } = await proxyTo(target.port);
    for (const path of ['/__proxy/violations', '/api/external/v1/projects/resume']) {
      const answer = await raw(port, `GET ${path} HTTP/1.1\r\nHost: evil.example:${port}\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 421 /);
      expect(answer).toContain('"error": "Misdirected request"');
    }
    expect(forwarded).toBe(0);
  });

  it('refuses POST /__proxy/reset from a foreign Origin (403) and keeps the log; accepts it with none', async () => {
    const target = await serve((_req, res) => res.end());
    const { port } = await proxyTo(target.port);
    const refused = await raw(
      port,
      `POST /__proxy/reset HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: https://evil.example\r\nContent-Type: text/plain\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx`,
    );
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).toContain('"error": "Cross-origin request refused"');
    const fine = await raw(port, `POST /__proxy/reset HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    expect(fine).toMatch(/^HTTP\/1\.1 200 /);
  });
});

// ── a target that echoes credentials back, and one that never stops answering ────────────────────────────────────

/** The mock, except that every answer but a 200 echoes the caller's credentials back in every form a server might. */
async function echoingTarget(): Promise<{ port: number; tokens: string[] }> {
  const { createMockCore } = await import('../../mock/src/core/core.ts');
  const { fixturesOf } = await import('../../mock/src/core/controls.ts');
  const core = createMockCore();
  const fixtures = fixturesOf(core.seed, core.seed.state);
  const target = await serve((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const body = ['GET', 'HEAD'].includes(req.method ?? 'GET') ? undefined : Buffer.concat(chunks);
      void core
        .fetch(new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) }))
        .then(async (answer) => {
          const auth = req.headers.authorization ?? '';
          const echoed = [
            // Encoded first, so that the proxy's 300-character excerpt holds them too: base64
            // standard and URL-safe, with and without padding, hex and every byte %XX, of the token and of the header.
            ...encodings(auth.replace(/^\S+\s+/, '')).slice(0, 3),
            auth,
            auth.toLowerCase(),
            auth.replace(' ', '\t'),
            encodeURIComponent(auth),
            String(req.headers['x-auth-token'] ?? ''),
            req.url ?? '',
            ...encodings(auth),
            ...encodings(auth.replace(/^\S+\s+/, '')),
          ].join(' | ');
          if (answer.status === 200 || (req.url ?? '').startsWith('/__mock/')) {
            res.writeHead(answer.status, Object.fromEntries(answer.headers));
            res.end(Buffer.from(await answer.arrayBuffer()));
          } else {
            res.writeHead(400, {
              'content-type': 'text/plain',
              'x-echo': auth.replace(/[^\x20-\x7e]/g, ' '),
              'x-echo-base64': Buffer.from(auth).toString('base64'),
              'x-echo-hex': Buffer.from(auth.replace(/^\S+\s+/, '')).toString('hex'),
            });
            res.end(`bad token: ${echoed}`);
          }
        });
    });
  });
  return { port: target.port, tokens: Object.values(fixtures.tokens) };
}

/** A text's encodings a server might echo: base64 (standard, URL-safe; padded or not), hex, every byte percent-encoded. */
function encodings(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const b64 = bytes.toString('base64');
  return [
    b64,
    b64.replace(/=+$/, ''),
    bytes.toString('base64url'),
    bytes.toString('hex'),
    [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
  ];
}

/** The tokens found in a text as themselves, URL-encoded, or in any encoding of `encodings` (the bare token's). */
function rawTokens(text: string, tokens: ReadonlyArray<string>): string[] {
  const lower = text.toLowerCase();
  return tokens.filter(
    (token) =>
      lower.includes(token.toLowerCase()) ||
      text.includes(encodeURIComponent(token)) ||
      encodings(token).some((form) => lower.includes(form.toLowerCase().replace(/=+$/, '').slice(0, -2))),
  );
}

describe('a target that echoes the credentials it is sent', () => {
  it('never makes the contract suite print a token: stdout and the JUnit report hold none, in any form', async () => {
    const { execFile } = await import('node:child_process');
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const target = await echoingTarget();
    const report = join(mkdtempSync(join(tmpdir(), 'echo-junit-')), 'junit.xml');
    const bin = new URL('../../cli/bin.cjs', import.meta.url).pathname;
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CONTRACT_')));
    const ran = await new Promise<{ code: number; out: string }>((resolve) => {
      execFile(
        process.execPath,
        [bin, 'contract', '--base-url', `http://127.0.0.1:${target.port}`, '--report', report],
        { env, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ code: error && typeof error.code === 'number' ? error.code : 0, out: `${stdout}\n${stderr}` }),
      );
    });
    expect(ran.code).toBe(1);
    expect(ran.out).toContain('bad token: ');
    expect(rawTokens(ran.out, target.tokens)).toEqual([]);
    expect(rawTokens(readFileSync(report, 'utf8'), target.tokens)).toEqual([]);
    expect(readFileSync(report, 'utf8')).toContain('bad token: ');
  }, 240_000);

  it('never makes the proxy keep or print a token: a tab after Bearer, X-Auth-Token, ?access_token=, a short secret', async () => {
    const target = await echoingTarget();
    const { createMockCore } = await import('../../mock/src/core/core.ts');
    const { fixturesOf } = await import('../../mock/src/core/controls.ts');
    const core = createMockCore();
    const fixtures = fixturesOf(core.seed, core.seed.state);
    const { TokenKnowledge } = await import('../proxy/knowledge.ts');
    const knowledge = new TokenKnowledge({ tokens: fixtures.tokens, records: { projects: fixtures.projects, goals: fixtures.goals }, people: fixtures.people });
    const secrets = target.tokens.map((t): [string, string] => [t, knowledge.variable(t)]);
    const { proxy, port } = await proxyTo(target.port, { knowledge, secrets });
    const token = fixtures.tokens['read_only'] ?? '';
    const body = JSON.stringify({ project_id: fixtures.projects['paused'], message: '{"type":"doc","content":[]}' });
    for (const [headers, query] of [
      [`Authorization: Bearer\t${token}\r\n`, ''],
      [`Authorization: bearer ${token.toUpperCase()}\r\n`, ''],
      [`X-Auth-Token: ${token}\r\nAuthorization: Bearer ${token}\r\n`, ''],
      ['Authorization: Bearer s3cr\r\n', `?access_token=${token}`],
    ] as const) {
      await raw(
        port,
        `POST /api/external/v1/projects/resume${query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    const violations = JSON.stringify(proxy.log.entries(0));
    expect(violations).toContain('bad token: ');
    expect(rawTokens(violations, target.tokens)).toEqual([]);
    expect(violations).not.toMatch(/(?<![A-Za-z0-9_-])s3cr(?![A-Za-z0-9_-])/);
    expect(rawTokens(proxy.junit(), target.tokens)).toEqual([]);
  }, 60_000);
});

describe('an answer that never ends', () => {
  it("is stopped at MAX_RESPONSE_BYTES by the suite's client and fails as response.too-large, never read whole", async () => {
    const { createClient, MAX_RESPONSE_BYTES, TransportError } = await import('../io/client.ts');
    let sent = 0;
    const target = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(MB, 0x20);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk)) sent += MB;
        if (!res.destroyed)
          res.once('drain', () => {
            sent += MB;
            pump();
          });
      };
      res.on('close', () => undefined);
      pump();
    });
    const client = createClient({ baseUrl: `http://127.0.0.1:${target.port}`, timeoutMs: 60_000 });
    const error = await client
      .send({ method: 'POST', path: '/api/external/v1/projects/resume', headers: { 'content-type': 'application/json' }, body: '{}' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toMatch(/^response\.too-large: the answer to POST \/api\/external\/v1\/projects\/resume passed 8388608 bytes/);
    expect(sent).toBeLessThan(MAX_RESPONSE_BYTES + 64 * MB);
  }, 60_000);
});
