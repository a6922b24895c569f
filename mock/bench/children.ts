// The bench's child processes: each started as `node <args>` in its own process group (so a signal reaches its
// children too) and tracked until it exits, so run.ts can stop every one on exit, on failure and on a signal.
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type Proc = {
  name: string;
  child: ChildProcess;
  pid: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  hasExited: () => boolean;
};

/** The children still running. */
export const live = new Set<Proc>();

/** Starts `node <args>` in its own process group (so a signal reaches its children too), stdout and stderr kept. */
export function launch(name: string, args: string[], options: { stdin?: string; keepStdout?: 'all' | 'head'; env?: Record<string, string> } = {}): Proc {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    env: options.env ? { ...process.env, ...options.env } : process.env,
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', options.keepStdout ? 'pipe' : 'ignore', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  let out = '';
  let err = '';
  // A server's stdout is drained for its whole life; only its head (the banner with the port) is kept.
  child.stdout?.on('data', (chunk: Buffer) => {
    if (options.keepStdout === 'all' || out.length < 65536) out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString('utf8')).slice(-8192);
  });
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      done = true;
      live.delete(proc);
      resolve(code);
    });
  });
  const proc: Proc = { name, child, pid: child.pid, stdout: () => out, stderr: () => err, exited, hasExited: () => done };
  live.add(proc);
  return proc;
}

export function signalGroup(proc: Proc, signal: NodeJS.Signals): void {
  try {
    process.kill(-proc.pid, signal);
  } catch {
    // already gone
  }
}

/** SIGTERM to the process group, then SIGKILL if it is still there after `graceMs`. */
export async function stop(proc: Proc, graceMs = 3000): Promise<void> {
  if (proc.hasExited()) return;
  signalGroup(proc, 'SIGTERM');
  const timer = sleep(graceMs).then(() => 'timeout' as const);
  if ((await Promise.race([proc.exited, timer])) === 'timeout') {
    signalGroup(proc, 'SIGKILL');
    await proc.exited;
  }
}

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((p) => stop(p)));
}

/** Waits for a child that measures and exits, at most `limitMs`; its last stdout line as JSON. */
export async function resultOf(proc: Proc, limitMs: number): Promise<unknown> {
  const limit = sleep(limitMs).then(() => 'timeout' as const);
  if ((await Promise.race([proc.exited, limit])) === 'timeout') {
    await stop(proc);
    throw new Error(`${proc.name} did not finish within ${Math.round(limitMs / 1000)} s`);
  }
  const line = proc.stdout().trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`${proc.name} printed no result: ${proc.stderr().trim().split('\n').slice(-5).join(' | ') || line.slice(0, 200)}`);
  }
}

/** The port a server prints as `port: N` once it listens. */
export async function waitForPort(proc: Proc, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const match = /^port: (\d+)$/m.exec(proc.stdout());
    if (match?.[1]) return Number(match[1]);
    if (proc.hasExited()) throw new Error(`${proc.name} exited before printing its port: ${proc.stderr().trim().split('\n').slice(-3).join(' | ')}`);
    if (performance.now() > deadline) throw new Error(`${proc.name} printed no port within ${timeoutMs} ms`);
    await sleep(2);
  }
}
