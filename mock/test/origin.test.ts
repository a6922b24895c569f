// What a web page can make the mock do: the controls hand out tokens and reset sessions, so a page
// from another origin gets no CORS answer from them and cannot change state through them, with or without
// --cors-origin; and the mock the CLI starts answers only the Host names it listens on (DNS rebinding gets 421).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from './http.ts';

const EVIL = 'https://evil.example';

describe('the controls and a cross-origin page', () => {
  for (const [label, options] of [
    ['with the default CORS', {}],
    ['with --cors-origin http://localhost:5173', { cors: { enabled: true, origins: ['http://localhost:5173'] } }],
  ] as const) {
    describe(label, () => {
      let mock: RunningMock;
      beforeAll(async () => {
        mock = await startMock(options);
      });
      afterAll(() => mock.close());

      it('answers GET /__mock/fixtures to a foreign origin with no CORS header, so the page cannot read the tokens', async () => {
        const answer = await mock.send({ method: 'GET', path: '/__mock/fixtures', headers: { origin: EVIL } });
        expect(answer.headers['access-control-allow-origin']).toBeUndefined();
        expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
        const preflight = await mock.send({
          method: 'OPTIONS',
          path: '/__mock/fixtures',
          headers: { origin: EVIL, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-mock-session' },
        });
        expect(preflight.status).toBe(204);
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      });

      it('refuses a simple cross-site POST /__mock/reset?all=true (text/plain) with 403, and resets nothing', async () => {
        const token = mock.fixtures.tokens['full_access'];
        await mock.post('/api/external/v1/projects/resume', { project_id: mock.fixtures.projects['paused'], message: '{"type":"doc","content":[]}' }, token, {
          'x-mock-session': 'victim',
        });
        const before = (await mock.send({ method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': 'victim' } })).text;
        const answer = await mock.send({ method: 'POST', path: '/__mock/reset?all=true', headers: { origin: EVIL, 'content-type': 'text/plain' }, body: 'x' });
        expect(answer.status).toBe(403);
        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(answer.json()).toEqual({
          error: 'Cross-origin request refused',
          message:
            'POST /__mock/reset from origin "https://evil.example" is refused: only loopback origins, or the ones named with --cors-origin, may change this server\'s state',
        });
        expect((await mock.send({ method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': 'victim' } })).text).toBe(before);
      });
    });
  }

  it('still serves a loopback dev server (the default) and no Origin at all (curl, tests) as before', async () => {
    const mock = await startMock();
    try {
      const fromDevServer = await mock.send({ method: 'GET', path: '/__mock/fixtures', headers: { origin: 'http://localhost:5173' } });
      expect(fromDevServer.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect((await mock.send({ method: 'POST', path: '/__mock/reset', headers: { origin: 'http://127.0.0.1:3000' } })).status).toBe(200);
      expect((await mock.send({ method: 'POST', path: '/__mock/reset?all=true' })).status).toBe(200);
    } finally {
      await mock.close();
    }
  });
});

describe('the Host a request names, on the mock the CLI starts', () => {
  const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
  function start(args: string[]): Promise<{ port: number; stop(): void }> {
    const child = spawn(process.execPath, [MAIN, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    return new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        const port = /^port: (\d+)/m.exec(out)?.[1];
        if (port && out.includes('fixtures as JSON')) {
          clearInterval(timer);
          resolve({ port: Number(port), stop: () => child.kill('SIGKILL') });
        }
      }, 20);
      child.once('exit', () => {
        clearInterval(timer);
        reject(new Error(out));
      });
    });
  }

  it('answers its own names and --allowed-host, and 421 to any other Host (DNS rebinding), controls and API alike', async () => {
    const mock = await start(['--allowed-host', 'mock.internal']);
    const { send } = await import('./http.ts');
    try {
      for (const host of [`127.0.0.1:${mock.port}`, `localhost:${mock.port}`, `mock.internal:${mock.port}`]) {
        expect((await send(mock.port, { method: 'GET', path: '/__mock/fixtures', headers: { host } })).status, host).toBe(200);
      }
      for (const path of ['/__mock/fixtures', '/api/external/v1/projects/resume']) {
        const refused = await send(mock.port, {
          method: path.startsWith('/__mock') ? 'GET' : 'POST',
          path,
          headers: { host: `evil.example:${mock.port}`, 'content-type': 'application/json' },
          body: path.startsWith('/__mock') ? undefined : '{}',
        });
        expect(refused.status).toBe(421);
        expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
        const body = refused.json() as { error: string; message: string };
        expect(body.error).toBe('Misdirected request');
        expect(body.message).toContain('"evil.example:');
        expect(refused.text).not.toContain('opk_');
      }
    } finally {
      mock.stop();
    }
  });

  it('answers --allowed-host NAME (no port) on any port and with none, as a proxy sends it (Host: mock), and no other name', async () => {
    const mock = await start(['--allowed-host', 'mock', '--allowed-host', 'mock.example:8443']);
    const { send } = await import('./http.ts');
    try {
      for (const host of ['mock', 'MOCK:80', 'mock:8080', `mock:${mock.port}`, 'mock.example:8443'])
        expect((await send(mock.port, { method: 'GET', path: '/__mock/fixtures', headers: { host } })).status, host).toBe(200);
      for (const host of ['mock.example', 'mock.example:8444', 'mockx:8080', 'evil.mock', 'mock:8080.evil']) {
        const refused = await send(mock.port, { method: 'GET', path: '/__mock/fixtures', headers: { host } });
        expect(refused.status, host).toBe(421);
        const body = refused.json() as { error: string; message: string };
        expect(body.message).toBe(
          `This mock does not answer Host ${JSON.stringify(host)} (it answers localhost:${mock.port}, 127.0.0.1:${mock.port}, [::1]:${mock.port}, mock (any port), mock.example:8443); if clients reach it by that name, add the name to its --allowed-host names (without :port it matches any port)`,
        );
      }
    } finally {
      mock.stop();
    }
  });

  it('exits 2 with one line on a malformed --allowed-host', async () => {
    const child = spawn(process.execPath, [MAIN, '--allowed-host', 'http://x/'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '' } });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err.trim()).toBe('error: --allowed-host must be a host name or address, with an optional :port, got "http://x/"');
  });
});
