// Test helpers: a mock on a real port (0) and a raw HTTP client that sends exactly the headers it is given (fetch
// would add a Content-Type and an Accept of its own).
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockApp, fixturesOf, type MockOptions } from '../src/index.ts';

export type Sent = { method?: string; path: string; headers?: Record<string, string | string[]>; body?: string | Buffer };
export type Received = { status: number; headers: Record<string, string | string[] | undefined>; text: string; json(): unknown };

export type RunningMock = {
  url: string;
  port: number;
  fixtures: ReturnType<typeof fixturesOf>;
  send(sent: Sent): Promise<Received>;
  /** POST a JSON body to an operation path with the given token (omit the token to send none). */
  post(path: string, body: unknown, token?: string, headers?: Record<string, string>): Promise<Received>;
  state(): Promise<unknown>;
  close(): Promise<void>;
};

export const RESUME = '/api/external/v1/projects/resume';
export const CLOSE = '/api/external/v1/goals/close';

export function doc(text: string, ...mentions: Array<{ id: string; label: string }>): string {
  const content: unknown[] = [{ type: 'text', text }];
  for (const m of mentions) content.push({ type: 'mention', attrs: m });
  return JSON.stringify({ type: 'doc', content: [{ type: 'paragraph', content }] });
}

export function send(port: number, sent: Sent): Promise<Received> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: sent.method ?? 'POST', path: sent.path, headers: sent.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    if (sent.body !== undefined) req.end(sent.body);
    else req.end();
  });
}

export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const app = createMockApp(options);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const fixtures = fixturesOf(app.mock.seed, app.mock.seed.state);
  const running: RunningMock = {
    url: `http://127.0.0.1:${port}`,
    port,
    fixtures,
    send: (sent) => send(port, sent),
    post: (path, body, token, headers = {}) =>
      send(port, {
        path,
        headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    state: async () => (await send(port, { method: 'GET', path: '/__mock/state' })).json(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return running;
}
