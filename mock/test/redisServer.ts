// A real Redis for the tests (and the bench): Debian's redis-server on a free loopback port in a temporary directory,
// no persistence, stopped with the test. `redisMissing` says how to get it when it is not installed; in CI (env CI
// set) a missing redis-server is a failure, never a skip.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REDIS_SERVER = '/usr/bin/redis-server';

/** Why the Redis tests cannot run here, or undefined when they can (or must: in CI they fail instead). */
export function redisMissing(): string | undefined {
  if (existsSync(REDIS_SERVER) || process.env['CI']) return undefined;
  return `skipped: ${REDIS_SERVER} is not installed (Debian/Ubuntu: sudo apt-get install redis-server)`;
}

/**
 * Below Linux's ephemeral range (32768–60999 by default), which the kernel hands out for `listen(0)` and for the local
 * end of every outgoing connection: a port found free there could be taken by any socket before the program it is for
 * binds it (with many servers and connections on loopback at once, a replica or a Redis then never started).
 */
const FIXED_PORTS = { from: 20_000, to: 32_767 } as const;

/** A port that was free a moment ago, outside the range the kernel picks from by itself. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = FIXED_PORTS.from + Math.floor(Math.random() * (FIXED_PORTS.to - FIXED_PORTS.from + 1));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port in ${FIXED_PORTS.from}–${FIXED_PORTS.to} after 50 tries`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
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
