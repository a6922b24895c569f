// A real Redis for the tests (and the bench): Debian's redis-server on a free loopback port in a temporary directory,
// no persistence, stopped with the test. `redisMissing` says how to get it when it is not installed; in CI (env CI
// set) a missing redis-server is a failure, never a skip.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../spec/lib/ports.ts';

export const REDIS_SERVER = '/usr/bin/redis-server';

/** Why the Redis tests cannot run here, or undefined when they can (or must: in CI they fail instead). */
export function redisMissing(): string | undefined {
  if (existsSync(REDIS_SERVER) || process.env['CI']) return undefined;
  return `skipped: ${REDIS_SERVER} is not installed (Debian/Ubuntu: sudo apt-get install redis-server)`;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.startsWith('+PONG'));
      }
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(false));
  });
}

export type RedisServer = {
  port: number;
  url: string;
  /** The server process (to freeze it with SIGSTOP, or to kill it). */
  process(): ChildProcess;
  /** Starts it again on the same port (after stop or a kill). */
  start(): Promise<void>;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * The environment for a service the tests start but do not test: without a faked clock (libfaketime's LD_PRELOAD and
 * FAKETIME settings, as a run of the suite on another day sets them), which is for the code under test and stalls
 * redis-server's event loop.
 */
export function ownClock(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'LD_PRELOAD' && !name.startsWith('FAKETIME')));
}

/** Starts redis-server on a free loopback port and waits until it answers PING. */
export async function startRedis(): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER)) throw new Error(`${REDIS_SERVER} is not installed (Debian/Ubuntu: sudo apt-get install redis-server)`);
  const dir = mkdtempSync(join(tmpdir(), 'mock-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const start = async (): Promise<void> => {
    const started = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
      env: ownClock(process.env),
    });
    child = started;
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(port))) {
      if (started.exitCode !== null) throw new Error(`redis-server exited with ${started.exitCode} on port ${port}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const kill = async (): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    process: () => {
      if (!child) throw new Error('redis-server is not running');
      return child;
    },
    start,
    kill,
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
