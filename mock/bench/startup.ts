// In-process start: how long a test that makes its own mock waits for it. In a fresh process (one per factory, so
// each one's first is really first), the time of the factory's module import, then, --count times, of the factory
// call plus the first correct resumeProject 200 through it, with no listening socket:
//   app  createMockApp() from mock/src/server/app.ts, answered by app.mock.core.answer (what the Express adapter calls)
//   msw  createMockHandlers({ baseUrl }) from mock/src/msw.ts, answered by handlers.core.fetch(new Request(…))
// Prints one StartupReport as JSON. The request is the bench's (scenarios.ts), from the fixtures on stdin (our
// mock's GET /__mock/fixtures: the default seed's, the same in every process).
//
//   node <npm start's node flags> mock/bench/startup.ts app|msw [--count N] < fixtures.json
import { parseArgs } from 'node:util';
import type { Framed, MockRequest } from '../src/core/core.ts';
import { bodyMatcher } from './job.ts';
import { median, rounded } from './format.ts';
import { mockCheck, OPERATIONS, operationRequest, parseFixtures } from './scenarios.ts';

export type StartupReport = {
  factory: 'app' | 'msw';
  node_flags: string[];
  import_ms: number;
  /** Each factory call with its first answer, in order: the first is the process's first. */
  samples: Array<{ create_ms: number; first_200_ms: number; total_ms: number }>;
  first_ms: number;
  /** The median total of the 2nd to the last. */
  later_median_ms: number;
};

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

const { values, positionals } = parseArgs({ options: { count: { type: 'string', default: '10' } }, allowPositionals: true, strict: true });
const factory = positionals[0];
const count = Number(values.count);
if ((factory !== 'app' && factory !== 'msw') || !Number.isInteger(count) || count < 2) {
  process.stderr.write('usage: node mock/bench/startup.ts app|msw [--count N ≥ 2] < fixtures.json\n');
  process.exit(2);
}

const fixtures = parseFixtures(JSON.parse(await readStdin()));
const first = OPERATIONS[0];
if (first === undefined) throw new Error('the spec has no operation');
const spec = operationRequest(fixtures, first);
const matches = bodyMatcher(mockCheck({ operationId: first, expectStatus: 200 }, fixtures));
const body = new TextEncoder().encode(spec.body);
const BASE_URL = 'http://mock.bench.invalid';

/** One factory call and its first answer: the status and body, and how long each took. */
type Start = () => Promise<{ created: number; answer: { status: number; body: string } }>;

let importMs: number;
let start: Start;
const importedAt = performance.now();
if (factory === 'app') {
  const { createMockApp } = await import('../src/server/app.ts');
  importMs = performance.now() - importedAt;
  const request: MockRequest = { method: spec.method, target: spec.path, header: (name) => spec.headers[name], body };
  start = async () => {
    const app = createMockApp();
    const created = performance.now();
    const framed: Framed = await app.mock.core.answer(request);
    return { created, answer: { status: framed.status, body: framed.body } };
  };
} else {
  const { createMockHandlers } = await import('../src/msw.ts');
  importMs = performance.now() - importedAt;
  start = async () => {
    const handlers = createMockHandlers({ baseUrl: BASE_URL });
    const created = performance.now();
    const response = await handlers.core.fetch(new Request(`${BASE_URL}${spec.path}`, { method: spec.method, headers: spec.headers, body: spec.body }));
    return { created, answer: { status: response.status, body: await response.text() } };
  };
}

const samples: StartupReport['samples'] = [];
for (let i = 0; i < count; i++) {
  const since = performance.now();
  const { created, answer } = await start();
  const done = performance.now();
  if (answer.status !== 200 || !matches(answer.body)) {
    process.stderr.write(`${factory} #${i + 1}: not a correct 200: ${answer.status} ${answer.body.slice(0, 200)}\n`);
    process.exit(1);
  }
  samples.push({ create_ms: rounded(created - since, 2), first_200_ms: rounded(done - created, 2), total_ms: rounded(done - since, 2) });
}

const report: StartupReport = {
  factory,
  node_flags: process.execArgv,
  import_ms: rounded(importMs, 1),
  samples,
  first_ms: samples[0]?.total_ms ?? Number.NaN,
  later_median_ms: rounded(median(samples.slice(1).map((s) => s.total_ms)), 2),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
