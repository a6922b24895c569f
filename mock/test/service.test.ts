// The shared mock as a service (issue 38), on the mock the CLI starts: the probes answer whatever the Host and stay out
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
    expect(await eventually(async () => mine().length > 0, 5000)).toBe(true);
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

describe('bad --log-format and --drain-ms', () => {
  it.each([
    [['--log-format', 'xml'], 'error: --log-format must be text or json, got "xml"'],
    [['--drain-ms', '700000'], 'error: --drain-ms must be between 0 and 600000, got 700000'],
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
    it(`${signal}: a write in flight still gets its 200, readiness turns 503 at once, new connections are refused, and the exit is 0`, async () => {
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
        await expect(send(cli.port, { method: 'GET', path: '/__mock/health' })).rejects.toThrow(/ECONNREFUSED/);
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
      } finally {
        cli.child.kill('SIGKILL');
      }
    }, 60_000);
  }

  it('cuts off what is still in flight after --drain-ms and still exits 0', async () => {
    const cli = await startCli(['--drain-ms', '200']);
    try {
      const slow = send(cli.port, { method: 'POST', path: RESUME, headers: { 'content-type': 'application/json', prefer: 'delay=5000' }, body: '{}' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      cli.child.kill('SIGTERM');
      await expect(slow).rejects.toThrow(/socket hang up|ECONNRESET/);
      expect(await cli.exit).toBe(0);
      expect(cli.output()).toContain('SIGTERM: requests still in flight after 200 ms were cut off');
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

  it('is 503 with the reason that holds now (evicting, then unreachable) and 200 again when Redis is back, without a restart', async () => {
    expect((await ready()).text).toBe('{"status":"ready"}');
    const { Redis } = await import('ioredis');
    const admin = new Redis(redis.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
    await admin.connect();
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const evicting = await ready();
    expect(evicting.status).toBe(503);
    expect(evicting.json()).toEqual({
      status: 'unready',
      reason: `Redis at ${redis.url} is unsafe: its maxmemory-policy is allkeys-lru, which lets Redis evict the mock's keys and tear sessions; set it to noeviction (CONFIG SET maxmemory-policy noeviction, or "maxmemory-policy noeviction" in redis.conf).`,
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
      reason: expect.stringMatching(
        new RegExp(`^Redis at ${redis.url.replaceAll('/', '\\/')} is unreachable \\((ECONNREFUSED|connection closed|not connected)\\)\\.$`),
      ),
    });
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
  }, 60_000);
});
