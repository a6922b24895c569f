// The shared mock as a service, on the mock the CLI starts: the probes answer whatever the Host and stay out
// of the journals; readiness follows the store (Redis unreachable or evicting: 503 with the reason that holds now; 200
// again without a restart) and turns 503 as soon as a drain starts; the metrics count answers by operation and status;
// --log-format json writes one line per request and never a token; SIGTERM lets a request in flight finish, then exit 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSchemaValidator, formatErrors } from '../../spec/lib/ajv.ts';
import { isObject, listOperations, responseSchemaPointer } from '../../spec/lib/openapi.ts';
import { missingPeersLine, METRICS_PEERS } from '../../cli/peers.ts';
import { createMockCore } from '../src/core/core.ts';
import { DRAINING_REASON } from '../src/server/health.ts';
import { createHttpListener } from '../src/server/httpListener.ts';
import { createService } from '../src/server/service.ts';
import { doc, RESUME, send } from './http.ts';
import { freePort } from '../../spec/lib/ports.ts';
import { redisMissing, startRedis, type RedisServer } from './redisServer.ts';

const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
const missing = redisMissing();

type Cli = { child: ChildProcess; port: number; output(): string; exit: Promise<number | null> };

/** Starts `service-external-api mock --port 0 …` and waits for its port (text banner or the json start line). */
async function startCli(args: string[]): Promise<Cli> {
  const child = spawn(process.execPath, [MAIN, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '', MOCK_STORE: '' },
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const text = output.includes('fixtures as JSON') || output.includes('control endpoints: off') ? /^port: (\d+)$/m.exec(output)?.[1] : undefined;
    const port = text ?? /^\{.*"port":(\d+).*"msg":"mock listening"\}$/m.exec(output)?.[1];
    if (port) return { child, port: Number(port), output: () => output, exit };
    if (child.exitCode !== null) throw new Error(`the mock exited: ${output}`);
    if (Date.now() > deadline) throw new Error(`the mock did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function fixturesOf(port: number): Promise<{ tokens: Record<string, string>; projects: Record<string, string> }> {
  const body: unknown = (await send(port, { method: 'GET', path: '/__mock/fixtures' })).json();
  if (!isObject(body) || !isObject(body['tokens']) || !isObject(body['projects'])) throw new Error('no fixtures');
  const strings = (value: Record<string, unknown>): Record<string, string> =>
    Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  return { tokens: strings(body['tokens']), projects: strings(body['projects']) };
}

/** The problems of a probe's answer against mock/openapi.yaml (generated/mock-control.json): '' when it conforms. */
function documented(operationId: string, status: number, body: unknown): string {
  const document: unknown = JSON.parse(readFileSync(new URL('../../generated/mock-control.json', import.meta.url), 'utf8'));
  if (!isObject(document)) throw new Error('generated/mock-control.json is not a document');
  const operation = listOperations(document).find((o) => o.operationId === operationId);
  const pointer = operation && responseSchemaPointer(document, operation.pointer, status, 'application/json');
  if (!pointer) return `${operationId} documents no JSON ${status}`;
  return formatErrors(createSchemaValidator(document).validate(pointer, body));
}

/** Polls `fn` until it gives true (at most `ms`): a Redis coming back is noticed by the client's reconnect. */
async function eventually(fn: () => Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await fn()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('the probes, the metrics and the JSON log of the mock the CLI starts', () => {
  let cli: Cli;
  beforeAll(async () => {
    cli = await startCli(['--log-format', 'json', '--allowed-host', 'mock.internal']);
  }, 60_000);
  afterAll(() => {
    cli.child.kill('SIGKILL');
  });

  it('answers GET /__mock/health 200 {"status":"ok"} and /__mock/ready 200 {"status":"ready"} whatever the Host, and journals neither', async () => {
    for (const host of [`127.0.0.1:${cli.port}`, 'evil.example', 'evil.example:80', 'mock.internal:1']) {
      const health = await send(cli.port, { method: 'GET', path: '/__mock/health', headers: { host } });
      expect([health.status, health.headers['content-type'], health.text], host).toEqual([200, 'application/json; charset=utf-8', '{"status":"ok"}']);
      const ready = await send(cli.port, { method: 'GET', path: '/__mock/ready', headers: { host } });
      expect([ready.status, ready.headers['content-type'], ready.text], host).toEqual([200, 'application/json; charset=utf-8', '{"status":"ready"}']);
      expect(documented('getHealth', 200, health.json()) + documented('getReadiness', 200, ready.json())).toBe('');
    }
    // Any other control under a foreign Host is still 421.
    expect((await send(cli.port, { method: 'GET', path: '/__mock/requests', headers: { host: 'evil.example' } })).status).toBe(421);
    const journal: unknown = (await send(cli.port, { method: 'GET', path: '/__mock/requests?limit=500' })).json();
    expect(JSON.stringify(journal)).not.toMatch(/__mock\/(health|ready)/);
  });

  it('counts a resume by operation and status, with a duration histogram, sessions and process metrics, in the Prometheus text format', async () => {
    const { tokens, projects } = await fixturesOf(cli.port);
    const body = JSON.stringify({ project_id: projects['paused'], message: doc('back') });
    const session = 'metrics-1';
    const ok = await send(cli.port, {
      path: RESUME,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens['full_access']}`, 'x-mock-session': session },
      body,
    });
    expect(ok.status).toBe(200);
    const unauthorized = await send(cli.port, { path: RESUME, headers: { 'content-type': 'application/json', 'x-mock-session': session }, body });
    expect(unauthorized.status).toBe(401);
    const metrics = await send(cli.port, { method: 'GET', path: '/__mock/metrics' });
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const lines = metrics.text.split('\n');
    expect(lines).toContain('# TYPE mock_requests_total counter');
    expect(lines).toContain('mock_requests_total{operation="resumeProject",status="200"} 1');
    expect(lines).toContain('mock_requests_total{operation="resumeProject",status="401"} 1');
    expect(lines).toContain('# TYPE mock_request_duration_seconds histogram');
    expect(lines).toContain('mock_request_duration_seconds_count{operation="resumeProject"} 2');
    expect(lines).toContain('mock_request_duration_seconds_bucket{le="+Inf",operation="resumeProject"} 2');
    // The default session (the fixtures) and metrics-1.
    expect(lines).toContain('mock_sessions 2');
    expect(lines.find((line) => line.startsWith('mock_session_bytes '))).toMatch(/^mock_session_bytes [1-9]\d*$/);
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds'])
      expect(
        lines.some((line) => line.startsWith(`${name} `)),
        name,
      ).toBe(true);
    // The probes and the scrape itself are not counted (the fixtures, a control, are).
    const none = (text: string): string | undefined => text.split('\n').find((line) => line.startsWith('mock_requests_total{operation="none",status="200"}'));
    for (const path of ['/__mock/health', '/__mock/ready', '/__mock/metrics']) await send(cli.port, { method: 'GET', path });
    expect(none((await send(cli.port, { method: 'GET', path: '/__mock/metrics' })).text)).toBe(none(metrics.text));
    // The metrics answer the mock's own Host names only.
    const foreign = await send(cli.port, { method: 'GET', path: '/__mock/metrics', headers: { host: 'evil.example' } });
    expect(foreign.status).toBe(421);
  });

  it('writes one JSON line per request {level, time, method, path, operation, status, ms, session}, and never a token', async () => {
    const { tokens, projects } = await fixturesOf(cli.port);
    const token = tokens['read_only'] ?? '';
    const answer = await send(cli.port, {
      path: `${RESUME}?token=${token}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-mock-session': 'log-1' },
      body: JSON.stringify({ project_id: projects['paused'], message: doc('x') }),
    });
    // A query is an unknown input (400); the log keeps the path without it.
    expect(answer.status).toBe(400);
    // The child's stdout may arrive after its answer: wait for the line.
    const mine = (): string[] =>
      cli
        .output()
        .split('\n')
        .filter((text) => text.includes('"session":"log-1"'));
    expect(await eventually(async () => mine().length > 0)).toBe(true);
    const [line, ...more] = mine();
    expect(more).toEqual([]);
    const entry: unknown = JSON.parse(line ?? '');
    expect(entry).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      method: 'POST',
      path: RESUME,
      operation: 'resumeProject',
      status: 400,
      ms: expect.any(Number),
      session: 'log-1',
    });
    // Every line is JSON, and none holds a token (the start line points at the fixtures instead).
    for (const text of cli.output().trim().split('\n')) expect(isObject(JSON.parse(text)), text).toBe(true);
    expect(cli.output()).not.toMatch(/opk_/);
  });
});

describe('one reading of the request target for the answer, the metrics, the log and the journal', () => {
  let cli: Cli;
  beforeAll(async () => {
    cli = await startCli(['--log-format', 'json']);
  }, 60_000);
  afterAll(() => {
    cli.child.kill('SIGKILL');
  });
  const counted = async (operation: string, status: number): Promise<number> => {
    const line = (await send(cli.port, { method: 'GET', path: '/__mock/metrics' })).text
      .split('\n')
      .find((text) => text.startsWith(`mock_requests_total{operation="${operation}",status="${status}"} `));
    return Number(line?.split(' ')[1] ?? 0);
  };
  const logged = (session: string): unknown[] =>
    cli
      .output()
      .split('\n')
      .filter((text) => text.includes(`"session":"${session}"`))
      .map((text): unknown => JSON.parse(text));

  it("counts and logs every form of an operation's path it answers as that operation (//, trailing /, // inside, #fragment, absolute form)", async () => {
    const origin = await send(cli.port, { path: RESUME, headers: { 'content-type': 'application/json', 'x-mock-session': 'form-0' }, body: '{}' });
    expect(origin.status).toBe(401);
    const before = await counted('resumeProject', 401);
    const forms = [
      `/${RESUME}`,
      `${RESUME}/`,
      RESUME.replace('/external/', '//external/'),
      `${RESUME}#frag`,
      `http://127.0.0.1:${cli.port}${RESUME}`,
      `http://127.0.0.1:${cli.port}${RESUME}/#x`,
    ];
    for (const [i, path] of forms.entries()) {
      const answer = await send(cli.port, { path, headers: { 'content-type': 'application/json', 'x-mock-session': `form-${i + 1}` }, body: '{}' });
      expect([answer.status, answer.text], path).toEqual([origin.status, origin.text]);
    }
    expect(await counted('resumeProject', 401)).toBe(before + forms.length);
    expect(await eventually(async () => logged(`form-${forms.length}`).length === 1)).toBe(true);
    for (const [i, path] of forms.entries()) {
      const [line, ...more] = logged(`form-${i + 1}`);
      expect(more, path).toEqual([]);
      expect(isObject(line) ? [line['operation'], line['status']] : line, path).toEqual(['resumeProject', 401]);
      expect(isObject(line) && typeof line['path'] === 'string' ? line['path'] : line, path).not.toMatch(/#|http:|127\.0\.0\.1/);
    }
  });

  it('serves the probes and the metrics to an absolute-form target, and to a trailing slash', async () => {
    for (const path of [`http://127.0.0.1:${cli.port}/__mock/metrics`, '/__mock/metrics/', `HTTP://127.0.0.1:${cli.port}/__mock/METRICS#x`]) {
      const metrics = await send(cli.port, { method: 'GET', path });
      expect([metrics.status, metrics.headers['content-type']], path).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
    }
    // The absolute form's authority is the request's host: a foreign one is refused, as the app refuses it.
    expect((await send(cli.port, { method: 'GET', path: `http://evil.example:${cli.port}/__mock/metrics` })).status).toBe(421);
    expect((await send(cli.port, { method: 'GET', path: `http://127.0.0.1:${cli.port}/__mock/ready/` })).text).toBe('{"status":"ready"}');
    expect((await send(cli.port, { method: 'GET', path: `http://127.0.0.1:${cli.port}/__mock/health#h` })).text).toBe('{"status":"ok"}');
  });

  it("never logs or journals a credential in the target's user info or fragment", async () => {
    const secret = 'opk_SECRET-IN-TARGET';
    const userInfo = await send(cli.port, {
      path: `http://u:${secret}@127.0.0.1:${cli.port}${RESUME}`,
      headers: { 'content-type': 'application/json', 'x-mock-session': 'userinfo' },
      body: '{}',
    });
    // Answered as before (a path that names no route); production refuses user info too.
    expect(userInfo.status).toBe(404);
    const fragment = await send(cli.port, {
      path: `${RESUME}#token=${secret}`,
      headers: { 'content-type': 'application/json', 'x-mock-session': 'userinfo' },
      body: '{}',
    });
    expect(fragment.status).toBe(401);
    const journal = await send(cli.port, { method: 'GET', path: '/__mock/requests', headers: { 'x-mock-session': 'userinfo' } });
    const paths = (journal.json() as { requests: Array<{ path: string; operation: string | null }> }).requests.map((r) => [r.path, r.operation]);
    expect(paths).toEqual([
      [`//***@127.0.0.1:${cli.port}${RESUME}`, null],
      [RESUME, 'resumeProject'],
    ]);
    // The two requests' lines, once both are in; the journal's own GET (a control request of the same session) is
    // logged too, before or after them depending on how busy the machine is, and is not one of them.
    const apiLines = (): unknown[] =>
      logged('userinfo')
        .map((line) => (isObject(line) ? [line['path'], line['operation']] : line))
        .filter((line) => !(Array.isArray(line) && String(line[0]).startsWith('/__mock/')));
    expect(await eventually(async () => apiLines().length >= 2), cli.output()).toBe(true);
    expect(apiLines()).toEqual(paths);
    expect(cli.output()).not.toContain(secret);
    expect(journal.text).not.toContain(secret);
  });
});

describe('a JSON log whose reader has stopped', () => {
  it('never holds up serving: lines past the buffer are dropped and counted, and one line says how many once the reader is back', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [MAIN, '--port', String(port), '--log-format', 'json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '', MOCK_STORE: '' },
    });
    try {
      // Nobody reads its stdout (a stalled pipe): the kernel's buffer fills, then the mock's own.
      child.stdout.pause();
      expect(await eventually(async () => (await send(port, { method: 'GET', path: '/__mock/health' }).catch(() => undefined))?.status === 200)).toBe(true);
      const long = `/x${'a'.repeat(1000)}`;
      for (let i = 0; i < 1500; i++) expect((await send(port, { method: 'GET', path: long, headers: { 'x-mock-session': 'stalled' } })).status).toBe(404);
      expect((await send(port, { method: 'GET', path: '/__mock/health' })).text).toBe('{"status":"ok"}');
      const metric = (await send(port, { method: 'GET', path: '/__mock/metrics' })).text
        .split('\n')
        .find((line) => line.startsWith('mock_log_lines_dropped_total '));
      const dropped = Number(metric?.split(' ')[1]);
      // 1500 lines of about 1.1 KB: what the pipe and the 1 MB buffer hold is written, the rest dropped.
      expect(dropped).toBeGreaterThan(100);
      expect(dropped).toBeLessThan(1500);
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stdout.resume();
      expect(await eventually(async () => out.includes('"msg":"log lines dropped"'), 10_000)).toBe(true);
      const lines = out
        .trim()
        .split('\n')
        .map((line): unknown => JSON.parse(line));
      expect(lines.filter((line) => isObject(line) && line['msg'] === 'log lines dropped')).toEqual([
        { level: 'warn', time: expect.any(String), dropped, msg: 'log lines dropped' },
      ]);
      // Every line that was not dropped is whole: one JSON object per line.
      expect(lines.filter((line) => isObject(line) && line['session'] === 'stalled').length).toBe(1500 - dropped);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});

describe('without the optional peer prom-client', () => {
  it('answers GET /__mock/metrics 501 with the line that installs it, and serves everything else as before', async () => {
    const core = createMockCore();
    const line = missingPeersLine('GET /__mock/metrics', METRICS_PEERS, () => false)?.replace(/^error: /, '') ?? '';
    expect(line).toMatch(
      /^GET \/__mock\/metrics needs prom-client \(optional peer dependency of service-external-api, not installed\): npm install --save-dev 'prom-client@\^15\./,
    );
    const service = createService({ sessions: core.sessions, loadMetrics: async () => line });
    const server = createServer(service.listener(createHttpListener(core)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    try {
      const metrics = await send(port, { method: 'GET', path: '/__mock/metrics' });
      expect([metrics.status, metrics.headers['content-type']]).toEqual([501, 'application/json; charset=utf-8']);
      expect(metrics.json()).toEqual({ error: 'Mock metrics unavailable', message: line });
      expect((await send(port, { method: 'GET', path: '/__mock/health' })).text).toBe('{"status":"ok"}');
      expect((await send(port, { method: 'GET', path: '/__mock/fixtures' })).status).toBe(200);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('bad --log-format, --drain-ms and --max-waiting', () => {
  it.each([
    [['--log-format', 'xml'], 'error: --log-format must be text or json, got "xml"'],
    [['--drain-ms', '700000'], 'error: --drain-ms must be between 0 and 600000, got 700000'],
    [['--max-waiting', '0'], 'error: --max-waiting must be between 1 and 1000000, got 0'],
  ])('%j: one line on stderr and exit 2', async (args, line) => {
    const child = spawn(process.execPath, [MAIN, '--port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '', MOCK_STORE: '' },
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await new Promise<number | null>((resolve) => child.once('exit', resolve))).toBe(2);
    expect(err).toBe(`${line}\n`);
  });
});

describe('with --no-control', () => {
  it('still answers the probes (an orchestrator needs them), and no other control', async () => {
    const cli = await startCli(['--no-control']);
    try {
      expect((await send(cli.port, { method: 'GET', path: '/__mock/health' })).text).toBe('{"status":"ok"}');
      expect((await send(cli.port, { method: 'GET', path: '/__mock/ready' })).text).toBe('{"status":"ready"}');
      expect((await send(cli.port, { method: 'GET', path: '/__mock/fixtures' })).status).toBe(404);
    } finally {
      cli.child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('drain on SIGTERM and SIGINT', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: a write in flight still gets its 200; the probes still answer on new connections (ready 503), any other new request gets the mock's 503; exit 0`, async () => {
      const cli = await startCli(['--drain-ms', '10000']);
      try {
        const { tokens, projects } = await fixturesOf(cli.port);
        const inFlight = send(cli.port, {
          path: RESUME,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens['full_access']}`, prefer: 'delay=1500' },
          body: JSON.stringify({ project_id: projects['paused'], message: doc('drained') }),
        });
        // A connection whose request has begun (its headers not yet ended) when the drain starts: it is answered.
        const probe = connect(cli.port, '127.0.0.1');
        await new Promise<void>((resolve) => probe.once('connect', () => resolve()));
        probe.write('GET /__mock/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        await new Promise((resolve) => setTimeout(resolve, 300));
        cli.child.kill(signal);
        await new Promise((resolve) => setTimeout(resolve, 300));
        let raw = '';
        probe.on('data', (d: Buffer) => (raw += d.toString()));
        const probeEnded = new Promise<void>((resolve) => probe.once('close', () => resolve()));
        probe.write('\r\n');
        // New connections during the drain: the probes answer (liveness 200, readiness 503), each closing its connection.
        const health = await send(cli.port, { method: 'GET', path: '/__mock/health' });
        expect([health.status, health.text, health.headers['connection']]).toEqual([200, '{"status":"ok"}', 'close']);
        const ready = await send(cli.port, { method: 'GET', path: '/__mock/ready', headers: { host: 'anything.example' } });
        expect([ready.status, ready.json(), ready.headers['connection']]).toEqual([503, { status: 'unready', reason: DRAINING_REASON }, 'close']);
        expect(documented('getReadiness', 503, ready.json())).toBe('');
        // Any other new request: the mock's 503 at once, nothing done (a load balancer tries another replica).
        const refused = await send(cli.port, { method: 'GET', path: '/__mock/fixtures' });
        expect([refused.status, refused.json(), refused.headers['connection']]).toEqual([
          503,
          { error: 'Mock unavailable', message: DRAINING_REASON },
          'close',
        ]);
        const answer = await inFlight;
        expect(answer.status).toBe(200);
        const body: unknown = answer.json();
        expect(isObject(body) && isObject(body['project']) ? body['project']['state'] : body).toBe('active');
        await probeEnded;
        expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
        expect(raw.toLowerCase()).toContain('connection: close');
        expect(raw.slice(raw.indexOf('\r\n\r\n') + 4)).toMatch(JSON.stringify({ status: 'unready', reason: DRAINING_REASON }));
        expect(await cli.exit).toBe(0);
        expect(cli.output()).toContain(`${signal}: closing the mock (draining: requests in flight get up to 10000 ms)`);
        // Once drained, the port is closed.
        await expect(send(cli.port, { method: 'GET', path: '/__mock/health' })).rejects.toThrow(/ECONNREFUSED/);
      } finally {
        cli.child.kill('SIGKILL');
      }
    }, 60_000);
  }

  it('cuts off what is still in flight after --drain-ms, says how many, and still exits 0', async () => {
    const cli = await startCli(['--drain-ms', '200']);
    try {
      // Each outcome is taken as it settles: both are cut off at once, and a rejection nobody awaits yet is unhandled.
      const slow = [1, 2].map(() =>
        send(cli.port, { method: 'POST', path: RESUME, headers: { 'content-type': 'application/json', prefer: 'delay=5000' }, body: '{}' }).then(
          () => 'answered',
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      cli.child.kill('SIGTERM');
      for (const outcome of await Promise.all(slow)) expect(outcome).toMatch(/socket hang up|ECONNRESET/);
      expect(await cli.exit).toBe(0);
      expect(cli.output()).toContain('SIGTERM: 2 requests still in flight after 200 ms were cut off');
    } finally {
      cli.child.kill('SIGKILL');
    }
  }, 60_000);

  it('--log-format json: each request cut off is a line with status 0, and the closing line counts them (warn)', async () => {
    const cli = await startCli(['--drain-ms', '200', '--log-format', 'json']);
    try {
      const slow = send(cli.port, {
        method: 'POST',
        path: RESUME,
        headers: { 'content-type': 'application/json', prefer: 'delay=5000', 'x-mock-session': 'cut' },
        body: '{}',
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      cli.child.kill('SIGTERM');
      await expect(slow).rejects.toThrow(/socket hang up|ECONNRESET/);
      expect(await cli.exit).toBe(0);
      const lines = cli
        .output()
        .trim()
        .split('\n')
        .map((line): unknown => JSON.parse(line));
      const cut = lines.filter((line) => isObject(line) && line['session'] === 'cut');
      expect(cut).toEqual([expect.objectContaining({ method: 'POST', path: RESUME, operation: 'resumeProject', status: 0 })]);
      expect(lines.at(-1)).toEqual({ level: 'warn', time: expect.any(String), signal: 'SIGTERM', drain: 'timed out', cut_off: 1, msg: 'closed' });
    } finally {
      cli.child.kill('SIGKILL');
    }
  }, 60_000);
});

describe.skipIf(missing !== undefined)(`readiness with the state in Redis${missing ? ` (${missing})` : ''}`, () => {
  let redis: RedisServer;
  let cli: Cli;
  beforeAll(async () => {
    redis = await startRedis();
    cli = await startCli(['--store', redis.url, '--store-prefix', 'ready']);
  }, 60_000);
  afterAll(async () => {
    cli.child.kill('SIGKILL');
    await redis.stop();
  });
  const ready = () => send(cli.port, { method: 'GET', path: '/__mock/ready' });

  it('is 503 with the reason that holds now (evicting, then unreachable), naming no address, and 200 again when Redis is back, without a restart', async () => {
    expect((await ready()).text).toBe('{"status":"ready"}');
    const { Redis } = await import('ioredis');
    const admin = new Redis(redis.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
    await admin.connect();
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const evicting = await ready();
    expect(evicting.status).toBe(503);
    expect(evicting.json()).toEqual({
      status: 'unready',
      reason: `The mock's store (Redis) is unsafe: its maxmemory-policy is allkeys-lru, which lets Redis evict the mock's keys and tear sessions; set it to noeviction (CONFIG SET maxmemory-policy noeviction, or "maxmemory-policy noeviction" in redis.conf).`,
    });
    admin.disconnect();
    // The API had seen the evicting policy too; with Redis gone, what is wrong now is that it is unreachable.
    const api = await send(cli.port, { method: 'GET', path: '/__mock/state' });
    expect(api.status).toBe(503);
    await redis.kill();
    const down = await ready();
    expect(down.status).toBe(503);
    expect(documented('getReadiness', 503, down.json())).toBe('');
    expect(down.json()).toEqual({
      status: 'unready',
      reason: expect.stringMatching(/^The mock's store is unreachable \((ECONNREFUSED|connection closed|not connected)\)\.$/),
    });
    // The probe answers whatever the Host: it names no address, port, database or user.
    expect(down.text).not.toMatch(new RegExp(`127\\.0\\.0\\.1|${redis.port}|redis://`));
    // The sessions are unknown while the store cannot say: NaN, not the last value.
    const metrics = (await send(cli.port, { method: 'GET', path: '/__mock/metrics' })).text.split('\n');
    // (prom-client writes NaN as `Nan`, which Prometheus reads as NaN.)
    expect(metrics).toContain('mock_sessions Nan');
    const refused = await send(cli.port, { method: 'GET', path: '/__mock/state' });
    expect(refused.status).toBe(503);
    expect(refused.json()).toEqual({
      error: 'Mock store unavailable',
      message: expect.stringMatching(/^The mock's shared store: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 is unreachable \(/),
    });
    // The health probe is about the process, not the store.
    expect((await send(cli.port, { method: 'GET', path: '/__mock/health' })).status).toBe(200);
    await redis.start();
    expect(await eventually(async () => (await ready()).status === 200)).toBe(true);
    expect((await ready()).text).toBe('{"status":"ready"}');
    expect((await send(cli.port, { method: 'GET', path: '/__mock/state' })).status).toBe(200);
    expect((await send(cli.port, { method: 'GET', path: '/__mock/metrics' })).text.split('\n')).toContain('mock_sessions 1');
    // The outage and the recovery, each told once (with the URL: the log is the operator's), not once per request.
    const store = `Redis at ${redis.url}`;
    const lost = cli
      .output()
      .split('\n')
      .filter((line) => line.includes('is unreachable'));
    expect(lost).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: the mock's store \\(${store.replaceAll('/', '\\/').replaceAll('.', '\\.')}\\) is unreachable \\(.+\\): API requests get 503 until it is back$`,
        ),
      ),
    ]);
    expect(
      cli
        .output()
        .split('\n')
        .filter((line) => line.endsWith(') is back')),
    ).toEqual([`the mock's store (${store}) is back`]);
  }, 60_000);
});
