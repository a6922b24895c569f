// npm start as a user runs it: the printed URL, tokens and ids, a curl-able 200, clean shutdown, and one-line
// errors with exit 2.
import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCK_MAIN, startArgs } from '../bench/launch.ts';
import { PERSONAS } from '../src/domain/state.ts';

/** Exactly what `npm start` runs: package.json's start script (node flags, then cli/mock.cjs), from the root. */
const ROOT = new URL('../../', import.meta.url).pathname;

function start(args: string[]): { child: ChildProcess; output: () => string; exit: Promise<number | null>; ready: Promise<string> } {
  const child = spawn(process.execPath, [...startArgs(), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '' } });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      if (/^port: \d+/m.test(output) && output.includes('fixtures as JSON')) {
        clearInterval(timer);
        resolve(output);
      }
    }, 20);
    void exit.then(() => {
      clearInterval(timer);
      reject(new Error(`exited early: ${output}`));
    });
  });
  ready.catch(() => undefined); // tests that expect an early exit await `exit`, not `ready`
  return { child, output: () => output, exit, ready };
}

describe('npm start', () => {
  it('runs a plain CommonJS file named for what it starts (cli/mock.cjs), not a link named .ts', () => {
    expect(startArgs()).toEqual(['--max-semi-space-size=4', 'cli/mock.cjs']);
    expect(MOCK_MAIN).toBe('cli/mock.cjs');
    expect(lstatSync(join(ROOT, MOCK_MAIN)).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(ROOT, MOCK_MAIN), 'utf8')).toContain("require('./entry.cjs')(['mock']);");
  });

  it('prints the URL, the tokens by persona and the fixture ids; the printed curl gets 200; SIGTERM closes cleanly', async () => {
    const mock = start(['--port', '0']);
    const printed = await mock.ready;
    const url = /mock listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
    expect(url).toBeDefined();
    for (const persona of PERSONAS) expect(printed).toMatch(new RegExp(`${persona} +opk_[A-Za-z0-9_-]{43}\\n`));
    for (const story of ['paused', 'active', 'closed', 'open']) expect(printed).toMatch(new RegExp(`${story} +[a-z0-9-]+-[A-Za-z0-9]{19,22}\\n`));
    const token = /full_access +(opk_\S+)/.exec(printed)?.[1] ?? '';
    const project = /paused +(\S+)/.exec(printed)?.[1] ?? '';
    const response = await fetch(`${url}/api/external/v1/projects/resume`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: project, message: '{"type":"doc","content":[]}' }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { project: { state: string } }).project.state).toBe('active');
    mock.child.kill('SIGTERM');
    expect(await mock.exit).toBe(0);
    expect(mock.output()).toContain('SIGTERM: closing the mock');
  });

  it('exits 2 with one line on an unknown option', async () => {
    const mock = start(['--prot', '4010']);
    expect(await mock.exit).toBe(2);
    expect(mock.output().trim().split('\n')).toHaveLength(1);
    // The same line as the proxy's for an unknown option (mock/src/server/options.ts reads both commands' options).
    expect(mock.output().trim()).toBe('error: unknown option --prot (see --help)');
  });

  it('exits 2 with one line on an unknown --self-check mode', async () => {
    const mock = start(['--self-check', 'sometimes']);
    expect(await mock.exit).toBe(2);
    expect(mock.output().trim()).toBe('error: --self-check must be always, sample, off, got "sometimes"');
  });

  it.each([
    [['--max-session-bytes', '1000'], 'error: --max-session-bytes must be between 65536 and 4294967296, got 1000'],
    [['--max-total-bytes', 'lots'], 'error: --max-total-bytes must be a whole number, got "lots"'],
  ])('exits 2 with one line on a bad byte budget: %s', async (args, line) => {
    const mock = start(args);
    expect(await mock.exit).toBe(2);
    expect(mock.output().trim()).toBe(line);
  });

  it("keeps a session within --max-session-bytes: a larger document is the mock's 507", async () => {
    const mock = start(['--port', '0', '--max-session-bytes', '65536']);
    const printed = await mock.ready;
    const url = /mock listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
    const token = /full_access +(opk_\S+)/.exec(printed)?.[1] ?? '';
    const project = /paused +(\S+)/.exec(printed)?.[1] ?? '';
    const message = JSON.stringify({ type: 'doc', content: [{ type: 'text', text: 'x'.repeat(70_000) }] });
    const response = await fetch(`${url}/api/external/v1/projects/resume`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: project, message }),
    });
    expect(response.status).toBe(507);
    expect(((await response.json()) as { error: string }).error).toBe('Mock storage limit');
    mock.child.kill('SIGTERM');
    expect(await mock.exit).toBe(0);
  });

  it('exits 2 with one line on a bad port', async () => {
    const mock = start(['--port', '70000']);
    expect(await mock.exit).toBe(2);
    expect(mock.output().trim()).toBe('error: --port must be between 0 and 65535, got 70000');
  });

  it('exits 2 with one line when the port is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const mock = start(['--port', String(port)]);
    expect(await mock.exit).toBe(2);
    blocker.close();
    expect(mock.output().trim()).toBe(`error: port ${port} on 127.0.0.1 is already in use (choose another with --port)`);
  });

  it('exits 2 naming the bad path of a --seed file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seed-'));
    const file = join(dir, 'seed.json');
    writeFileSync(
      file,
      JSON.stringify({
        state: {
          company: {},
          people: [],
          spaces: [],
          projects: [{ uuid: 'x', name: 'x', template: { id: 'x' } }],
          goals: [],
          tokens: [],
          activities: [],
          comment_threads: [],
          subscription_lists: [],
          subscriptions: [],
          notifications: [],
        },
        fixtures: { tokens: {}, projects: {}, goals: {}, people: {} },
      }),
    );
    const mock = start(['--seed', file]);
    expect(await mock.exit).toBe(2);
    expect(mock.output()).toMatch(/^error: --seed .*: \$\.state\.projects\[0\]\.template is not a valid Project: /);
  });
});
