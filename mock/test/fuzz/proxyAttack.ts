// The validation proxy against a hostile target, for the soak's --proxy-attack mode: the
// proxy command (`service-external-api proxy --tokens <the mock's fixtures>`) in a child process, in front of a target
// that is the mock except that it gzips every answer a client accepts gzip for (as staging servers and CDNs do) and
// answers every `GET /__mock/records/*` with a body that never ends. Each client write, in its own session, makes the
// proxy read the fixture records first. Fails when a client is not answered 200 with the correct (gzipped) answer, the
// proxy flags a correct exchange, or its RSS passes PROXY_BOUND_MB.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

/** The most the proxy may use against an endless records answer (the bar; contract-tests/README.md). */
const PROXY_BOUND_MB = 300;

function rssMbOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Number(kb) / 1024 : 0;
}

/** The hostile target: the mock at `mockUrl`, gzipped when accepted, with endless records. Resolves with its port. */
function hostileTarget(mockUrl: URL): Promise<{ port: number; close(): void; recordBytes(): number }> {
  let recordBytes = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '').startsWith('/__mock/records/')) {
      endlessAnswer(res, (bytes) => {
        recordBytes += bytes;
      });
      return;
    }
    const headers = { ...req.headers, host: mockUrl.host };
    delete headers['accept-encoding'];
    const upstream = request({ host: mockUrl.hostname, port: mockUrl.port, method: req.method, path: req.url, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const plain = Buffer.concat(chunks);
        const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
        const body = gzip ? gzipSync(plain) : plain;
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (value !== undefined && !['content-length', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) out[name] = value;
        if (gzip) out['content-encoding'] = 'gzip';
        out['content-length'] = String(body.length);
        res.writeHead(answer.statusCode ?? 502, out);
        res.end(body);
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        recordBytes: () => recordBytes,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

/**
 * Runs the attack: `writes` client writes through the proxy, each in its own session, 4 at a time. Resolves with the
 * problems found (none: it passed); `say` prints a line.
 */
/** A 200 JSON answer that never ends: `[` then blank chunks as fast as the reader takes them; `sent` counts them. */
export function endlessAnswer(res: ServerResponse, sent: (bytes: number) => void): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const pump = (): void => {
    let more = true;
    while (!res.destroyed && more) {
      more = res.write(chunk);
      sent(chunk.length);
    }
    if (!res.destroyed) res.once('drain', pump);
  };
  res.write('[');
  pump();
}

export async function proxyAttack(mockUrl: string, writes: number, say: (line: string) => void): Promise<string[]> {
  const problems: string[] = [];
  const fixturesText = await (await fetch(`${mockUrl}/__mock/fixtures`)).text();
  const fixtures: { tokens: Record<string, string>; projects: Record<string, string> } = JSON.parse(fixturesText);
  const dir = mkdtempSync(join(tmpdir(), 'proxy-attack-'));
  const tokensFile = join(dir, 'fixtures.json');
  writeFileSync(tokensFile, fixturesText);
  const target = await hostileTarget(new URL(mockUrl));
  const bin = new URL('../../../cli/bin.cjs', import.meta.url).pathname;
  const child = spawn(process.execPath, [bin, 'proxy', '--target', `http://127.0.0.1:${target.port}`, '--port', '0', '--tokens', tokensFile, '--quiet'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const started = Date.now();
    while (!/^port: \d+/m.test(stdout)) {
      if (child.exitCode !== null || Date.now() - started > 15_000) return [`the proxy did not start: ${stdout}${stderr}`];
      await new Promise((r) => setTimeout(r, 20));
    }
    const proxyPort = Number(/^port: (\d+)/m.exec(stdout)?.[1]);
    const pid = child.pid ?? 0;
    const idle = rssMbOf(pid);
    let peak = idle;
    const sampler = setInterval(() => {
      if (child.exitCode === null) peak = Math.max(peak, rssMbOf(pid));
    }, 100);
    say(`proxy attack: proxy pid ${pid} on port ${proxyPort} → gzip target with endless records; RSS at start ${idle.toFixed(0)} MB`);
    const body = JSON.stringify({ project_id: fixtures.projects['paused'], message: '{"type":"doc","content":[]}' });
    let next = 0;
    let answered = 0;
    const client = async (): Promise<void> => {
      while (next < writes) {
        const session = `attack-${next++}`;
        const answer = await new Promise<{ status: number; headers: IncomingMessage['headers']; bytes: Buffer } | Error>((resolve) => {
          const req = request(
            {
              host: '127.0.0.1',
              port: proxyPort,
              method: 'POST',
              path: '/api/external/v1/projects/resume',
              headers: {
                'content-type': 'application/json',
                'accept-encoding': 'gzip',
                authorization: `Bearer ${fixtures.tokens['full_access'] ?? ''}`,
                'x-mock-session': session,
              },
            },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
            },
          );
          req.setTimeout(120_000, () => req.destroy(new Error('no answer within 120 s')));
          req.on('error', (error) => resolve(error));
          req.end(body);
        });
        if (answer instanceof Error) {
          problems.push(`${session}: no answer (${answer.message})`);
          continue;
        }
        answered++;
        let state: unknown;
        try {
          state = JSON.parse(gunzipSync(answer.bytes).toString('utf8'))?.project?.state;
        } catch {
          state = undefined;
        }
        if (answer.status !== 200 || answer.headers['content-encoding'] !== 'gzip' || state !== 'active')
          problems.push(
            `${session}: ${answer.status} ${String(answer.headers['content-encoding'])}, project.state ${String(state)}: ${answer.bytes.subarray(0, 200).toString('utf8').trim()}`,
          );
        if (answer.headers['x-contract-violations'] !== undefined)
          problems.push(`${session}: a correct gzip exchange was flagged (${String(answer.headers['x-contract-violations'])})`);
      }
    };
    await Promise.all(Array.from({ length: 4 }, client));
    clearInterval(sampler);
    peak = Math.max(peak, rssMbOf(pid));
    const summary: unknown = await (await fetch(`http://127.0.0.1:${proxyPort}/__proxy/summary`)).json();
    const warnings = typeof summary === 'object' && summary !== null && 'warnings_by_code' in summary ? JSON.stringify(summary.warnings_by_code) : '?';
    say(
      `${answered}/${writes} writes answered; the target sent ${(target.recordBytes() / 1024 / 1024).toFixed(0)} MB of endless records; proxy warnings ${warnings}; RSS peak ${peak.toFixed(0)} MB (bound ${PROXY_BOUND_MB} MB)`,
    );
    if (peak > PROXY_BOUND_MB) problems.push(`the proxy's RSS peaked at ${peak.toFixed(0)} MB, over ${PROXY_BOUND_MB} MB`);
    if (stderr) problems.push(`the proxy wrote to stderr: ${stderr.slice(0, 300)}`);
    return problems;
  } finally {
    child.kill('SIGTERM');
    target.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
