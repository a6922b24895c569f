#!/usr/bin/env node
// `npm run bench:proxy`: the validation proxy's own latency, measured, never asserted in a test (the machine is
// noisy). Starts the mock as `npm start` does and the proxy as `npm run proxy` does (both on free ports, each in its
// own process group), then sends the same valid resumeProject (the full-access token, the paused project) with
// autocannon over one connection, alternating direct and through the proxy in rounds, and reports the p50/p90/p99 of
// each and the p50 overhead. Latencies come from autocannon's per-response times (its histogram has 1 ms steps). Then
// it times the check of a large wrong answer (6,000 bad array items: linear) in this process.
// Options: --duration S per measured run (5), --rounds N (3), --warmup S (2), --connections N (1).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startArgs } from '../../mock/bench/launch.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import { operationModel } from '../model/profiles.ts';
import { baseBody } from '../harness/requests.ts';
import { checkResponse } from '../harness/check-response.ts';
import { texts } from '../../spec/lib/messages.ts';
import { bigGoalAnswer } from '../selftest/big-answer.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The package's bin: `proxy` is one of its commands. */
const CLI = fileURLToPath(new URL('../../cli/bin.cjs', import.meta.url));

function fail(message: string): never {
  console.error(`bench:proxy: ${message}`);
  process.exit(2);
}

let options: ReturnType<typeof parse>['values'];
function parse() {
  return parseArgs({
    options: { duration: { type: 'string' }, rounds: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string' } },
    strict: true,
  });
}
try {
  options = parse().values;
} catch (error) {
  fail(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error));
}
const number = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) fail(`--${name} must be a whole number above 0, got "${value}"`);
  return Number(value);
};
const duration = number(options.duration, 5, 'duration');
const rounds = number(options.rounds, 3, 'rounds');
const warmup = number(options.warmup, 2, 'warmup');
const connections = number(options.connections, 1, 'connections');

const children: ChildProcess[] = [];
function stopAll(): void {
  for (const child of children) {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
}
process.on('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

/** Starts a server the way its npm script does and resolves with its port (from its `port: N` line). */
function start(args: string[]): Promise<number> {
  const child = spawn(process.execPath, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /^port: (\d+)$/m.exec(out);
      if (match?.[1]) resolve(Number(match[1]));
    });
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${String(code)}:\n${out}`)));
  });
}

type Run = { p50: number; p90: number; p99: number; rps: number; responses: number; wrong: number };

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;

async function measure(url: string, request: { method: 'POST'; path: string; headers: Record<string, string>; body: string }, seconds: number): Promise<Run> {
  const times: number[] = [];
  let wrong = 0;
  const instance = autocannon({ url, connections, duration: seconds, requests: [request] });
  instance.on('response', (_client, status, _bytes, responseTime) => {
    if (status === 200) times.push(responseTime);
    else wrong++;
  });
  const result = await instance;
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p90: percentile(times, 90),
    p99: percentile(times, 99),
    rps: result.requests.average,
    responses: times.length,
    wrong: wrong + result.errors + result.timeouts,
  };
}

const mockPort = await start([...startArgs(), '--port', '0']);
const mockUrl = `http://127.0.0.1:${mockPort}`;
const fixturesText = await (await fetch(`${mockUrl}/__mock/fixtures`)).text();
const fixtures: unknown = JSON.parse(fixturesText);
const token = isObject(fixtures) && isObject(fixtures['tokens']) ? fixtures['tokens']['full_access'] : undefined;
const project = isObject(fixtures) && isObject(fixtures['projects']) ? fixtures['projects']['paused'] : undefined;
if (typeof token !== 'string' || typeof project !== 'string') fail('the mock gave no full_access token or paused project');
const tokensFile = join(mkdtempSync(join(tmpdir(), 'bench-proxy-')), 'fixtures.json');
writeFileSync(tokensFile, fixturesText);
const proxyPort = await start([CLI, 'proxy', '--target', mockUrl, '--port', '0', '--tokens', tokensFile, '--quiet']);
const proxyUrl = `http://127.0.0.1:${proxyPort}`;
// The same proxy recording every exchange (proxy --record), for the overhead of recording.
const recording = join(mkdtempSync(join(tmpdir(), 'bench-record-')), 'bench.har');
const recordPort = await start([CLI, 'proxy', '--target', mockUrl, '--port', '0', '--tokens', tokensFile, '--quiet', '--record', recording]);
const recordUrl = `http://127.0.0.1:${recordPort}`;

const op = operationModel('resumeProject');
const request = {
  method: 'POST' as const,
  path: op.path,
  headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-mock-session': 'bench-proxy' },
  body: JSON.stringify(baseBody(op, project)),
};

await measure(mockUrl, request, warmup);
await measure(proxyUrl, request, warmup);
await measure(recordUrl, request, warmup);
const direct: Run[] = [];
const proxied: Run[] = [];
const recorded: Run[] = [];
for (let round = 0; round < rounds; round++) {
  direct.push(await measure(mockUrl, request, duration));
  proxied.push(await measure(proxyUrl, request, duration));
  recorded.push(await measure(recordUrl, request, duration));
}
await new Promise((r) => setTimeout(r, 1500));
const recordSummary: unknown = await (await fetch(`${recordUrl}/__proxy/summary`)).json();
const recordedExchanges = isObject(recordSummary) && typeof recordSummary['exchanges'] === 'number' ? recordSummary['exchanges'] : 0;
const recordBytes = statSync(recording).size;
const summary: unknown = await (await fetch(`${proxyUrl}/__proxy/summary`)).json();

// The check of a large wrong answer (6,000 bad checklist entries: the check must stay linear in the answer's size): the conformance
// core alone, in this process, at three sizes; linear, the per-entry cost stays the same.
const checkHeaders = { 'content-type': 'application/json; charset=utf-8', 'cache-control': texts.cacheControl, 'x-request-id': 'F_uAnbzq1dCbYgIAAAJB' };
checkResponse('closeGoal', { status: 200, headers: checkHeaders, text: bigGoalAnswer(10) });
const checks = [1500, 3000, 6000].map((items) => {
  const text = bigGoalAnswer(items);
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const found = checkResponse('closeGoal', { status: 200, headers: checkHeaders, text });
  const used = process.cpuUsage(cpu);
  return { items, bytes: text.length, violations: found.length, wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
});
const broken = isObject(summary) && typeof summary['broken'] === 'number' ? summary['broken'] : Number.NaN;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const ms = (v: number): string => `${v.toFixed(3)} ms`;
const lines = [
  `resumeProject 200, ${connections} connection${connections === 1 ? '' : 's'}, ${rounds} × ${duration} s each way (after ${warmup} s of warm-up)`,
  '',
  'round  direct p50   proxy p50    overhead p50   direct p99   proxy p99    direct rps  proxy rps',
  ...direct.map((d, i) => {
    const p = proxied[i];
    return `${String(i + 1).padEnd(5)}  ${ms(d.p50).padEnd(11)}  ${ms(p?.p50 ?? Number.NaN).padEnd(11)}  ${ms((p?.p50 ?? Number.NaN) - d.p50).padEnd(13)}  ${ms(d.p99).padEnd(11)}  ${ms(p?.p99 ?? Number.NaN).padEnd(11)}  ${d.rps.toFixed(0).padEnd(10)}  ${(p?.rps ?? 0).toFixed(0)}`;
  }),
  '',
  `p50 overhead of the proxy (median of the rounds): ${ms(median(direct.map((d, i) => (proxied[i]?.p50 ?? Number.NaN) - d.p50)))}; the bar is under 2 ms`,
  '',
  'round  record p50   record p99   recording overhead p50 / p99 (over the proxy without --record)',
  ...recorded.map((r, i) => {
    const p = proxied[i];
    return `${String(i + 1).padEnd(5)}  ${ms(r.p50).padEnd(11)}  ${ms(r.p99).padEnd(11)}  ${ms(r.p50 - (p?.p50 ?? Number.NaN))} / ${ms(r.p99 - (p?.p99 ?? Number.NaN))}`;
  }),
  `recording: ${recordedExchanges} exchanges, ${recordBytes} bytes on disk (${recordedExchanges > 0 ? Math.round(recordBytes / recordedExchanges) : 0} bytes per exchange; stops at --record-max-bytes)`,
  '',
  'checkResponse of a closeGoal 200 with N bad checklist entries (7 violations each), after warm-up:',
  ...checks.map(
    (c) =>
      `  ${String(c.items).padStart(5)} entries, ${(c.bytes / 1024).toFixed(0)} KB: ${c.violations} violations in ${ms(c.wallMs)} (${ms(c.cpuMs)} CPU, ${ms(c.cpuMs / c.items)} per entry)`,
  ),
  `responses: ${direct.reduce((n, r) => n + r.responses, 0)} direct, ${proxied.reduce((n, r) => n + r.responses, 0)} through the proxy; not 200: ${[...direct, ...proxied].reduce((n, r) => n + r.wrong, 0)}; exchanges the proxy found broken: ${broken}`,
];
console.log(lines.join('\n'));
const bad = [...direct, ...proxied].some((r) => r.wrong > 0) || broken !== 0;
process.exit(bad ? 1 : 0);
