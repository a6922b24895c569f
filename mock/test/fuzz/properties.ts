// The properties every generated request must satisfy, checked over real HTTP, and the two ways of running them:
// `assertFuzz` (vitest: stop at the first failure, shrink it, throw with the seed and a curl line) and `fuzzReport`
// (npm run fuzz: keep going, count every status, keep the first example of each kind of failure).
//
// Properties, for every request to an operation:
//   1. the server answers (and keeps answering: GET /__mock/state after every request);
//   2. the status is documented for the operation, with one exception: the mock's own 400 {"error":"Mock control
//      error"} for a misused Prefer header (only requests that carry Prefer may get it);
//   3. the body validates against the spec for its status and media type (JSON without a Content-Type is checked as
//      JSON, other bodies without one as text/plain), and a 5xx body is one of the spec's 5xx examples (production's
//      crash bodies), never the mock's own "Mock response invalid";
//   4. no header or body contains a token (`opk_`), and the state never does;
//   5. a rejected request (any status but 200) and a forced answer (Prefer: code / example) leave GET /__mock/state
//      byte for byte as it was; an accepted write adds exactly one activity;
//   6. a body sent as application/json that the real service's parser rejects (invalid UTF-8, a byte-order mark
//      before the JSON, text that is not JSON) is 400 before anything else looks at the request.
// Each run starts from the seed: the property's own X-Mock-Session is reset after any change, so the curl line of a
// failure reproduces it against a fresh `npm start`.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { checkResponse } from '../../../contract-tests/harness/check-response.ts';
import { isObject } from '../../../spec/lib/openapi.ts';
import { responseExamples } from '../../../spec/lib/operations.ts';
import { errorsOf, formatLocation } from '../../../spec/lib/violations.ts';
import { send, type Received } from '../http.ts';
import { ALL_KNOWN_ISSUES, requestArbitrary, SAFE_DEPTH, type FuzzContext, type FuzzRequest, type KnownIssue } from './arbitraries.ts';
import { fuzzOperations, type FuzzOperation } from './operations.ts';

const CACHE_CONTROL = 'max-age=0, private, must-revalidate';
const SESSION_HEADER = 'x-mock-session';
/** Where the curl lines point: `npm start` serves the same tokens and ids on every start. */
const CURL_BASE = 'http://127.0.0.1:4010';

// ── checking one response ────────────────────────────────────────────────────────────────────────────────────────

/** A JSON value with object keys sorted, for comparing bodies regardless of key order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, canonical(value[k])]),
  );
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The body as the spec describes it: the media type it is documented under and the value to validate. */
function documentedBody(response: Received): { mediaType: string; body: unknown; problem?: string } {
  const contentType = headerValue(response.headers['content-type']);
  if (contentType === undefined) {
    try {
      const parsed: unknown = JSON.parse(response.text);
      if (isObject(parsed)) return { mediaType: 'application/json', body: parsed };
    } catch {
      // plain text
    }
    return { mediaType: 'text/plain', body: response.text };
  }
  if (contentType === 'application/json; charset=utf-8') {
    try {
      const parsed: unknown = JSON.parse(response.text);
      return { mediaType: 'application/json', body: parsed };
    } catch {
      return { mediaType: 'application/json', body: response.text, problem: 'Content-Type is JSON but the body is not JSON' };
    }
  }
  if (contentType === 'text/html; charset=utf-8') return { mediaType: 'text/html', body: response.text };
  return { mediaType: contentType, body: response.text, problem: `unexpected Content-Type ${JSON.stringify(contentType)}` };
}

export type ResponseChecker = (operation: FuzzOperation, request: FuzzRequest, response: Received) => string[];

/** Properties 2–4 for one response. */
export function createResponseChecker(): ResponseChecker {
  const crashBodies = new Map<string, Set<string>>();
  const crashBodiesOf = (operation: FuzzOperation, status: string): Set<string> => {
    const key = `${operation.operationId} ${status}`;
    let set = crashBodies.get(key);
    if (!set) {
      set = new Set(
        responseExamples(operation)
          .filter((e) => String(e.status) === status)
          .map((e) => JSON.stringify(canonical(e.value))),
      );
      crashBodies.set(key, set);
    }
    return set;
  };

  return (operation, request, response) => {
    const problems: string[] = [];
    const { mediaType, body, problem } = documentedBody(response);
    if (problem) problems.push(problem);
    for (const [name, value] of Object.entries(response.headers)) {
      if (headerValue(value)?.includes('opk_')) problems.push(`the ${name} header contains a token`);
    }
    if (response.text.includes('opk_')) problems.push('the body contains a token (opk_)');
    if (headerValue(response.headers['cache-control']) !== CACHE_CONTROL)
      problems.push(`cache-control is ${JSON.stringify(response.headers['cache-control'])}, not production's "${CACHE_CONTROL}"`);

    if (isObject(body) && body['error'] === 'Mock control error') {
      if (request.headers['prefer'] === undefined && request.badSession === undefined)
        problems.push(`a mock control error for a request without Prefer or a bad X-Mock-Session: ${String(body['message'])}`);
      if (response.status !== 400 || mediaType !== 'application/json')
        problems.push(`a mock control error must be 400 JSON, got ${response.status} ${mediaType}`);
      return problems;
    }
    if (request.headers['content-type'] === 'application/json' && !parsesAsJason(request.body) && response.status !== 400) {
      problems.push(`a body the real service cannot parse as JSON got ${response.status}, not 400`);
    }
    if (isObject(body) && body['error'] === 'Mock response invalid') {
      // The mock's alarm for its own bug: the message names the cause; the body's other faults follow from it.
      problems.push(`the mock reports its own failure (${response.status}): ${String(body['message']).slice(0, 400)}`);
      return problems;
    }

    // Status, media type, body and headers: the package's one response checker (spec/lib/conformance.ts).
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(response.headers)) headers[name] = headerValue(value);
    const violations = errorsOf(checkResponse(operation.operationId, { status: response.status, headers, text: response.text }, { unknownFields: false }));
    for (const v of violations) problems.push(`${formatLocation(v.location)}: ${v.message} [${v.code}]`);
    if (violations.length > 0) return problems;
    const status = String(response.status);
    if (response.status >= 500 && !crashBodiesOf(operation, status).has(JSON.stringify(canonical(body)))) {
      problems.push(`a ${status} body that is none of the spec's ${status} examples: ${response.text.slice(0, 200)}`);
    }
    return problems;
  };
}

/** Whether Plug's JSON parser (Jason) reads the body: zero bytes is {}, a byte-order mark is an unexpected byte. */
function parsesAsJason(body: string | Buffer | undefined): boolean {
  const bytes = body === undefined ? Buffer.alloc(0) : typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (bytes.length === 0) return true;
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/** A short name for an answer, for the statistics: the status and the message without its variable part. */
function answerLabel(response: Received): string {
  const { body } = documentedBody(response);
  let text: string;
  if (isObject(body) && body['error'] === 'Mock control error') text = 'Mock control error';
  else if (isObject(body)) {
    const detail = isObject(body['errors']) ? body['errors']['detail'] : undefined;
    const message =
      typeof body['message'] === 'string'
        ? body['message']
        : typeof detail === 'string'
          ? detail
          : typeof body['error'] === 'string'
            ? body['error']
            : Object.keys(body).join(',');
    text = message.split(':')[0] ?? message;
  } else text = String(body).slice(0, 60);
  return `${response.status} ${response.status === 200 ? 'OK' : text}`;
}

// ── state ────────────────────────────────────────────────────────────────────────────────────────────────────────

function activityCount(stateText: string): number | undefined {
  try {
    const state: unknown = JSON.parse(stateText);
    return isObject(state) && Array.isArray(state['activities']) ? state['activities'].length : undefined;
  } catch {
    return undefined;
  }
}

/** Which top-level tables differ between two states, with their lengths. */
function stateDiff(before: string, after: string): string {
  let a: unknown;
  let b: unknown;
  try {
    a = JSON.parse(before);
    b = JSON.parse(after);
  } catch {
    return 'the state is not JSON';
  }
  if (!isObject(a) || !isObject(b)) return 'the state is not an object';
  const changed: string[] = [];
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[key];
    const y = b[key];
    if (JSON.stringify(x) === JSON.stringify(y)) continue;
    changed.push(Array.isArray(x) && Array.isArray(y) ? `${key} (${x.length} → ${y.length} rows)` : key);
  }
  return changed.length ? `changed: ${changed.join(', ')}` : 'same content, different bytes';
}

export type Tally = { requests: number; ms: number; statuses: Map<number, number>; answers: Map<string, number>; bodyKinds: Map<string, number> };

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** One operation under fuzzing, in its own session of a running mock. */
class FuzzTarget {
  readonly port: number;
  readonly session: string;
  readonly operation: FuzzOperation;
  readonly tally: Tally = { requests: 0, ms: 0, statuses: new Map(), answers: new Map(), bodyKinds: new Map() };
  readonly #check: ResponseChecker;
  #seedState = '';

  private constructor(port: number, session: string, operation: FuzzOperation, check: ResponseChecker) {
    this.port = port;
    this.session = session;
    this.operation = operation;
    this.#check = check;
  }

  static async open(port: number, session: string, operation: FuzzOperation, check: ResponseChecker = createResponseChecker()): Promise<FuzzTarget> {
    const target = new FuzzTarget(port, session, operation, check);
    await target.#reset();
    const state = await target.#state();
    if (state.status !== 200) throw new Error(`GET /__mock/state answered ${state.status}: ${state.text.slice(0, 200)}`);
    target.#seedState = state.text;
    return target;
  }

  #state(): Promise<Received> {
    return send(this.port, { method: 'GET', path: '/__mock/state', headers: { [SESSION_HEADER]: this.session } });
  }

  async #reset(): Promise<void> {
    const response = await send(this.port, { method: 'POST', path: '/__mock/reset', headers: { [SESSION_HEADER]: this.session } });
    if (response.status !== 200) throw new Error(`POST /__mock/reset answered ${response.status}`);
  }

  /** Sends one request and returns every property it breaks (none: all is well). */
  async exchange(request: FuzzRequest): Promise<string[]> {
    const started = performance.now();
    let response: Received;
    try {
      response = await send(this.port, {
        method: request.method,
        path: request.absolute ? `http://127.0.0.1:${this.port}${request.path}` : request.path,
        headers: { ...request.headers, [SESSION_HEADER]: request.badSession ?? this.session },
        body: request.body,
      });
    } catch (error) {
      return [`no answer: ${error instanceof Error ? error.message : String(error)}`];
    }
    this.tally.requests++;
    this.tally.ms += performance.now() - started;
    bump(this.tally.statuses, response.status);
    bump(this.tally.answers, `${request.forced ? '(forced) ' : request.badSession !== undefined ? '(bad session) ' : ''}${answerLabel(response)}`);
    bump(this.tally.bodyKinds, request.bodyKind);
    const problems = this.#check(this.operation, request, response);

    let after: Received;
    try {
      after = await this.#state();
    } catch (error) {
      return [...problems, `the server stopped answering: ${error instanceof Error ? error.message : String(error)}`];
    }
    if (after.text.includes('opk_')) problems.push('GET /__mock/state contains a raw token');
    const accepted = response.status === 200 && !request.forced;
    if (after.status !== 200) {
      problems.push(`GET /__mock/state answered ${after.status} after this request: ${after.text.slice(0, 200)}`);
      // The state cannot be read; the event journal (which does not hold the documents) still tells whether a write happened.
      const events = await send(this.port, { method: 'GET', path: '/__mock/events', headers: { [SESSION_HEADER]: this.session } });
      const body: unknown = events.status === 200 ? events.json() : undefined;
      const count = isObject(body) && Array.isArray(body['events']) ? body['events'].length : undefined;
      if (!accepted && count !== 0)
        problems.push(
          `a ${request.forced ? 'forced answer' : 'rejected request'} (${response.status}) committed a write: ${String(count)} event(s) in the journal`,
        );
      if (accepted && count !== 1) problems.push(`an accepted write should add one event: ${String(count)}`);
      await this.#reset();
    } else if (after.text !== this.#seedState) {
      if (!accepted)
        problems.push(
          `the state changed after a ${request.forced ? 'forced answer' : 'rejected request'} (${response.status}): ${stateDiff(this.#seedState, after.text)}`,
        );
      else {
        const before = activityCount(this.#seedState);
        const now = activityCount(after.text);
        if (before === undefined || now !== before + 1) problems.push(`an accepted write should add one activity: ${String(before)} → ${String(now)}`);
      }
      await this.#reset();
      const fresh = await this.#state();
      if (fresh.text !== this.#seedState) problems.push('POST /__mock/reset did not restore the seed state');
    } else if (accepted) problems.push('an accepted write (200) left the state unchanged');
    return problems;
  }

  /** The request journal of this session, checked for tokens (it must never hold one). */
  async journalProblems(): Promise<string[]> {
    const problems: string[] = [];
    for (const path of ['/__mock/requests?limit=500', '/__mock/events', '/__mock/sessions']) {
      const response = await send(this.port, { method: 'GET', path, headers: { [SESSION_HEADER]: this.session } });
      if (response.status !== 200) problems.push(`GET ${path} answered ${response.status}`);
      if (response.text.includes('opk_')) problems.push(`GET ${path} contains a token`);
    }
    return problems;
  }
}

// ── reproducing a request ────────────────────────────────────────────────────────────────────────────────────────

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * A curl command that sends exactly this request to a fresh `npm start` (after resetting the session). Bodies that
 * are long, binary or hold a NUL go to a file in the temp directory, named in the command.
 */
export function curlLine(request: FuzzRequest, session: string, base = CURL_BASE): string {
  const parts = ['curl', '-sS', '-i', '-g', '--path-as-is', '-X', request.method, quote(`${base}${request.path}`)];
  // The absolute form, as sent (curl sends it as the request line with --request-target).
  if (request.absolute) parts.push('--request-target', quote(`${base}${request.path}`));
  const headers: Record<string, string> = { ...request.headers, 'X-Mock-Session': request.badSession ?? session };
  for (const [name, value] of Object.entries(headers)) parts.push('-H', quote(value === '' ? `${name};` : `${name}: ${value}`));
  // curl adds headers of its own; remove those the request did not have.
  if (request.headers['accept'] === undefined) parts.push('-H', quote('Accept:'));
  if (request.body !== undefined) {
    if (request.headers['content-type'] === undefined) parts.push('-H', quote('Content-Type:'));
    parts.push('-H', quote('Expect:'));
    const inline = typeof request.body === 'string' && request.body.length <= 2000 && !request.body.includes('\u0000');
    if (inline && typeof request.body === 'string') parts.push('--data-binary', quote(request.body));
    else {
      const bytes = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
      const file = join(tmpdir(), `fuzz-${request.operationId}-${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}.body`);
      writeFileSync(file, bytes);
      parts.push('--data-binary', quote(`@${file}`));
    }
  }
  const reset = `curl -sS -X POST ${quote(`${base}/__mock/reset`)} -H ${quote(`X-Mock-Session: ${session}`)}`;
  const command = `${reset} && \\\n  ${parts.join(' ')}`;
  if (command.length <= 3000) return command;
  const script = join(tmpdir(), `fuzz-${request.operationId}-${createHash('sha256').update(command).digest('hex').slice(0, 12)}.sh`);
  writeFileSync(script, `#!/bin/sh\n${command}\n`);
  return `sh ${quote(script)}   # the curl command is ${command.length} characters long`;
}

// ── running the property ─────────────────────────────────────────────────────────────────────────────────────────

export type FuzzOptions = {
  numRuns: number;
  seed?: number;
  /** A fast-check path, to replay one run: the run index (then shrink steps). */
  path?: string;
  maxDepth?: number;
  hugeLength?: number;
  include?: ReadonlyArray<KnownIssue>;
};

type RunningMockLike = {
  port: number;
  fixtures: { tokens: Record<string, string>; projects: Record<string, string>; goals: Record<string, string>; people: Record<string, string> };
};

/** What the generators need from a running mock: its tokens and ids (fixtures) and the records' UUIDs (state). */
async function fuzzContext(mock: RunningMockLike, operation: FuzzOperation, options: FuzzOptions): Promise<FuzzContext> {
  const state: unknown = (await send(mock.port, { method: 'GET', path: '/__mock/state', headers: { [SESSION_HEADER]: 'fuzz-context' } })).json();
  const uuids: string[] = [];
  if (isObject(state)) {
    for (const table of ['projects', 'goals', 'people']) {
      const rows = state[table];
      if (Array.isArray(rows)) for (const row of rows) if (isObject(row) && typeof row['uuid'] === 'string') uuids.push(row['uuid']);
    }
  }
  if (uuids.length === 0) throw new Error('GET /__mock/state holds no record UUIDs');
  const include = new Set(options.include ?? []);
  return {
    operation,
    operations: fuzzOperations(),
    tokens: mock.fixtures.tokens,
    recordIds: [...Object.values(mock.fixtures.projects), ...Object.values(mock.fixtures.goals)],
    personIds: [...new Set(Object.values(mock.fixtures.people))],
    uuids,
    maxDepth: include.has('deep-nesting') ? (options.maxDepth ?? 20_000) : Math.min(options.maxDepth ?? SAFE_DEPTH, SAFE_DEPTH),
    hugeLength: options.hugeLength ?? 100_000,
    include,
  };
}

function replayCommand(ctx: FuzzContext, seed: number, path: string): string {
  const include = [...ctx.include];
  const known = include.length === ALL_KNOWN_ISSUES.length ? '' : include.length === 0 ? ' --skip-known' : ` --include ${include.join(',')}`;
  return `node mock/test/fuzz/run.ts --operation ${ctx.operation.operationId} --seed=${seed} --path=${path} --max-depth ${ctx.maxDepth} --huge ${ctx.hugeLength}${known}`;
}

function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? '(none)'
      : typeof request.body === 'string'
        ? request.body.length > 300
          ? `${request.body.slice(0, 300)}… (${request.body.length} characters)`
          : request.body
        : `<${request.body.length} raw bytes>`;
  const path = request.path.length > 300 ? `${request.path.slice(0, 300)}… (${request.path.length} characters)` : request.path;
  const session =
    (request.badSession === undefined ? '' : `\n  X-Mock-Session (refused): ${JSON.stringify(request.badSession)}`) +
    (request.absolute ? '\n  sent with an absolute-form target (RFC 9112 §3.2.2)' : '');
  return `POST ${path}\n  headers: ${JSON.stringify(request.headers)}${session}\n  body (${request.bodyKind}): ${body}`;
}

/**
 * The bounded form (vitest): runs the property, shrinks the first failure and throws an error that names the seed,
 * the problems, the request and a curl line that reproduces it.
 */
export async function assertFuzz(mock: RunningMockLike, operation: FuzzOperation, options: FuzzOptions): Promise<Tally> {
  const ctx = await fuzzContext(mock, operation, options);
  const seed = options.seed ?? Math.floor(Math.random() * 0x80000000);
  const session = `fuzz-${operation.operationId}-${seed.toString(36)}`;
  const target = await FuzzTarget.open(mock.port, session, operation);
  let lastProblems: string[] = [];
  const details = await fc.check(
    fc.asyncProperty(requestArbitrary(ctx), async (request) => {
      const problems = await target.exchange(request);
      lastProblems = problems;
      if (problems.length) throw new Error(problems.join('\n'));
    }),
    { numRuns: options.numRuns, seed, ...(options.path ? { path: options.path } : {}) },
  );
  if (details.failed) {
    const request = details.counterexample?.[0];
    const lines = [
      `${operation.operationId}: a generated request breaks the properties (fast-check seed ${details.seed}, path ${details.counterexamplePath ?? '?'}, after ${details.numRuns} runs and ${details.numShrinks} shrinks)`,
      ...(details.errorInstance instanceof Error ? details.errorInstance.message.split('\n') : lastProblems).map((p) => `  - ${p}`),
    ];
    if (request) lines.push(describeRequest(request), 'reproduce with npm start and:', curlLine(request, session));
    lines.push(`replay: ${replayCommand(ctx, details.seed, details.counterexamplePath ?? '0')}`);
    throw new Error(lines.join('\n'));
  }
  const journal = await target.journalProblems();
  if (journal.length) throw new Error(`${operation.operationId}: ${journal.join('; ')}`);
  return target.tally;
}

type FailureKind = { problem: string; count: number; run: number; request: FuzzRequest; problems: string[] };
export type FuzzReport = {
  operationId: string;
  seed: number;
  session: string;
  tally: Tally;
  failures: FailureKind[];
  journalProblems: string[];
  replay: (run: number) => string;
};

/** The key under which a problem is counted: its text without quoted values, numbers and long tails. */
function problemKey(problem: string): string {
  return problem
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 160);
}

/**
 * The long form (npm run fuzz): every run is counted, a failing run does not stop the others, and the first request
 * of each kind of failure is kept with its run index (replayable with --seed and --path).
 */
export async function fuzzReport(mock: RunningMockLike, operation: FuzzOperation, options: FuzzOptions): Promise<FuzzReport> {
  const ctx = await fuzzContext(mock, operation, options);
  const seed = options.seed ?? Math.floor(Math.random() * 0x80000000);
  const session = `fuzz-${operation.operationId}-${seed.toString(36)}`;
  const target = await FuzzTarget.open(mock.port, session, operation);
  const failures = new Map<string, FailureKind>();
  let run = 0;
  await fc.check(
    fc.asyncProperty(requestArbitrary(ctx), async (request) => {
      const index = run++;
      const problems = await target.exchange(request);
      for (const problem of problems) {
        const key = problemKey(problem);
        const known = failures.get(key);
        if (known) known.count++;
        else failures.set(key, { problem, count: 1, run: index, request, problems });
      }
    }),
    { numRuns: options.numRuns, seed, ...(options.path ? { path: options.path } : {}) },
  );
  return {
    operationId: operation.operationId,
    seed,
    session,
    tally: target.tally,
    failures: [...failures.values()],
    journalProblems: await target.journalProblems(),
    replay: (index) => replayCommand(ctx, seed, String(index)),
  };
}

export { describeRequest };
