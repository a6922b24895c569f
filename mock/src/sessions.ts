// Sessions: each `X-Mock-Session: NAME` gets its own store, made from the seed on first use, so parallel tests and
// developers never see each other's writes. `Sessions` is what the core asks of wherever the stores are kept; its
// operations may be asynchronous (a database shared by several mock processes), and the in-memory implementation
// below, the default, answers synchronously. The number of sessions is bounded; the least recently used one goes
// first. The default session (no header) is never evicted.
import type { components as Control, operations as ControlOperations } from '../../generated/mock-control.ts';
import type { Seed } from './state.ts';
import { Store, type StoreOptions } from './store.ts';
import { DEFAULT_MAX_SESSIONS, DEFAULT_TOTAL_BYTES } from './limits.ts';

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

/** A value now, or later: the in-memory store answers at once, a shared one through a promise. */
export type Awaitable<T> = T | Promise<T>;

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
  /** Whether the store can serve safely now (GET /__mock/ready): undefined, or one sentence saying what is wrong. */
  readiness?(): Awaitable<string | undefined>;
}

export type Session = { name: string; store: Store; requests: RequestEntry[]; created_at: string };

/** A request's path as the request journal keeps it: at most JOURNAL_PATH_LENGTH characters. */
function journalPath(path: string): string {
  return path.length <= JOURNAL_PATH_LENGTH ? path : `${path.slice(0, JOURNAL_PATH_LENGTH - 1)}…`;
}

/** The default: every session's store in this process's memory, used in place (no copies per request). */
export class MemorySessions implements Sessions {
  readonly #seed: Seed;
  readonly #storeOptions: StoreOptions;
  readonly #max: number;
  readonly #maxBytes: number;
  readonly #sessions = new Map<string, Session>();
  /** Bytes kept by every session, as of the last write (a running sum; sessions made or dropped since may differ). */
  #bytes = 0;
  #requestSeq = 0;
  /** The most recently used session, already last in the map: using it again moves nothing. */
  #last: string | undefined;

  constructor(seed: Seed, storeOptions: StoreOptions, maxSessions = DEFAULT_MAX_SESSIONS, maxTotalBytes = DEFAULT_TOTAL_BYTES) {
    this.#seed = seed;
    this.#storeOptions = storeOptions;
    this.#max = Math.max(1, maxSessions);
    this.#maxBytes = maxTotalBytes;
  }

  #create(name: string): Session {
    const now = this.#storeOptions.now();
    return { name, store: new Store(structuredClone(this.#seed.state), this.#storeOptions), requests: [], created_at: now.toISOString() };
  }

  /** The session of that name, created from the seed on first use (evicting the least recently used if full). */
  get(name: string = DEFAULT_SESSION): Session {
    let session = this.#sessions.get(name);
    if (session) {
      if (name === this.#last) return session;
      // Map order is insertion order: re-inserting makes this the most recently used.
      this.#sessions.delete(name);
    } else {
      session = this.#create(name);
      this.#bytes += session.store.retainedBytes;
      const named = [...this.#sessions.keys()].filter((n) => n !== DEFAULT_SESSION);
      while (named.length >= this.#max) {
        const oldest = named.shift();
        if (oldest === undefined) break;
        this.#bytes -= this.#sessions.get(oldest)?.store.retainedBytes ?? 0;
        this.#sessions.delete(oldest);
      }
    }
    this.#sessions.set(name, session);
    this.#last = name;
    return session;
  }

  read<T>(name: string, fn: (store: Store) => T): T {
    return fn(this.get(name).store);
  }

  write<T>(name: string, fn: (store: Store) => T): T {
    const store = this.get(name).store;
    const before = store.retainedBytes;
    const result = fn(store);
    // Kept as a running sum (a write changes only its own session), recounted whole only when it passes the budget.
    this.#bytes += store.retainedBytes - before;
    if (this.#bytes > this.#maxBytes) this.#keepWithinBytes(name);
    return result;
  }

  /** What every session keeps, in bytes (Store.retainedBytes), summed. */
  get retainedBytes(): number {
    let total = 0;
    for (const session of this.#sessions.values()) total += session.store.retainedBytes;
    return total;
  }

  /** Past the byte budget, drops the least recently used named sessions (never `keep`, never the default). */
  #keepWithinBytes(keep: string): void {
    let total = this.retainedBytes;
    for (const [name, session] of this.#sessions) {
      if (total <= this.#maxBytes) break;
      if (name === keep || name === DEFAULT_SESSION) continue;
      total -= session.store.retainedBytes;
      this.#sessions.delete(name);
    }
    this.#bytes = total;
  }

  reset(name?: string): void {
    if (name === undefined) this.#sessions.clear();
    else this.#sessions.delete(name);
    this.#last = undefined;
    this.#bytes = this.retainedBytes;
  }

  list(): SessionSummary[] {
    return [...this.#sessions.values()].map((s) => ({
      name: s.name,
      created_at: s.created_at,
      requests: Math.min(s.requests.length, REQUEST_JOURNAL_LIMIT),
      events: s.store.events.length,
    }));
  }

  record(name: string, entry: RequestRecord): void {
    const session = this.get(name);
    session.requests.push({ seq: ++this.#requestSeq, session: session.name, ...entry, path: journalPath(entry.path) });
    // Trimmed in batches of a tenth (moving 500 entries on every request costs more than the request's own entry);
    // what the journal answers is never more than the limit.
    if (session.requests.length > REQUEST_JOURNAL_LIMIT + REQUEST_JOURNAL_LIMIT / 10)
      session.requests.splice(0, session.requests.length - REQUEST_JOURNAL_LIMIT);
  }

  requests(name: string, limit: number): RequestEntry[] {
    return this.get(name).requests.slice(-Math.min(limit, REQUEST_JOURNAL_LIMIT));
  }
}
