// Helpers of the contract suite's own tests: servers on port 0 (the mock in-process, a fault-injecting proxy, a
// server that never answers) and `runContract`, which runs `npm run contract` (the CLI's `contract` command) as QA would.
import { spawn } from 'node:child_process';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockApp, type MockOptions } from '../../mock/src/index.ts';

/** What `npm run contract` runs: the package's bin with the `contract` command. */
const CLI = new URL('../../cli/bin.cjs', import.meta.url).pathname;
export const ROOT = new URL('../..', import.meta.url).pathname;

export type Running = { url: string; port: number; close(): Promise<void> };

/** A server of a test on a free loopback port; `close` ends its connections too. */
export async function listen(server: Server): Promise<Running> {
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? (address satisfies AddressInfo).port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** This package's mock, in this process, on a free port. */
export function startMock(options: MockOptions = {}): Promise<Running> {
  const app = createMockApp(options);
  return listen(createServer(app));
}

export type ProxiedRequest = { method: string; path: string; headers: Record<string, string>; body: string };
export type ProxiedReply = { status: number; headers: Record<string, string>; body: string };
/** A fault: rewrite the request before it reaches the mock, and/or the reply before it reaches the suite; 'hang' never answers. */
export type Fault = {
  request?: (req: ProxiedRequest) => ProxiedRequest | 'hang' | ProxiedReply;
  response?: (req: ProxiedRequest, reply: ProxiedReply) => ProxiedReply | 'hang';
  /**
   * Rewrite the mock's control answers too (the records a write's answer is compared with, GET /__mock/records), as
   * a server wrong from the start would show them: only the rule the fault is about can see it, not what-is-left-alone.
   */
  controls?: boolean;
};

function flat(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** A proxy in front of `upstream` that applies `fault` to every API exchange (the /__mock controls pass untouched). */
export function startFaultProxy(upstream: string, fault: Fault): Promise<Running> {
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let sent: ProxiedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: flat(req.headers),
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const control = sent.path.startsWith('/__mock');
      if (!control && fault.request) {
        const changed = fault.request(sent);
        if (changed === 'hang') return;
        if ('status' in changed) return write(changed);
        sent = changed;
      }
      const headers = { ...sent.headers, host: target.host, 'content-length': String(Buffer.byteLength(sent.body)) };
      const upstreamReq = request({ host: target.hostname, port: target.port, method: sent.method, path: sent.path, headers }, (upstreamRes) => {
        const body: Buffer[] = [];
        upstreamRes.on('data', (c: Buffer) => body.push(c));
        upstreamRes.on('end', () => {
          const headersOut = flat(upstreamRes.headers);
          delete headersOut['content-length'];
          delete headersOut['transfer-encoding'];
          delete headersOut['connection'];
          delete headersOut['keep-alive'];
          let reply: ProxiedReply | 'hang' = { status: upstreamRes.statusCode ?? 502, headers: headersOut, body: Buffer.concat(body).toString('utf8') };
          if ((!control || fault.controls === true) && fault.response) reply = fault.response(sent, reply);
          if (reply !== 'hang') write(reply);
        });
      });
      upstreamReq.on('error', (error) => write({ status: 502, headers: {}, body: `proxy: ${error.message}` }));
      upstreamReq.end(sent.body);
    });
    const write = (reply: ProxiedReply): void => {
      res.writeHead(reply.status, { ...reply.headers, 'content-length': String(Buffer.byteLength(reply.body)) });
      res.end(reply.body);
    };
  });
  return listen(server);
}

/** A server that accepts connections and never answers. */
export function startHangingServer(): Promise<Running> {
  return listen(createServer(() => undefined));
}

export type RunResult = { code: number | null; stdout: string; stderr: string; ms: number };

/** `npm run contract` with exactly these CONTRACT_* variables (the caller's own are left out). */
export function runContract(env: Record<string, string>, timeoutMs = 120_000, args: ReadonlyArray<string> = []): Promise<RunResult> {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith('CONTRACT_') || name.startsWith('VITEST') || name === 'TEST' || name === 'NODE_OPTIONS') continue;
    clean[name] = value;
  }
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'contract', ...args], { cwd: ROOT, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`npm run contract did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    // 'close' comes after both the exit and the end of its output, so nothing it printed is lost.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Math.round(performance.now() - started) });
    });
  });
}

/** Runs the assertions of `check`; when one fails, its message ends with the run's whole output, so it can be read. */
export function withOutput(run: RunResult, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof Error)
      error.message = `${error.message}\n\n── npm run contract exited ${String(run.code)} after ${run.ms} ms; its output ──\n${run.stdout}\n${run.stderr}`;
    throw error;
  }
}

/** The closing line's counts: `contract: N passed, N failed, N skipped, N warnings`. */
export function summaryOf(stdout: string): { passed: number; failed: number; skipped: number; warnings: number } | undefined {
  const match = /^contract: (\d+) passed, (\d+) failed, (\d+) skipped, (\d+) warnings/m.exec(stdout);
  if (!match) return undefined;
  return { passed: Number(match[1]), failed: Number(match[2]), skipped: Number(match[3]), warnings: Number(match[4]) };
}

export type Spawned = {
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the first match of `pattern` in stdout (rejects after `timeoutMs` or on exit). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  kill(signal: NodeJS.Signals): void;
};

/** `npm run proxy -- <args>` (the CLI's `proxy` command) as a child process. */
export function spawnProxy(args: ReadonlyArray<string>): Spawned {
  const child = spawn(process.execPath, [CLI, 'proxy', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return {
    output: () => `${stdout}${stderr}`,
    waitFor: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          const match = pattern.exec(stdout);
          if (match) {
            clearInterval(poll);
            resolve(match);
          } else if (child.exitCode !== null || Date.now() - started > timeoutMs) {
            clearInterval(poll);
            reject(new Error(`no ${pattern} in the proxy's output:\n${stdout}\n${stderr}`));
          }
        }, 20);
      }),
    exited,
    kill: (signal) => {
      if (child.exitCode === null) child.kill(signal);
    },
  };
}
