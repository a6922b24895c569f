// mock/docs/organisation.md's deployment recipes ("Running it for an organisation"), run as written on this machine, which has no
// container engine: the packed tarball in a fresh project, installed by the Compose replica's own command with the
// server peers it names; that replica started by its command and found ready by its healthcheck; then the host recipe,
// two replicas on one Redis, run by bash as written on free loopback ports. The tarball is the one the `package` project packed (spec/test/tarball.setup.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { COMMAND_PEERS, JSON_LOG_PEERS, METRICS_PEERS, REDIS_PEERS } from '../../cli/peers.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import { ROOT, run } from '../../spec/test/run.ts';
import { doc, RESUME, send } from './http.ts';
import { freePort } from '../../spec/lib/ports.ts';
import { ownClock, redisMissing, startRedis, type RedisServer } from './redisServer.ts';

const README = readFileSync(join(ROOT, 'mock', 'docs', 'organisation.md'), 'utf8');
const missing = redisMissing() ?? (existsSync('/usr/bin/redis-cli') ? undefined : '/usr/bin/redis-cli is not installed');

/** The fenced blocks of one language in the README's section `title`. */
function blocks(title: string, language: string): string[] {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`mock/docs/organisation.md has no section "${title}"`);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\`\\n`, 'g'))].map((match) => match[1] ?? '');
}

const SECTION = 'Running it for an organisation';

/** A process group started here, and everything it started: stopped together by its id. */
function startGroup(command: string, args: string[], cwd: string, env: Record<string, string>): { child: ChildProcess; output(): string; stop(): void } {
  // A recipe starts services of its own (redis-server among them): on the machine's clock, whatever the tests run on.
  const child = spawn(command, args, { cwd, env: { ...ownClock(process.env), ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return {
    child,
    output: () => output,
    stop: () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

async function until(what: string, deadlineMs: number, fn: () => Promise<boolean>, output: () => string): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${deadlineMs} ms:\n${output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const ready = async (port: number): Promise<boolean> => (await send(port, { method: 'GET', path: '/__mock/ready' }).catch(() => undefined))?.status === 200;

let work = '';
let consumer = '';
const env: Record<string, string> = {};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'service-external-api-recipes-'));
  consumer = join(work, 'srv');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'mock-deployment', private: true }, null, 2));
  // Where Compose mounts it: /srv/mock.tgz, the replica's working directory (the tarball the `package` project packed).
  copyFileSync(inject('tarball').file, join(consumer, 'mock.tgz'));
  // npm's cache first (npm ci of this repository filled it), the registry for what is not there; temporary files here.
  Object.assign(env, { npm_config_prefer_offline: 'true', TMPDIR: work });
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(missing !== undefined)(`mock/docs/organisation.md, "${SECTION}"${missing ? ` (${missing})` : ''}`, () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("Compose: a replica's command installs the tarball with the peers the server needs, starts, and its healthcheck finds it ready", async () => {
    const [compose, ...others] = blocks(SECTION, 'yaml');
    expect(others).toEqual([]);
    const file: unknown = parse(compose ?? '');
    if (!isObject(file) || !isObject(file['services'])) throw new Error('the Compose block has no services');
    const services = file['services'];
    expect(Object.keys(services).sort()).toEqual(['lb', 'mock-1', 'mock-2', 'redis']);
    const replica = services['mock-1'];
    if (!isObject(replica) || typeof replica['command'] !== 'string' || !isObject(replica['healthcheck']))
      throw new Error('mock-1 has no command or healthcheck');
    expect(services['mock-2']).toEqual(replica);
    const command = replica['command'];
    // The peers it installs are every one the mock's options in it need, at package.json's ranges.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
    for (const name of [...(COMMAND_PEERS['mock'] ?? []), ...REDIS_PEERS, ...JSON_LOG_PEERS, ...METRICS_PEERS])
      expect(command, name).toContain(` ${name}@${manifest.peerDependencies[name] ?? '?'} `);
    // As written, but for what only a container network has: the bind address, Redis's name, the port.
    const port = await freePort();
    const onHost = (text: string): string =>
      text.replace('--host 0.0.0.0', '--host 127.0.0.1').replace('redis://redis:6379/0', redis.url).replaceAll('4010', String(port));
    expect(onHost(command)).not.toBe(command);
    const started = startGroup('sh', ['-c', onHost(command)], consumer, env);
    try {
      const test = replica['healthcheck']['test'];
      if (!Array.isArray(test) || test[0] !== 'CMD' || !test.every((word) => typeof word === 'string')) throw new Error('the healthcheck is no CMD list');
      const [, program = '', ...args] = test.map((word) => onHost(String(word)));
      await until(
        'the replica answering its healthcheck',
        240_000,
        async () => (await run(program === 'node' ? process.execPath : program, args, { cwd: consumer })).status === 0,
        started.output,
      );
      expect(started.child.exitCode).toBe(null);
      // Behind nginx (Host: mock) and from the published port (Host: localhost:4010) alike.
      for (const host of ['mock', 'localhost:4010', `localhost:${port}`])
        expect((await send(port, { method: 'GET', path: '/__mock/fixtures', headers: { host } })).status, host).toBe(200);
      const lines = started
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      expect(lines.some((line) => line.includes('"msg":"mock listening"'))).toBe(true);
    } finally {
      started.stop();
    }
  }, 300_000);

  it('on one host: the recipe as written on free ports, through its balancer; SIGTERM to a recorded PID drains that replica (exit 0), and to the process group the other', async () => {
    const [recipe, ...others] = blocks(SECTION, 'sh');
    expect(others).toEqual([]);
    if (!existsSync(join(consumer, 'node_modules', '.bin', 'service-external-api'))) throw new Error('the Compose test installs the package first');
    const [redisPort, one, two, lb] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const ports = { REDIS_PORT: String(redisPort), MOCK_1: String(one), MOCK_2: String(two), LB_PORT: String(lb) };
    // The recipe as written, then what the README tells an operator to do, in the same shell (so `wait` can read the
    // replica's exit code): signal the PID the recipe wrote, once the test says so.
    const operator = [
      'echo "recipe: started"',
      'while [ ! -e stop-replica-1 ]; do sleep 0.1; done',
      'kill -TERM "$(cat "mock-$MOCK_1.pid")"',
      'wait "$(cat "mock-$MOCK_1.pid")"; echo "replica 1 exited with $?"',
      'wait',
    ].join('\n');
    const script = startGroup('bash', ['-c', `${recipe ?? ''}\n${operator}`], consumer, { ...env, ...ports });
    try {
      await until('the recipe', 120_000, async () => script.output().includes('recipe: started'), script.output);
      expect([await ready(one), await ready(two)]).toEqual([true, true]);
      const pid = (name: string): number => Number(readFileSync(join(consumer, name), 'utf8').trim());
      // The PIDs written are the mocks' own processes (not npm's, not a shell's).
      for (const port of [one, two])
        expect(readFileSync(`/proc/${pid(`mock-${port}.pid`)}/cmdline`, 'utf8'), String(port)).toContain('service-external-api\0mock');
      // A write through one replica is seen through the other: one Redis, one state; and through the balancer.
      const fixtures: unknown = (await send(lb, { method: 'GET', path: '/__mock/fixtures' })).json();
      if (!isObject(fixtures) || !isObject(fixtures['tokens']) || !isObject(fixtures['projects'])) throw new Error('no fixtures');
      const token = String(fixtures['tokens']['full_access']);
      const project = String(fixtures['projects']['paused']);
      const resume = (port: number, session: string, prefer?: string) =>
        send(port, {
          path: RESUME,
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${token}`,
            'x-mock-session': session,
            ...(prefer ? { prefer } : {}),
          },
          body: JSON.stringify({ project_id: project, message: doc('shared') }),
        });
      expect((await resume(one, 'recipe')).status).toBe(200);
      const events = (port: number, session: string): Promise<unknown> =>
        send(port, { method: 'GET', path: '/__mock/events', headers: { 'x-mock-session': session } }).then((answer) => {
          const body: unknown = answer.json();
          return isObject(body) && Array.isArray(body['events']) ? body['events'].length : body;
        });
      expect(await events(two, 'recipe')).toBe(1);
      expect(await events(lb, 'recipe')).toBe(1);
      expect((await send(two, { method: 'GET', path: '/__mock/health', headers: { host: 'mock' } })).text).toBe('{"status":"ok"}');
      // The operator's SIGTERM to replica 1's PID while a write is in flight there: answered, then drained, exit 0.
      const inFlight = resume(one, 'drained', 'delay=1500');
      await new Promise((resolve) => setTimeout(resolve, 300));
      writeFileSync(join(consumer, 'stop-replica-1'), '');
      expect((await inFlight).status).toBe(200);
      await until('replica 1 to exit', 30_000, async () => script.output().includes('replica 1 exited with'), script.output);
      expect(script.output()).toContain('replica 1 exited with 0');
      const logged = (msg: string): unknown[] =>
        script
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{') && line.includes(`"msg":"${msg}"`))
          .map((line): unknown => JSON.parse(line));
      expect(logged('closed')).toEqual([expect.objectContaining({ signal: 'SIGTERM', drain: 'drained', cut_off: 0 })]);
      // The balancer sends on to the replica that is left, writes included.
      for (let i = 0; i < 4; i++) expect((await resume(lb, `after-${i}`)).status, `after-${i}`).toBe(200);
      // systemd's stop: SIGTERM to every process of the group. The other replica drains too.
      const group = script.child.pid ?? 0;
      const twoPid = pid(`mock-${two}.pid`);
      process.kill(-group, 'SIGTERM');
      await until('replica 2 to drain', 30_000, async () => logged('closed').length === 2, script.output);
      await until('replica 2 to exit', 30_000, async () => !existsSync(`/proc/${twoPid}`), script.output);
    } finally {
      script.stop();
    }
  }, 180_000);
});
