// Replay: the recorded API requests sent again, in order, to another implementation, and each answer compared with
// the recorded one (compare.ts). Credentials are read back as the target's (`$<persona>` → the --tokens file's token,
// or the mock's fixtures' when the target is this package's mock; `$token-<n>` → an unknown token of the same form);
// recorded record ids are mapped to the target's (`--map`, or against the mock each fixture to the one of the same
// kind and story). Against the mock, each mock session the recording uses is reset before its first request, and the
// recording's own mock controls that change state (a reset) are sent too, so the state runs as it ran. Every request
// and answer is bounded (time and size); requests go as recorded (headers in order, repeats kept).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isObject } from '../../spec/lib/openapi.ts';
import { operationModels } from '../model/profiles.ts';
import type { Har, RecordedExchange, Received } from '../har/har.ts';
import { MOCK_SESSION_HEADER } from '../io/target.ts';
import type { Fixtures } from '../proxy/knowledge.ts';
import { unmasked } from '../drift/drift.ts';
import { firstDifference, type Difference } from './compare.ts';

type ReplayBounds = { timeoutMs: number; maxBytes: number };
const REPLAY_BOUNDS: ReplayBounds = { timeoutMs: 30_000, maxBytes: 8 * 1024 * 1024 };

type Sent = { method: string; url: string; headers: ReadonlyArray<readonly [string, string]>; body: Buffer | undefined };

/** Sends one request as given; resolves with the answer, or rejects with a one-line reason. */
function send(target: URL, sent: Sent, bounds: ReplayBounds = REPLAY_BOUNDS): Promise<Received> {
  const skip = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer', 'accept-encoding']);
  const headers: string[] = ['Host', target.host];
  for (const [name, value] of sent.headers) if (!skip.has(name.toLowerCase())) headers.push(name, value);
  const body = sent.body ?? Buffer.alloc(0);
  if (body.length > 0 || sent.method !== 'GET') headers.push('Content-Length', String(body.length));
  const prefix = target.pathname.replace(/\/+$/, '');
  return new Promise((resolve, reject) => {
    const make = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = make({ host: target.hostname, port: target.port, method: sent.method, path: `${prefix}${sent.url}`, headers, setHost: false });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${bounds.timeoutMs} ms`)), bounds.timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > bounds.maxBytes) req.destroy(new Error(`an answer larger than ${bounds.maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const out: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: res.statusCode ?? 0, headers: out, body: Buffer.concat(chunks) });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new Error(error.code ?? error.message));
    });
    req.end(body);
  });
}

type ReplayFinding = { entry: number; method: string; path: string; difference: Difference };
export type ReplayResult = { same: number; differ: number; findings: ReplayFinding[] };

/** The mock's GET /__mock/fixtures at the target, or undefined when the target is no mock. */
export async function mockFixtures(target: URL): Promise<unknown> {
  try {
    const answer = await send(target, { method: 'GET', url: '/__mock/fixtures', headers: [['Accept', 'application/json']], body: undefined });
    return answer.status === 200 ? JSON.parse(answer.body.toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/** Recorded id → target id: each fixture of the recording to the target's of the same group and story. */
export function fixtureMap(recorded: unknown, target: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (!isObject(recorded) || !isObject(target)) return map;
  for (const group of ['projects', 'goals', 'people']) {
    const a = recorded[group];
    const b = target[group];
    if (!isObject(a) || !isObject(b)) continue;
    for (const [story, id] of Object.entries(a)) {
      const to = b[story];
      if (typeof id === 'string' && typeof to === 'string' && id !== to) map.set(id, to);
    }
  }
  return map;
}

const replaceAll = (text: string, map: ReadonlyMap<string, string>): string => {
  let out = text;
  for (const [from, to] of map) out = out.split(from).join(to);
  return out;
};

export type ReplayOptions = {
  target: URL;
  /** Persona → token at the target. */
  tokens: Fixtures['tokens'];
  map: ReadonlyMap<string, string>;
  /** The target is this package's mock: sessions are reset before use, the recording's mock controls are sent. */
  mock: boolean;
  onFinding?: (finding: ReplayFinding) => void;
};

/** The API's path prefix (the operations' common leading segments, `/api/external/v1/`): what a request must be under to be replayed. */
function apiPrefix(): string {
  const paths = operationModels().map((op) => op.path.split('/').filter(Boolean));
  const first = paths[0] ?? [];
  let n = 0;
  while (n < first.length - 1 && paths.every((p) => p[n] === first[n])) n++;
  return `/${first.slice(0, n).join('/')}/`.toLowerCase();
}

export async function replay(har: Har, exchanges: ReadonlyArray<RecordedExchange>, options: ReplayOptions): Promise<ReplayResult> {
  const fixtures: Fixtures = { tokens: options.tokens, records: { projects: {}, goals: {} }, people: {} };
  const result: ReplayResult = { same: 0, differ: 0, findings: [] };
  const reset = new Set<string>();
  const prefix = apiPrefix();
  for (const exchange of exchanges) {
    const path = exchange.request.url.split('?')[0] ?? '';
    const control = path.startsWith('/__mock');
    // The API's requests (a browser's export holds the page's scripts and styles too), and against the mock its controls
    // that change state.
    const api = path
      .replace(/\/{2,}/g, '/')
      .toLowerCase()
      .startsWith(prefix);
    if (!api && !(control && options.mock && exchange.request.method !== 'GET' && exchange.request.method !== 'HEAD')) continue;
    const request = unmasked(exchange.request, fixtures, har.log._tokens);
    const headers = request.headers.map(([n, v]) => [n, replaceAll(v, options.map)] as const);
    const session = headers.find(([n]) => n.toLowerCase() === MOCK_SESSION_HEADER)?.[1] ?? '';
    if (options.mock && !reset.has(session)) {
      reset.add(session);
      await send(options.target, { method: 'POST', url: '/__mock/reset', headers: session ? [[MOCK_SESSION_HEADER, session]] : [], body: undefined });
    }
    const sent: Sent = {
      method: request.method,
      url: replaceAll(request.url, options.map),
      headers,
      body: request.body === undefined || options.map.size === 0 ? request.body : Buffer.from(replaceAll(request.body.toString('utf8'), options.map), 'utf8'),
    };
    const got = await send(options.target, sent);
    if (control) continue;
    const difference = firstDifference(exchange.received, got, options.map);
    if (difference === undefined) result.same++;
    else {
      result.differ++;
      const finding = { entry: exchange.index, method: exchange.request.method, path, difference };
      result.findings.push(finding);
      options.onFinding?.(finding);
    }
  }
  return result;
}
