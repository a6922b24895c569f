// The mock as one function from a request to an answer, with no framework and no Node-only API, so the same core
// runs behind Express (app.ts), in MSW handlers in a test or a browser page (msw.ts), and in a service worker.
// It owns everything between the bytes in and the bytes out: CORS, the control endpoints, sessions, `Prefer`, the
// order of checks (pipeline.ts), the response self-check, delays and the request journal.
import { control, sessionName } from './controls.ts';
import { cors, type CorsOptions } from './cors.ts';
import { controlOriginAllowed, crossOrigin, misdirected } from './guard.ts';
import * as errors from '../answers/errors.ts';
import { FAULT_CODE, hold } from '../answers/faults.ts';
import { answer, readOperations, type Answer, type MockRequest, type Operations } from './pipeline.ts';
import { busyMessage, createWaits, requestWait, WaitStopped } from './delay.ts';
import { readTarget } from './target.ts';
import { parsePrefer, rehearsed, type Preferences } from '../answers/prefer.ts';
import { frameReply, selfCheck, verdictsLoaded, type Framed, type Reply, type ReplyChecker, type SelfCheckMode } from '../answers/reply.ts';
import { MemoryScenarios, type Scenarios, type TakenScenario } from '../answers/scenarios.ts';
import { REHEARSAL_HEADER } from '../../../spec/lib/rehearsal.ts';
import { defaultSeed } from '../domain/seed.ts';
import { DEFAULT_MAX_SESSIONS, DEFAULT_TOTAL_BYTES, MemorySessions, SESSION_HEADER, StoreUnavailable, type Sessions } from '../storage/sessions.ts';
import type { StoreOptions } from '../storage/store.ts';
import { DEFAULT_BODY_LIMIT, DEFAULT_MAX_HOLD_MS } from '../limits.ts';
import { mark } from '../stages.ts';
import type { Seed } from '../domain/state.ts';

export type { Framed, SelfCheckMode } from '../answers/reply.ts';
export type { MockRequest } from './pipeline.ts';

export type CoreOptions = {
  /** The data every session starts from (and returns to on reset); the default is built from the spec's examples. */
  seed?: Seed;
  /** The clock of the state rules and the journals (check-in dates, outdated flags, timestamps). */
  now?: () => Date;
  /** New record ids (UUIDs); tests pass a sequence to get stable ids. */
  newId?: () => string;
  /** The largest request body in bytes; larger ones get production's 413 (production allows 256,000,000). */
  bodyLimit?: number;
  /**
   * The response self-check: each answer checked against the spec before it is sent, a violation answered with a
   * loud 500 naming it. `always` (the default) checks every answer; `sample` the first answers of each operation,
   * status and error code, then one in SAMPLE_EVERY; `off` none.
   */
  selfCheck?: SelfCheckMode;
  /** @deprecated `false` is `selfCheck: 'off'`. */
  validateResponses?: boolean;
  /** Wait this long (a random time in [min, max] ms) before every API answer; `Prefer: delay=MS` overrides it. */
  delay?: { min: number; max: number };
  /** CORS for browser apps: on by default, reflecting any origin; `origins` restricts it. */
  cors?: CorsOptions;
  /** Serve the /__mock/ control endpoints (default true). */
  control?: boolean;
  /**
   * The Host values answered (lower case, with the port): any other Host is refused with 421 before anything else,
   * so a page that rebinds its DNS name to the mock's address cannot use it (guard.ts). The CLI sets it from the
   * address it listens on and --allowed-host; unset (in-process apps, MSW), any Host is answered.
   */
  allowedHosts?: () => ReadonlySet<string>;
  /** How many X-Mock-Session sessions to keep before the least recently used is dropped (in-memory sessions). */
  maxSessions?: number;
  /**
   * Bytes of rich text one session keeps (DEFAULT_SESSION_BYTES): its oldest comment threads go first, and a write
   * whose document alone is larger gets the mock's 507. Applies to a shared store too.
   */
  maxSessionBytes?: number;
  /** Bytes all in-memory sessions keep together (DEFAULT_TOTAL_BYTES): past it the least recently used are dropped. */
  maxTotalBytes?: number;
  /** Where the sessions' stores are kept (default: in this process's memory, MemorySessions). */
  sessions?: Sessions;
  /** Where queued scenarios are kept (default: the sessions' own, `sessions.scenarios`, else this process's memory). */
  scenarios?: Scenarios;
  /** How long a `fault=timeout` request is held, in ms, before its connection is dropped (default DEFAULT_MAX_HOLD_MS). */
  maxDelay?: number;
  /** Delayed requests that may wait at once; one more gets the mock's 503 at once (delay.ts, DEFAULT_MAX_WAITING). */
  maxWaiting?: number;
};

export { DEFAULT_BODY_LIMIT };

type FetchOptions = { basePath?: string; session?: string };

export type MockCore = {
  seed: Seed;
  sessions: Sessions;
  /** The queued scenarios (POST /__mock/scenarios), per session. */
  scenarios: Scenarios;
  bodyLimit: number;
  /** Settles when the core can answer: undefined, or the error that kept its response validators from loading. */
  ready: Promise<Error | undefined>;
  /** Answers one request (the adapters' entry: no WHATWG objects made). */
  answer(request: MockRequest): Promise<Framed>;
  /**
   * Answers a WHATWG Request. `basePath`: a path prefix the mock is mounted under (stripped first); `session`: the
   * session of a request that names none (X-Mock-Session).
   */
  fetch(request: Request, options?: FetchOptions): Promise<Response>;
  /** The delayed requests waiting now (at most `maxWaiting`). */
  waiting(): number;
};

/** The store options the core's options ask for: the clock, new ids, the session's byte budget. */
export function storeOptionsOf(now: () => Date, options: Pick<CoreOptions, 'newId' | 'maxSessionBytes'>): StoreOptions {
  const storeOptions: StoreOptions = { now };
  if (options.newId) storeOptions.newId = options.newId;
  if (options.maxSessionBytes !== undefined) storeOptions.maxBytes = options.maxSessionBytes;
  return storeOptions;
}

/** The default place for the sessions: this process's memory, bounded as the options say. */
export function memorySessions(seed: Seed, now: () => Date, options: CoreOptions): MemorySessions {
  return new MemorySessions(seed, storeOptionsOf(now, options), options.maxSessions ?? DEFAULT_MAX_SESSIONS, options.maxTotalBytes ?? DEFAULT_TOTAL_BYTES);
}

const encoder = new TextEncoder();

/** Statuses whose response has no body (Fetch: null body status), and HEAD, whose answer has none either. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

export function createMockCore(options: CoreOptions = {}): MockCore {
  const seed = options.seed ?? defaultSeed();
  const now = options.now ?? (() => new Date());
  const sessions: Sessions = options.sessions ?? memorySessions(seed, now, options);
  // In memory: a queue for each session the sessions keep (and the default one), at most.
  const scenarios = options.scenarios ?? sessions.scenarios ?? new MemoryScenarios((options.maxSessions ?? DEFAULT_MAX_SESSIONS) + 1);
  const maxDelay = options.maxDelay ?? DEFAULT_MAX_HOLD_MS;
  const mode = options.selfCheck ?? (options.validateResponses === false ? 'off' : 'always');
  const checkReply: ReplyChecker = selfCheck(mode);
  const operations: Operations = readOperations();
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const corsOptions = options.cors ?? { enabled: true };
  const controlsOn = options.control !== false;
  const waits = createWaits(options.maxWaiting);
  let startFailure: Error | undefined;
  let started = false;
  // Ready once the self-check's validators have loaded (a chunk of their own in a browser bundle).
  const ready = (mode === 'off' ? Promise.resolve(undefined) : verdictsLoaded()).then((failure) => {
    started = true;
    startFailure = failure;
    return failure;
  });

  /** Every answer carries the mock's own clock in its Date header: the clock its writes use, which a client reads. */
  async function answerRequest(request: MockRequest): Promise<Framed> {
    const framed = await frameAnswer(request);
    return { ...framed, headers: [...framed.headers, ['date', now().toUTCString()]] };
  }

  async function frameAnswer(request: MockRequest): Promise<Framed> {
    const startedAt = request.receivedAt ?? performance.now();
    const method = request.method.toUpperCase();
    const host = request.header('host');
    const hosts = options.allowedHosts?.();
    if (hosts && host !== undefined && !hosts.has(host.toLowerCase())) {
      const refused = misdirected(host, hosts, 'This mock');
      return { status: refused.status, headers: [['content-type', 'application/json; charset=utf-8']], body: JSON.stringify(refused.body) };
    }
    const { url } = readTarget(request.target);
    const isControl = controlsOn && url.pathname.toLowerCase().startsWith('/__mock/');
    // The controls hand out tokens and reset sessions: CORS only for a trusted origin, and no state change from another.
    const origin = request.header('origin');
    const trusted = !isControl || controlOriginAllowed(origin, corsOptions.origins, corsOptions.enabled);
    const allowed = trusted ? cors(corsOptions, method, request.header) : { headers: [], preflight: method === 'OPTIONS' };
    if (allowed.preflight) return { status: 204, headers: allowed.headers, body: '' };
    if (isControl) {
      if (!trusted && origin !== undefined && method !== 'GET' && method !== 'HEAD') {
        const refused = crossOrigin(method, url.pathname, origin);
        return { status: refused.status, headers: [['content-type', 'application/json; charset=utf-8']], body: JSON.stringify(refused.body) };
      }
      const answered = await control(
        { method, pathname: url.pathname, query: url.searchParams, header: request.header, body: request.body },
        seed,
        sessions,
        now,
        scenarios,
      );
      if (answered) return { ...answered, headers: [...allowed.headers, ...answered.headers] };
    }

    const name = sessionName(request.header('x-mock-session'));
    let result: Answer;
    let operationId: string | undefined;
    // The Prefer the answer follows: the request's own, or a queued scenario's in its place.
    let effective: Preferences = {};
    /** The X-Mock-Rehearsal mark of a forced answer (spec/lib/rehearsal.ts). */
    let rehearsal: string | undefined;
    // The delay (Prefer's, a scenario's, or --delay), waited once: before the write, or once the answer is known.
    const delayed = requestWait(
      waits,
      () => effective.delay ?? (options.delay ? options.delay.min + Math.random() * (options.delay.max - options.delay.min) : 0),
      request.signal,
    );
    try {
      if (!started) await ready;
      if (startFailure) throw startFailure;
      if (request.bodyError) {
        // The body was refused while it was read, before anything else looked at the request.
        result = await answer(request, url, { operations, sessions, session: '', force: () => undefined });
      } else {
        const prefer = parsePrefer(request.header('prefer'));
        if (!name.ok) result = { reply: errors.MOCK_CONTROL_ERROR(name.message), options: {} };
        else if (!prefer.ok) result = { reply: prefer.error, options: {} };
        else {
          effective = prefer.value;
          const session = name.name;
          // A forced answer or a fault (Prefer: code / example / fault) replaces the operation once the operation is
          // known: no state change. A scenario queued for the operation is consumed here and replaces the request's
          // Prefer. A forced answer is marked as rehearsed (X-Mock-Rehearsal).
          const own = effective;
          const replyFor = (id: string, queued: TakenScenario | string | undefined): Reply | undefined => {
            const chosen = rehearsed(id, own, queued);
            effective = chosen.preferences;
            rehearsal = chosen.mark;
            return chosen.reply;
          };
          const force = (id: string) => {
            const queued = scenarios.take(session, id);
            return queued instanceof Promise ? queued.then((q) => replyFor(id, q)) : replyFor(id, queued);
          };
          result = await answer(request, url, { operations, sessions, session, force, beforeWrite: delayed.beforeWrite });
        }
        const waited = await delayed.settle();
        if (waited !== 'waited') throw new WaitStopped(waited);
      }
      operationId = result.options.operationId;
    } catch (error) {
      // The client went away while its answer was delayed: nothing was written, nothing is journaled, nothing is sent.
      if (error instanceof WaitStopped && error.outcome === 'gone') return { status: 0, headers: [], body: '', fault: 'network-error' };
      if (error instanceof WaitStopped) result = { reply: errors.MOCK_UNAVAILABLE(busyMessage(waits.max)), options: {} };
      else if (error instanceof StoreUnavailable) result = { reply: errors.MOCK_STORE_UNAVAILABLE(error.message), options: {} };
      else
        result = {
          reply: errors.MOCK_RESPONSE_INVALID([`the mock failed: ${error instanceof Error ? error.message : String(error)}`]),
          options: { entry: true },
        };
      operationId = undefined;
    }
    const fault = result.reply.code === FAULT_CODE ? effective.fault : undefined;
    let framed: Framed = fault
      ? { status: 0, headers: [], body: '', fault, ...(fault === 'timeout' ? { holdMs: maxDelay } : {}) }
      : frameReply(result.reply, result.reply.code === 'MOCK_GATEWAY' ? { ...result.options, entry: true } : result.options, allowed.headers.slice());
    mark('serialize');
    // The self-check, once per answer, on what goes on the wire: production's replies only (the mock's own MOCK_
    // errors are not in the spec).
    let violations: string[];
    try {
      const checked = result.reply.code.startsWith('MOCK_') ? [] : checkReply(result.reply, operationId, framed);
      violations = Array.isArray(checked) ? checked : await checked;
    } catch (error) {
      violations = [`the self-check failed: ${error instanceof Error ? error.message : String(error)}`];
    }
    if (violations.length > 0) framed = frameReply(errors.MOCK_RESPONSE_INVALID(violations), result.options, allowed.headers.slice());
    else if (rehearsal !== undefined && !fault) framed.headers.push([REHEARSAL_HEADER, rehearsal]);
    mark('self-check');
    // With the store gone, the answer stands without its journal entry (and without a second wait for the store).
    if (name.ok && result.reply.code !== 'MOCK_STORE_UNAVAILABLE') {
      try {
        await sessions.record(name.name, {
          at: now().toISOString(),
          method: request.method,
          path: url.pathname,
          status: framed.status,
          duration_ms: Math.round(performance.now() - startedAt),
          operation: operationId ?? null,
          ...(fault ? { fault } : {}),
        });
      } catch (error) {
        if (!(error instanceof StoreUnavailable)) throw error;
      }
    }
    mark('journal');
    return framed;
  }

  return {
    seed,
    sessions,
    scenarios,
    bodyLimit,
    ready,
    answer: answerRequest,
    waiting: () => waits.waiting,
    async fetch(request, fetchOptions = {}) {
      const framed = await answerRequest(await fromFetchRequest(request, bodyLimit, fetchOptions));
      // A fault is no answer: a network error (MSW: HttpResponse.error()), for a timeout once the hold passes or the
      // client gives up.
      if (framed.fault) {
        if (framed.holdMs !== undefined) await hold(framed.holdMs, request.signal);
        return Response.error();
      }
      const empty = request.method.toUpperCase() === 'HEAD' || NO_BODY.has(framed.status);
      // Bytes, not a string: a string body would make Response add a text/plain Content-Type that production never sends.
      return new Response(empty ? null : encoder.encode(framed.body), { status: framed.status, headers: framed.headers });
    },
  };
}

/** The first of repeated values, for headers Node's HTTP parser keeps only once (a Fetch `Headers` joins them). */
const FIRST_ONLY = new Set(['authorization', 'content-type']);

/** A WHATWG Request as the core reads it: the body read whole (up to the limit), its target relative to `basePath`. */
async function fromFetchRequest(request: Request, bodyLimit: number, options: FetchOptions = {}): Promise<MockRequest> {
  const url = new URL(request.url);
  const basePath = options.basePath ?? '';
  const path = basePath && url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) || '/' : url.pathname;
  const header = (name: string): string | undefined => {
    const value = request.headers.get(name);
    if (value === null) return name === SESSION_HEADER ? options.session : undefined;
    if (!FIRST_ONLY.has(name)) return value;
    const comma = value.indexOf(', ');
    return comma < 0 ? value : value.slice(0, comma);
  };
  let body: Uint8Array = new Uint8Array(0);
  let bodyError: MockRequest['bodyError'];
  if (request.body !== null) {
    const declared = Number(request.headers.get('content-length') ?? '0');
    const encoding = request.headers.get('content-encoding');
    if (declared > bodyLimit) bodyError = 'too-large';
    else if (encoding !== null && encoding.toLowerCase() !== 'identity') bodyError = 'unreadable';
    else {
      body = new Uint8Array(await request.arrayBuffer());
      if (body.length > bodyLimit) bodyError = 'too-large';
    }
  }
  const out: MockRequest = { method: request.method, target: `${path}${url.search}`, header, body, signal: request.signal };
  if (bodyError) out.bodyError = bodyError;
  return out;
}
