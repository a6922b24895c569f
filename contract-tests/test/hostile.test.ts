// The validation proxy against hostile traffic (issue 21): it holds no more than its buffers when the target does not
// read an upload or the client does not read an answer (backpressure both ways), forwards an absolute-form target in
// origin form to --target only, answers only the Host names it listens on, and refuses a cross-site reset.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenHosts } from '../../mock/src/hosts.ts';
import { createValidationProxy, type ValidationProxy } from '../proxy/server.ts';

const MB = 1024 * 1024;
const opened: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const thing of opened.splice(0)) await thing.close();
});

function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  opened.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })));
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
    socket.write(`POST /api/external/v1/projects/resume HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`);
    const chunk = Buffer.alloc(MB, 0x20);
    let written = 0;
    const pump = (): void => {
      while (written < total && socket.write(chunk)) written += MB;
      if (written < total) socket.once('drain', () => ((written += MB), pump()));
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
          if (sent < total) res.once('drain', () => ((sent += MB), pump()));
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
    expect(proxy.log.entries(0).at(-1)?.violations.map((v) => v.code)).toContain('response.too-large');
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
    const refused = await raw(port, `POST /__proxy/reset HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: https://evil.example\r\nContent-Type: text/plain\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx`);
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).toContain('"error": "Cross-origin request refused"');
    const fine = await raw(port, `POST /__proxy/reset HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    expect(fine).toMatch(/^HTTP\/1\.1 200 /);
  });
});
