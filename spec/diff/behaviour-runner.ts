// Runs the mock's behaviour table (mock/test/behaviour.ts: the cases that prove the adapters agree) against the mock of
// one checkout, in process, with a fixed clock and sequential ids, and prints what every case answered and what it
// left in its session's state, as JSON on stdout. `diff --behaviour` runs it once per git ref, in a temporary worktree
// of that ref (behaviour.ts), so each side is the mock and the table as they were at that ref.
//   node spec/diff/behaviour-runner.ts <checkout>
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Sent = { method?: string; path: string; headers?: Record<string, string | string[]>; body?: string | Buffer };
type Exchange = { status: number; headers: Record<string, string | undefined>; text: string };
type Case = { name: string; requests: Sent[] };
/** What one case answered; `checks` is a hash of the requests it sends (what it checks, whatever its name cites). */
export type CaseResult = {
  name: string;
  checks?: string;
  paths: string[];
  answers: Array<{ status: number; contentType: string | null; text: string }>;
  state: string;
};

const checkout = process.argv[2];
if (!checkout) {
  process.stderr.write('usage: node spec/diff/behaviour-runner.ts <checkout>\n');
  process.exit(2);
}
const from = (path: string): Promise<Record<string, unknown>> => import(pathToFileURL(join(checkout, path)).href);
const table = await from('mock/test/behaviour.ts');
const mock = await from('mock/src/index.ts');
const createMockApp = mock['createMockApp'] as (options: Record<string, unknown>) => { listen(port: number, host: string): import('node:http').Server };
const behaviourTable = table['behaviourTable'] as (fixtures: unknown) => Case[];
const seedFixtures = table['seedFixtures'] as () => unknown;
const runCase = table['runCase'] as (transport: (sent: Sent) => Promise<Exchange>, c: Case, session: string) => Promise<Exchange[]>;

let next = 0;
const newId = (): string => `00000000-0000-4000-8000-${(next++).toString(16).padStart(12, '0')}`;
const server = createMockApp({ now: () => new Date('2025-06-13T10:00:00Z'), newId, bodyLimit: 4096 }).listen(0, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const address = server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

async function send(sent: Sent): Promise<Exchange> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(sent.headers ?? {})) for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  const init: RequestInit = { method: sent.method ?? 'POST', headers, redirect: 'manual' };
  if (sent.body !== undefined) init.body = typeof sent.body === 'string' ? sent.body : new Uint8Array(sent.body);
  const response = await fetch(`${base}${sent.path}`, init);
  return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
}

const results: CaseResult[] = [];
for (const [i, behaviour] of behaviourTable(seedFixtures()).entries()) {
  const session = `behaviour-${i}`;
  next = 0;
  const answers = await runCase(send, behaviour, session);
  const state = await (await fetch(`${base}/__mock/state`, { headers: { 'x-mock-session': session } })).text();
  const sent = behaviour.requests.map((r) => ({
    method: r.method ?? 'POST',
    path: r.path,
    headers: Object.entries(r.headers ?? {}).sort(([a], [b]) => a.localeCompare(b)),
    body: r.body === undefined ? null : Buffer.from(r.body).toString('base64'),
  }));
  results.push({
    name: behaviour.name,
    checks: createHash('sha256').update(JSON.stringify(sent)).digest('hex'),
    paths: behaviour.requests.map((r) => r.path),
    answers: answers.map((a) => ({
      status: a.status,
      contentType: a.headers['content-type'] ?? null,
      text: a.text.replace(/"duration_ms":\d+/g, '"duration_ms":0'),
    })),
    state: createHash('sha256').update(state).digest('hex'),
  });
}
server.close();
// Exit once the whole JSON is written: a pipe takes it in pieces.
process.stdout.write(JSON.stringify(results), () => process.exit(0));
