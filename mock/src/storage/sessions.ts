// Sessions: each `X-Mock-Session: NAME` gets its own store, made from the seed on first use, so parallel tests and
// developers never see each other's writes. `Sessions` is what the core asks of wherever the stores are kept; its
// operations may be asynchronous (a database shared by several mock processes), and the in-memory implementation
// below, the default, answers synchronously. The number of sessions is bounded; the least recently used one goes
// first. The default session (no header) is never evicted.
import type { components as Control, operations as ControlOperations } from '../../../generated/mock-control.ts';
import { TooManyScenarios, type Awaitable, type Scenario, type ScenarioRequest, type Scenarios, type TakenScenario } from '../answers/scenarios.ts';
import type { Seed } from '../domain/state.ts';
import { Store, type StoreOptions } from './store.ts';
import { DEFAULT_MAX_SESSIONS, DEFAULT_TOTAL_BYTES, MAX_SCENARIOS } from '../limits.ts';
import { measureDocument } from '../domain/rules.ts';

export { DEFAULT_MAX_SESSIONS, DEFAULT_TOTAL_BYTES };

export const SESSION_HEADER = 'x-mock-session';
export const DEFAULT_SESSION = 'default';
export const SESSION_NAME = /^[A-Za-z0-9._:-]{1,64}$/;
export const REQUEST_JOURNAL_LIMIT = 500;
/** The longest path the request journal keeps of a request (the rest is cut, with `…`). */
export const JOURNAL_PATH_LENGTH = 1024;

/**
 * Thrown (or rejected with) by a `Sessions` kept outside this process when its store cannot be reached or does not
 * answer in time. The core answers it with the mock's own 503 (errors.ts, MOCK_STORE_UNAVAILABLE): the request's
 * outcome is unknown to the caller, never a wrong 200.
 */
export class StoreUnavailable extends Error {
  override name = 'StoreUnavailable';
}

export type { Awaitable };

/** One request as the request journal shows it (mock/openapi.yaml's RequestEntry): never a header value, a token or a body. */
export type RequestEntry = Control['schemas']['RequestEntry'];
export type RequestRecord = Omit<RequestEntry, 'seq' | 'session'>;

/** One session as GET /__mock/sessions lists it. */
export type SessionSummary = ControlOperations['listSessions']['responses'][200]['content']['application/json']['sessions'][number];

/**
 * Where the sessions' stores are kept. Every operation may answer with a promise. The rules an implementation keeps:
 * - `read` and `write` create the session from the seed on first use (and may evict the least recently used one);
 * - `write` is atomic: concurrent writes to one session, from any number of processes, leave the state and journal
 *   of some serial order. A database-backed implementation loads the session, runs `fn`, and saves the result in one
 *   transaction, running `fn` again on a conflict, so `fn` must depend on nothing but its argument (it does: it is
 *   the order of checks 6–9 and the store's write). A write that changed nothing leaves `store.seq` as it was, so
 *   the save can be skipped;
 * - `read` never changes anything; `fn` must not keep the store beyond the call;
 * - `reset` and `record` are atomic too;
 * - when the store cannot be reached, every operation throws (or rejects with) `StoreUnavailable`.
 */
export interface Sessions {
  read<T>(name: string, fn: (store: Store) => T): Awaitable<T>;
  write<T>(name: string, fn: (store: Store) => T): Awaitable<T>;
  /** Back to the seed: one session, or every session when `name` is undefined. */
  reset(name?: string): Awaitable<void>;
  list(): Awaitable<SessionSummary[]>;
  /** Appends to the session's request journal (at most REQUEST_JOURNAL_LIMIT entries, oldest dropped first). */
  record(name: string, entry: RequestRecord): Awaitable<void>;
  /** The last `limit` entries of the session's request journal, oldest first. */
  requests(name: string, limit: number): Awaitable<RequestEntry[]>;
  /** Where the sessions' queued scenarios are kept, when not in the core's memory (a shared store: redisScenarios.ts). */
  readonly scenarios?: Scenarios;
  /** Whether the store can serve safely now (GET /__mock/ready): undefined, or one sentence saying what is wrong. */
  readiness?(): Awaitable<string | undefined>;
}

export type Session = { name: string; store: Store; requests: RequestEntry[]; created_at: string };

/** A request's path as the request journal keeps it: at most JOURNAL_PATH_LENGTH characters. */
function journalPath(path: string): string {
  return path.length <= JOURNAL_PATH_LENGTH ? path : `${path.slice(0, JOURNAL_PATH_LENGTH - 1)}…`;
}

/**
 * What a session costs besides its journal and its store, in bytes: the session's record, its name and creation time,
 * its place in the map (measured: 20,000 sessions that only read, about 1 KB each with one journal entry).
 */
export const SESSION_BYTES = 512;

/**
 * One session as MemorySessions keeps it. `own` is its own copy of the state, made at its first write that changed
 * something (copy on write): until then it reads the seed's one shared store. `bytes` is what it was last counted at.
 */
type Kept = {
  name: string;
  own: Store | undefined;
  requests: RequestEntry[];
  /** Its queued scenarios (POST /__mock/scenarios): kept, evicted and reset with the session itself. */
  scenarios: Scenario[];
  created_at: string;
  journalBytes: number;
  bytes: number;
};

/** What one queued scenario is counted at, in bytes (its record and its Prefer value of at most 200 characters). */
const SCENARIO_BYTES = 512;

/** A journal entry's cost, as `measureDocument` counts a JSON value (mock/docs/state.md, "Memory"). */
const entryBytes = (entry: RequestEntry): number => measureDocument(entry).bytes;

/**
 * The default: every session in this process's memory, used in place (no copies per request). A session that only
 * reads shares the seed's state (one store for all of them); its first write that changes something gives it its own
 * copy. The byte budget counts all a session holds: SESSION_BYTES, its request journal, and once it has written, its
 * copy of the seed and its history (Store.retainedBytes).
 */
export class MemorySessions implements Sessions {
  readonly #seed: Seed;
  readonly #storeOptions: StoreOptions;
  readonly #max: number;
  readonly #maxBytes: number;
  readonly #sessions = new Map<string, Kept>();
  #scenarioSeq = 0;
  /** What every session is counted at (the sum of their `bytes`). */
  #bytes = 0;
  #requestSeq = 0;
  /** The most recently used session, already last in the map: using it again moves nothing. */
  #last: string | undefined;
  /** The store every session that has not written reads: the seed's state, never written to. */
  #sharedStore: Store | undefined;
  /** A copy of the seed's state that a failed write left unchanged, for the next write (of `#spareOf`'s seed state). */
  #spare: Store | undefined;
  #spareOf: Seed['state'] | undefined;
  /** What a copy of the seed's state costs (measureDocument), counted once a session has its own. */
  #seedBytes: number | undefined;

  constructor(seed: Seed, storeOptions: StoreOptions, maxSessions = DEFAULT_MAX_SESSIONS, maxTotalBytes = DEFAULT_TOTAL_BYTES) {
    this.#seed = seed;
    this.#storeOptions = storeOptions;
    this.#max = Math.max(1, maxSessions);
    this.#maxBytes = maxTotalBytes;
  }

  /** The seed's state as a store, shared by every session that has not written (rebuilt if the seed's state was replaced). */
  #shared(): Store {
    if (this.#sharedStore?.state !== this.#seed.state) this.#sharedStore = new Store(this.#seed.state, this.#storeOptions);
    return this.#sharedStore;
  }

  /** A session's own copy of the seed's state. */
  #copy(): Store {
    return new Store(structuredClone(this.#seed.state), this.#storeOptions);
  }

  #cost(kept: Kept): number {
    const own = SESSION_BYTES + kept.journalBytes + kept.scenarios.length * SCENARIO_BYTES;
    if (!kept.own) return own;
    this.#seedBytes ??= measureDocument(this.#seed.state).bytes;
    return own + this.#seedBytes + kept.own.retainedBytes;
  }

  /** Counts a session again after it changed, and keeps within the byte budget (never dropping that session). */
  #recount(kept: Kept): void {
    const bytes = this.#cost(kept);
    this.#bytes += bytes - kept.bytes;
    kept.bytes = bytes;
    if (this.#bytes > this.#maxBytes) this.#keepWithinBytes(kept.name);
  }

  /** The session of that name, created on first use (evicting the least recently used if full), without a copy. */
  #use(name: string): Kept {
    let kept = this.#sessions.get(name);
    if (kept) {
      if (name === this.#last) return kept;
      // Map order is insertion order: re-inserting makes this the most recently used.
      this.#sessions.delete(name);
      this.#sessions.set(name, kept);
      this.#last = name;
      return kept;
    }
    const named = this.#sessions.size - (this.#sessions.has(DEFAULT_SESSION) ? 1 : 0);
    if (name !== DEFAULT_SESSION && named >= this.#max) {
      let over = named - this.#max + 1;
      for (const [oldest, dropped] of this.#sessions) {
        if (over === 0) break;
        if (oldest === DEFAULT_SESSION) continue;
        this.#bytes -= dropped.bytes;
        this.#sessions.delete(oldest);
        over--;
      }
    }
    kept = { name, own: undefined, requests: [], scenarios: [], created_at: this.#storeOptions.now().toISOString(), journalBytes: 0, bytes: 0 };
    this.#sessions.set(name, kept);
    this.#last = name;
    this.#recount(kept);
    return kept;
  }

  /** The session of that name with its own store, to read and change in place (tests, the CLI): copied on first use. */
  get(name: string = DEFAULT_SESSION): Session {
    const kept = this.#use(name);
    if (!kept.own) {
      kept.own = this.#copy();
      this.#recount(kept);
    }
    return { name: kept.name, store: kept.own, requests: kept.requests, created_at: kept.created_at };
  }

  read<T>(name: string, fn: (store: Store) => T): T {
    return fn(this.#use(name).own ?? this.#shared());
  }

  write<T>(name: string, fn: (store: Store) => T): T {
    const kept = this.#use(name);
    if (kept.own) {
      const before = kept.own.seq;
      const result = fn(kept.own);
      // Recounted only when the write changed something (a write that failed leaves `seq` and the store as they were).
      if (kept.own.seq !== before) this.#recount(kept);
      return result;
    }
    // Copy on write: the copy is kept only when the write changed something. A write that failed (a 401, 403, 404…)
    // leaves it as the seed was, so it waits for the next one (no copy per refused request).
    const copy = this.#spare && this.#spareOf === this.#seed.state ? this.#spare : this.#copy();
    this.#spare = undefined;
    const result = fn(copy);
    if (copy.seq !== 0) {
      kept.own = copy;
      this.#recount(kept);
    } else {
      this.#spare = copy;
      this.#spareOf = this.#seed.state;
    }
    return result;
  }

  /** What every session keeps, in bytes (SESSION_BYTES, its journal, its copy of the seed and its history), summed. */
  get retainedBytes(): number {
    let total = 0;
    for (const kept of this.#sessions.values()) total += this.#cost(kept);
    return total;
  }

  /** Past the byte budget, drops the least recently used named sessions (never `keep`, never the default). */
  #keepWithinBytes(keep: string): void {
    for (const [name, kept] of this.#sessions) {
      if (this.#bytes <= this.#maxBytes) break;
      if (name === keep || name === DEFAULT_SESSION) continue;
      this.#bytes -= kept.bytes;
      this.#sessions.delete(name);
    }
  }

  reset(name?: string): void {
    this.#last = undefined;
    if (name === undefined) {
      this.#sessions.clear();
      this.#bytes = 0;
      return;
    }
    this.#bytes -= this.#sessions.get(name)?.bytes ?? 0;
    this.#sessions.delete(name);
  }

  list(): SessionSummary[] {
    return [...this.#sessions.values()].map((s) => ({
      name: s.name,
      created_at: s.created_at,
      requests: Math.min(s.requests.length, REQUEST_JOURNAL_LIMIT),
      events: s.own?.events.length ?? 0,
    }));
  }

  record(name: string, entry: RequestRecord): void {
    const kept = this.#use(name);
    const full: RequestEntry = { seq: ++this.#requestSeq, session: kept.name, ...entry, path: journalPath(entry.path) };
    kept.requests.push(full);
    kept.journalBytes += entryBytes(full);
    // Trimmed in batches of a tenth (moving 500 entries on every request costs more than the request's own entry);
    // what the journal answers is never more than the limit.
    if (kept.requests.length > REQUEST_JOURNAL_LIMIT + REQUEST_JOURNAL_LIMIT / 10)
      for (const dropped of kept.requests.splice(0, kept.requests.length - REQUEST_JOURNAL_LIMIT)) kept.journalBytes -= entryBytes(dropped);
    this.#recount(kept);
  }

  requests(name: string, limit: number): RequestEntry[] {
    return this.#use(name).requests.slice(-Math.min(limit, REQUEST_JOURNAL_LIMIT));
  }

  /**
   * The sessions' queued scenarios, kept in each session: a scenario lives and dies with its
   * session. Queuing one uses the session (created if new, the most recently used, its bytes counted), taking one
   * uses it again; the session's eviction (by count or by bytes) and its reset drop its queue, and a session made
   * again under the same name starts with none.
   */
  readonly scenarios: Scenarios = {
    add: (session: string, scenario: Required<ScenarioRequest>): Scenario => {
      const kept = this.#use(session);
      if (kept.scenarios.length >= MAX_SCENARIOS) throw new TooManyScenarios();
      const added: Scenario = { id: `scenario-${++this.#scenarioSeq}`, operation: scenario.operation, prefer: scenario.prefer, remaining: scenario.times };
      kept.scenarios.push(added);
      this.#recount(kept);
      return { ...added };
    },
    list: (session: string): Scenario[] => (this.#sessions.get(session)?.scenarios ?? []).map((s) => ({ ...s })),
    clear: (session?: string): void => {
      for (const kept of session === undefined ? this.#sessions.values() : [this.#sessions.get(session)]) {
        if (!kept || kept.scenarios.length === 0) continue;
        kept.scenarios = [];
        this.#recount(kept);
      }
    },
    take: (session: string, operation: string): TakenScenario | undefined => {
      const queue = this.#sessions.get(session)?.scenarios;
      const index = queue?.findIndex((s) => s.operation === operation) ?? -1;
      const scenario = queue?.[index];
      if (!queue || !scenario) return undefined;
      const kept = this.#use(session);
      scenario.remaining -= 1;
      if (scenario.remaining <= 0) {
        queue.splice(index, 1);
        this.#recount(kept);
      }
      return { id: scenario.id, prefer: scenario.prefer };
    },
  };
}
