// Sessions: each `X-Mock-Session: NAME` gets its own store, made from the seed on first use, so parallel tests and
// developers never see each other's writes. The number of sessions is bounded; the least recently used one goes
// first. The default session (no header) is never evicted.
import type { Seed } from './state.ts';
import { Store, type StoreOptions } from './store.ts';

export const SESSION_HEADER = 'x-mock-session';
export const DEFAULT_SESSION = 'default';
export const SESSION_NAME = /^[A-Za-z0-9._:-]{1,64}$/;
export const DEFAULT_MAX_SESSIONS = 100;
export const REQUEST_JOURNAL_LIMIT = 500;

/** One request as the request journal shows it: never a header value, a token or a body. */
export type RequestEntry = { seq: number; at: string; method: string; path: string; status: number; duration_ms: number; operation: string | null; session: string };

export type Session = { name: string; store: Store; requests: RequestEntry[]; created_at: string; last_used: number };

export class Sessions {
  readonly #seed: Seed;
  readonly #storeOptions: StoreOptions;
  readonly #max: number;
  readonly #sessions = new Map<string, Session>();
  #requestSeq = 0;

  constructor(seed: Seed, storeOptions: StoreOptions, maxSessions = DEFAULT_MAX_SESSIONS) {
    this.#seed = seed;
    this.#storeOptions = storeOptions;
    this.#max = Math.max(1, maxSessions);
  }

  #create(name: string): Session {
    return { name, store: new Store(structuredClone(this.#seed.state), this.#storeOptions), requests: [], created_at: new Date().toISOString(), last_used: Date.now() };
  }

  /** The session of that name, created from the seed on first use (evicting the least recently used if full). */
  get(name: string = DEFAULT_SESSION): Session {
    let session = this.#sessions.get(name);
    if (session) {
      // Map order is insertion order: re-inserting makes this the most recently used.
      this.#sessions.delete(name);
    } else {
      session = this.#create(name);
      const named = [...this.#sessions.keys()].filter((n) => n !== DEFAULT_SESSION);
      while (named.length >= this.#max) {
        const oldest = named.shift();
        if (oldest !== undefined) this.#sessions.delete(oldest);
      }
    }
    session.last_used = Date.now();
    this.#sessions.set(name, session);
    return session;
  }

  /** Back to the seed: one session, or every session when `name` is undefined. */
  reset(name?: string): void {
    if (name === undefined) this.#sessions.clear();
    else this.#sessions.delete(name);
  }

  list(): Array<{ name: string; created_at: string; requests: number; events: number }> {
    return [...this.#sessions.values()].map((s) => ({ name: s.name, created_at: s.created_at, requests: s.requests.length, events: s.store.events.length }));
  }

  record(session: Session, entry: Omit<RequestEntry, 'seq' | 'session'>): void {
    session.requests.push({ seq: ++this.#requestSeq, session: session.name, ...entry });
    if (session.requests.length > REQUEST_JOURNAL_LIMIT) session.requests.splice(0, session.requests.length - REQUEST_JOURNAL_LIMIT);
  }
}
