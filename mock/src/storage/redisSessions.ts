// The sessions in Redis (`--store redis://host:port/db`), so any number of mock processes pointed at one Redis behave
// as one mock. Node-only (the core never imports it); the CLI loads it only when --store is given, so the in-memory
// default has nothing of it on its path.
//
// Every operation is one Lua script, so it is atomic. A write loads the session's records and its notifications (the
// only history a write reads: the views list a caller's unread notifications; the rest of the history is append-only
// and never read by a write), runs the writes queued for that session in this process against them, and commits the
// new records and rows in a second script that first checks the version it loaded: on a conflict (another process
// wrote in between) it loads again and runs the writes again. One process thus sends one transaction at a time per
// session, carrying every write that queued meanwhile (a group commit).
//
// Faults: commands time out after `timeout` ms (default 2000, `?timeout=MS` in the URL); with the connection down,
// commands fail at once (no offline queue, nothing resent after a reconnect, so a write is never applied twice); the
// client reconnects on its own. Every failure is `StoreUnavailable`, which the core answers with its 503.
//
// The parts, one module each: redisStoreUrl.ts (the --store URL), redisScripts.ts (the keys and the Lua scripts),
// redisReplies.ts (reading Redis's replies back), redisScenarios.ts (the scenario queues).
import { createHash } from 'node:crypto';
import { Redis, ReplyError } from 'ioredis';
import { readBack, readRows, reasonOf, strings, text } from './redisReplies.ts';
import { RedisScenarios } from './redisScenarios.ts';
import { SCRIPTS, SHAS, sessionScript, type ScriptName, type SessionScript } from './redisScripts.ts';
import { DEFAULT_STORE_PREFIX, parseStoreUrl, storePrefixError, type StoreTarget } from './redisStoreUrl.ts';
import {
  DEFAULT_MAX_SESSIONS,
  REQUEST_JOURNAL_LIMIT,
  StoreUnavailable,
  type RequestEntry,
  type RequestRecord,
  type SessionSummary,
  type Sessions,
} from './sessions.ts';
import type { Scenarios } from '../answers/scenarios.ts';
import type { Seed, State } from '../domain/state.ts';
import {
  DEFAULT_SESSION_BYTES,
  EVENT_JOURNAL_LIMIT,
  HISTORY_TABLES,
  Store,
  threadBytes,
  type HistoryTable,
  type StoreOptions,
  type WriteEvent,
} from './store.ts';

/** The writes of one session sent in one transaction, at most. */
const MAX_BATCH = 64;
/** Conflicts one transaction survives before it gives up with a 503. */
const MAX_ATTEMPTS = 50;
/** How often a running mock asks Redis again for its eviction policy (it can be changed with CONFIG SET). */
const POLICY_RECHECK_MS = 5000;

/**
 * One line when Redis may evict the mock's keys: an evicted history list or hash tears a session (threads without
 * their activities, a journal without its writes) while every write was answered 200. Only `noeviction` keeps every
 * key; a full Redis then refuses writes, which the mock answers with its 503.
 */
function evictionProblem(info: string): string | undefined {
  const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  if (policy === undefined || policy === 'noeviction') return undefined;
  return `its maxmemory-policy is ${policy}, which lets Redis evict the mock's keys and tear sessions; set it to noeviction (CONFIG SET maxmemory-policy noeviction, or "maxmemory-policy noeviction" in redis.conf)`;
}

/** A connection failure as the ready probe may show it: an error code (ECONNREFUSED), never a message that may hold an address. */
function codeOnly(reason: string | undefined): string {
  return reason === undefined ? 'connection closed' : /^(E[A-Z]+|no answer within \d+ ms)$/.test(reason) ? reason : 'connection failed';
}

const EMPTY_HISTORY = Object.fromEntries(HISTORY_TABLES.map((t) => [t, []]));

export type RedisSessionsOptions = {
  seed: Seed;
  storeOptions?: StoreOptions;
  maxSessions?: number;
  /** Key prefix (default the package name): mocks with different seeds or purposes on one Redis use different ones. */
  prefix?: string;
};

type Pending = { run(store: Store): void; settle(failure: StoreUnavailable | undefined): void };

/** The connection to Redis lost (with why) or back: told once per change, never per request (the CLI logs it). */
export type ConnectionChange = { up: false; reason: string } | { up: true };

export class RedisSessions implements Sessions {
  readonly #client: Redis;
  readonly #target: StoreTarget;
  readonly #seed: Seed;
  readonly #seedId: string;
  readonly #prefix: string;
  readonly #storeOptions: StoreOptions;
  readonly #workOptions: StoreOptions;
  readonly #max: number;
  readonly #historyLimit: number;
  readonly #queues = new Map<string, Pending[]>();
  /** The sessions' queued scenarios, in the same Redis (redisScenarios.ts): consumed once across every replica. */
  readonly scenarios: Scenarios = new RedisScenarios(this, sessionScript);
  /** Why the connection last failed (ECONNREFUSED …), for the 503's message. */
  #lastError: string | undefined;
  /** When the eviction policy was last asked for, and what was wrong with it then. */
  #policyCheckedAt = 0;
  #policyProblem: string | undefined;
  /** Whether the connection was last seen up, and who is told when that changes (onConnection). */
  #up = true;
  readonly #watchers: Array<(change: ConnectionChange) => void> = [];

  constructor(client: Redis, target: StoreTarget, options: RedisSessionsOptions) {
    this.#client = client;
    this.#target = target;
    this.#seed = options.seed;
    this.#seedId = createHash('sha256').update(JSON.stringify(options.seed.state)).digest('hex').slice(0, 16);
    this.#prefix = options.prefix ?? DEFAULT_STORE_PREFIX;
    this.#storeOptions = options.storeOptions ?? { now: () => new Date() };
    this.#historyLimit = this.#storeOptions.historyLimit ?? EVENT_JOURNAL_LIMIT;
    // A write's store holds only the rows it adds (and the notifications): Redis trims, never the working copy.
    this.#workOptions = { ...this.#storeOptions, historyLimit: Number.POSITIVE_INFINITY };
    this.#max = Math.max(1, options.maxSessions ?? DEFAULT_MAX_SESSIONS);
    client.on('error', (error: unknown) => {
      const reason = reasonOf(error);
      this.#lastError = /Socket timeout/i.test(reason) ? `no answer within ${target.timeoutMs} ms` : reason;
      this.#changed(false);
    });
    client.on('close', () => this.#changed(false));
    client.on('ready', () => {
      this.#lastError = undefined;
      this.#changed(true);
    });
  }

  /** Tells the watchers when the connection goes down or comes back (once each way). */
  #changed(up: boolean): void {
    if (up === this.#up) return;
    this.#up = up;
    const change: ConnectionChange = up ? { up } : { up, reason: this.#lastError ?? 'connection closed' };
    for (const watcher of this.#watchers) watcher(change);
  }

  /** Calls `watcher` each time the connection to Redis is lost or comes back (the CLI logs both). */
  onConnection(watcher: (change: ConnectionChange) => void): void {
    this.#watchers.push(watcher);
  }

  /** Where the state is, as it may be shown (no password). */
  get url(): string {
    return this.#target.shown;
  }

  get prefix(): string {
    return this.#prefix;
  }

  /** Puts the seed in Redis (every process does at start, and again if Redis lost it). */
  async uploadSeed(): Promise<void> {
    const key = `${this.#prefix}:seed:${this.#seedId}`;
    const state = this.#seed.state;
    const multi = this.#client.multi().del(key, ...HISTORY_TABLES.map((t) => `${key}:${t}`));
    const costs = state.comment_threads.map((row) => threadBytes(row.message));
    multi.del(`${key}:comment_threads:bytes`);
    multi.hset(
      key,
      'base',
      JSON.stringify({ ...state, ...EMPTY_HISTORY }),
      'tb',
      costs.reduce((sum, bytes) => sum + bytes, 0),
    );
    for (const table of HISTORY_TABLES) {
      const rows = state[table];
      if (rows.length > 0) multi.rpush(`${key}:${table}`, ...rows.map((row) => JSON.stringify(row)));
    }
    if (costs.length > 0) multi.rpush(`${key}:comment_threads:bytes`, ...costs);
    await this.#guard(multi.exec());
  }

  /** Closes the connection (what is stored stays). */
  async close(): Promise<void> {
    try {
      await this.#client.quit();
    } catch {
      this.#client.disconnect();
    }
  }

  /** Turns a client failure into StoreUnavailable with one line saying what happened. */
  async #guard<T>(promise: Promise<T>): Promise<T> {
    try {
      return await promise;
    } catch (error) {
      throw this.#unavailable(error);
    }
  }

  #unavailable(error: unknown): StoreUnavailable {
    if (error instanceof StoreUnavailable) return error;
    return new StoreUnavailable(
      `The mock's shared store: ${this.#whatFailed(error)}. The request may or may not have been applied; retry it once the store is back.`,
    );
  }

  /**
   * What a client failure says is wrong now, as a clause: `Redis at URL is unreachable (ECONNREFUSED)`, or without the
   * address (`named` false: `The mock's store is unreachable (…)`) for the ready probe, which answers whatever the Host.
   */
  #whatFailed(error: unknown, named = true): string {
    const message = error instanceof Error ? error.message : String(error);
    // Redis's own error replies (out of memory, read-only replica, no auth) are refusals; anything else is the connection.
    const reason =
      error instanceof ReplyError
        ? `refused the command (${(message.split('\n')[0] ?? '').replace(/ script: \w+, on @user_script:\d+\.$/, '').slice(0, 200)})`
        : /timed out/i.test(message)
          ? `did not answer within ${this.#target.timeoutMs} ms`
          : `is unreachable (${named ? (this.#lastError ?? 'connection closed') : codeOnly(this.#lastError)})`;
    return `${named ? `Redis at ${this.#target.shown}` : "The mock's store"} ${reason}`;
  }

  /**
   * Whether the store can serve safely now (GET /__mock/ready): undefined, or one sentence saying what is wrong now,
   * the connection first (a Redis that is down has no policy to report), then the eviction policy, asked afresh. The
   * probe answers whatever the Host, so the sentence names no address (`The mock's store is unreachable (…)`): the
   * log (onConnection) and the API's 503s, which answer the mock's own Hosts only, say which Redis.
   */
  async readiness(): Promise<string | undefined> {
    if (this.#client.status !== 'ready') return `${this.#whatFailed(new Error('not connected'), false)}.`;
    try {
      await this.checkEvictionPolicy();
    } catch (error) {
      return `${this.#whatFailed(error, false)}.`;
    }
    return this.#policyProblem ? `The mock's store (Redis) is unsafe: ${this.#policyProblem}.` : undefined;
  }

  /** What is wrong with Redis's eviction policy (evictionProblem), asked now. */
  async checkEvictionPolicy(): Promise<string | undefined> {
    this.#policyCheckedAt = performance.now();
    this.#policyProblem = evictionProblem(await this.#client.info('memory'));
    return this.#policyProblem;
  }

  /** Runs a SessionScript on session `name` (ARGV 6… are `extra`), as this module runs its own: atomic, 503 on failure. */
  runScript(script: SessionScript, name: string, extra: ReadonlyArray<string | number> = []): Promise<unknown> {
    return this.#run(script, name, extra);
  }

  async #run(script: ScriptName | SessionScript, name: string, extra: ReadonlyArray<string | number> = []): Promise<unknown> {
    const { lua, sha } = typeof script === 'string' ? { lua: SCRIPTS[script], sha: SHAS[script] ?? '' } : script;
    // An evicting Redis could lose any of a session's keys: nothing is read or written until the policy is fixed.
    // The connection first: with Redis gone, its last known policy is not what is wrong now.
    if (this.#client.status !== 'ready') throw this.#unavailable(new Error('not connected'));
    if (performance.now() - this.#policyCheckedAt > POLICY_RECHECK_MS) await this.#guard(this.checkEvictionPolicy());
    if (this.#policyProblem) throw new StoreUnavailable(`The mock's shared store: Redis at ${this.#target.shown} is unsafe: ${this.#policyProblem}.`);
    const args: Array<string | number> = [this.#prefix, name, this.#seedId, this.#storeOptions.now().toISOString(), this.#max, ...extra];
    for (let attempt = 0; ; attempt++) {
      try {
        try {
          return await this.#client.evalsha(sha, 0, ...args);
        } catch (error) {
          if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
          return await this.#client.eval(lua, 0, ...args);
        }
      } catch (error) {
        // Redis lost the seed (restarted empty, flushed): put it back once, then go on.
        if (attempt === 0 && error instanceof Error && /\bNOSEED\b/.test(error.message)) {
          await this.uploadSeed();
          continue;
        }
        throw this.#unavailable(error);
      }
    }
  }

  /** The state and store of a load: records from `base`, history tables from their rows (the others empty). */
  #state(name: string, base: string, tables: Partial<Record<HistoryTable, string[]>>): State {
    const state = readBack<State>(name, 'the records', base);
    for (const table of HISTORY_TABLES) {
      const rows = tables[table];
      if (rows) Object.assign(state, { [table]: readRows(name, `the ${table}`, rows) });
    }
    return state;
  }

  async read<T>(name: string, fn: (store: Store) => T): Promise<T> {
    const reply = await this.#run('read', name);
    if (!Array.isArray(reply) || reply.length !== 4 + HISTORY_TABLES.length) throw new StoreUnavailable('Redis answered an unexpected session');
    const [version, base, seq, events, ...tables] = reply;
    text(version, 'version');
    const rows: Partial<Record<HistoryTable, string[]>> = {};
    for (const [i, table] of HISTORY_TABLES.entries()) rows[table] = strings(tables[i], table);
    const state = this.#state(name, text(base, 'state'), rows);
    return fn(
      new Store(state, this.#storeOptions, {
        events: readRows<WriteEvent>(name, 'the event journal', strings(events, 'event journal')),
        seq: Number(text(seq, 'seq')),
      }),
    );
  }

  write<T>(name: string, fn: (store: Store) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
      const pending: Pending = {
        run(store) {
          try {
            outcome = { ok: true, value: fn(store) };
          } catch (error) {
            outcome = { ok: false, error };
          }
        },
        settle(failure) {
          if (failure) reject(failure);
          else if (outcome?.ok) resolve(outcome.value);
          else reject(outcome ? outcome.error : new Error('the write never ran'));
        },
      };
      const queue = this.#queues.get(name);
      if (queue) queue.push(pending);
      else {
        this.#queues.set(name, [pending]);
        void this.#drain(name);
      }
    });
  }

  /** Sends the session's queued writes, a batch per transaction, until none is left. */
  async #drain(name: string): Promise<void> {
    const queue = this.#queues.get(name);
    while (queue && queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      let failure: StoreUnavailable | undefined;
      try {
        await this.#transact(name, batch);
      } catch (error) {
        failure = this.#unavailable(error);
      }
      queue.splice(0, batch.length);
      for (const pending of batch) pending.settle(failure);
    }
    this.#queues.delete(name);
  }

  async #transact(name: string, batch: ReadonlyArray<Pending>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const reply = await this.#run('load', name);
      if (!Array.isArray(reply) || reply.length !== 4) throw new StoreUnavailable('Redis answered an unexpected session');
      const version = text(reply[0], 'version');
      const seq = Number(text(reply[2], 'seq'));
      const notifications = strings(reply[3], 'notifications');
      const state = this.#state(name, text(reply[1], 'state'), { notifications });
      const store = new Store(state, this.#workOptions, { events: [], seq });
      for (const pending of batch) pending.run(store);
      if (store.seq === seq) return;

      const rows = HISTORY_TABLES.map((table) =>
        (table === 'notifications' ? state.notifications.slice(notifications.length) : state[table]).map((row) => JSON.stringify(row)),
      );
      const events = store.events.slice(seq - store.seq).map((event) => JSON.stringify(event));
      const committed = await this.#run('commit', name, [
        version,
        JSON.stringify({ ...state, ...EMPTY_HISTORY }),
        store.seq,
        this.#historyLimit,
        Math.ceil(this.#historyLimit / 10),
        EVENT_JOURNAL_LIMIT,
        this.#storeOptions.maxBytes ?? DEFAULT_SESSION_BYTES,
        ...rows.map((r) => r.length),
        events.length,
        ...rows.flat(),
        ...events,
        ...store.threadCosts(),
      ]);
      if (committed === 1) return;
      if (attempt >= MAX_ATTEMPTS)
        throw new StoreUnavailable(`The mock's shared store (Redis) had ${MAX_ATTEMPTS} conflicting writes in a row on session ${name}; retry it.`);
      // Another process wrote first: load again, after a moment so the two do not collide again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
    }
  }

  async reset(name?: string): Promise<void> {
    await this.#run('reset', name ?? '', [name === undefined ? 'all' : 'one']);
  }

  async list(): Promise<SessionSummary[]> {
    const reply = await this.#run('list', '');
    if (!Array.isArray(reply)) throw new StoreUnavailable('Redis answered an unexpected session list');
    return reply.map((entry: unknown) => {
      if (!Array.isArray(entry)) throw new StoreUnavailable('Redis answered an unexpected session list');
      const [name, created, requests, events] = entry;
      return { name: text(name, 'session name'), created_at: text(created, 'created_at'), requests: Number(requests), events: Number(events) };
    });
  }

  async record(name: string, entry: RequestRecord): Promise<void> {
    // The entry as MemorySessions keeps it ({seq, session, …entry}); Redis adds the seq.
    await this.#run('record', name, [JSON.stringify({ session: name, ...entry }).slice(1), REQUEST_JOURNAL_LIMIT]);
  }

  async requests(name: string, limit: number): Promise<RequestEntry[]> {
    return readRows<RequestEntry>(name, 'the request journal', strings(await this.#run('requests', name, [limit]), 'request journal'));
  }
}

/**
 * Connects to the Redis a `--store` URL names and puts the seed there: the sessions of a mock shared by every
 * process pointed at the same Redis and prefix. Rejects with one line naming the URL when it is malformed or Redis
 * cannot be reached.
 */
export async function openRedisSessions(url: string, options: RedisSessionsOptions & { name?: string }): Promise<RedisSessions> {
  const parsed = parseStoreUrl(url, options.name);
  if (!parsed.ok) throw new Error(parsed.message);
  const prefixError = storePrefixError(options.prefix ?? DEFAULT_STORE_PREFIX);
  if (prefixError) throw new Error(prefixError);
  const { target } = parsed;
  const client = new Redis(target.options);
  let firstError: string | undefined;
  client.on('error', (error: unknown) => {
    firstError ??= reasonOf(error);
  });
  const sessions = new RedisSessions(client, target, options);
  let problem: string | undefined;
  try {
    await client.connect();
    problem = await sessions.checkEvictionPolicy();
    if (problem === undefined) await sessions.uploadSeed();
  } catch (error) {
    client.disconnect();
    const reason = firstError ?? reasonOf(error);
    throw new Error(`cannot use Redis at ${target.shown}: ${/timed out|Socket timeout/i.test(reason) ? `no answer within ${target.timeoutMs} ms` : reason}`);
  }
  if (problem !== undefined) {
    client.disconnect();
    throw new Error(`cannot use Redis at ${target.shown}: ${problem}`);
  }
  return sessions;
}
