// The mock as one function from a request to an answer, with no framework and no Node-only API, so the same core
// runs behind Express (app.ts), in MSW handlers in a test or a browser page (msw.ts), and in a service worker.
// It owns everything between the bytes in and the bytes out: CORS, the control endpoints, sessions, `Prefer`, the
// order of checks (pipeline.ts), the response self-check, delays and the request journal (one request's way through
// them is frame.ts); this file resolves the options once and adapts WHATWG requests and responses.
import type { CorsOptions } from './cors.ts';
import { createWaits } from './delay.ts';
import { frameAnswer, type FrameContext } from './frame.ts';
import { hold } from '../answers/faults.ts';
import { readOperations, type MockRequest } from './pipeline.ts';
import { selfCheck, verdictsLoaded, type Framed, type SelfCheckMode } from '../answers/reply.ts';
import { MemoryScenarios, type Scenarios } from '../answers/scenarios.ts';
import { defaultSeed } from '../domain/seed.ts';
import { DEFAULT_MAX_SESSIONS, DEFAULT_TOTAL_BYTES, MemorySessions, SESSION_HEADER, type Sessions } from '../storage/sessions.ts';
import type { StoreOptions } from '../storage/store.ts';
import { DEFAULT_BODY_LIMIT, DEFAULT_MAX_HOLD_MS } from '../limits.ts';
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
  const mode = options.selfCheck ?? (options.validateResponses === false ? 'off' : 'always');
  const checkReply = selfCheck(mode);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  let startFailure: Error | undefined;
  let started = false;
  // Ready once the self-check's validators have loaded (a chunk of their own in a browser bundle).
  const ready = (mode === 'off' ? Promise.resolve(undefined) : verdictsLoaded()).then((failure) => {
    started = true;
    startFailure = failure;
    return failure;
  });

  const context: FrameContext = {
    seed,
    sessions,
    scenarios,
    now,
    operations: readOperations(),
    checkReply,
    corsOptions: options.cors ?? { enabled: true },
    controlsOn: options.control !== false,
    maxDelay: options.maxDelay ?? DEFAULT_MAX_HOLD_MS,
    delay: options.delay,
    waits: createWaits(options.maxWaiting),
    allowedHosts: options.allowedHosts,
    ready: () => (started ? startFailure : ready),
  };

  /** Every answer carries the mock's own clock in its Date header: the clock its writes use, which a client reads. */
  async function answerRequest(request: MockRequest): Promise<Framed> {
    const framed = await frameAnswer(context, request);
    return { ...framed, headers: [...framed.headers, ['date', now().toUTCString()]] };
  }

  return {
    seed,
    sessions,
    scenarios,
    bodyLimit,
    ready,
    answer: answerRequest,
    waiting: () => context.waits.waiting,
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
