// The sessions in Redis (`--store redis://host:port/db`), so any number of mock processes pointed at one Redis behave
// as one mock. Node-only (the core never imports it); the CLI loads it only when --store is given, so the in-memory
// default has nothing of it on its path.
//
// Keys, under the prefix P (`--store-prefix`, default the package name); a session's keys share the hash tag {NAME}:
//   P:session:{NAME}                    hash: v (version), base (the state's records, JSON), seq (writes so far),
//                                       created_at
//   P:session:{NAME}:<table>            list per history table (activities, comment_threads, subscription_lists,
//                                       subscriptions, notifications): one JSON row per element, oldest first
//   P:session:{NAME}:events             list: the event journal, one JSON event per element (at most 1000)
//   P:session:{NAME}:requests           list: the request journal (at most 500)
//   P:sessions                          sorted set: session names by last use (the eviction index)
//   P:counters                          hash: version (every change), clock (every use), requests (request seq)
//   P:seed:<sha>, P:seed:<sha>:<table>  the seed sessions are made from, uploaded by every process at start
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
import { createHash } from 'node:crypto';
import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION,
  REQUEST_JOURNAL_LIMIT,
  StoreUnavailable,
  type RequestEntry,
  type RequestRecord,
  type SessionSummary,
  type Sessions,
} from './sessions.ts';
import { RedisScenarios } from './redisScenarios.ts';
import type { Scenarios } from './scenarios.ts';
import type { Seed, State } from './state.ts';
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

const DEFAULT_STORE_PREFIX = 'service-external-api';
const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
const STORE_PREFIX = /^[A-Za-z0-9._:/@-]{1,100}$/;

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

// ── the URL ───────────────────────────────────────────────────────────────────────────────────────────────────────

export type StoreTarget = {
  /** The URL as it may be shown: the password, if any, replaced by ***. */
  shown: string;
  options: RedisOptions;
  timeoutMs: number;
};

/** `redis://[user:password@]host[:port][/db][?timeout=MS]` (or `rediss://` for TLS), or one line saying what is wrong. */
export function parseStoreUrl(text: string, name = '--store'): { ok: true; target: StoreTarget } | { ok: false; message: string } {
  const bad = (why: string): { ok: false; message: string } => ({
    ok: false,
    message: `${name} ${why}; expected redis://host:port/db, e.g. redis://127.0.0.1:6379/0`,
  });
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return bad(`is not a URL: "${text.slice(0, 200)}"`);
  }
  const shownUrl = new URL(url.href);
  if (shownUrl.password) shownUrl.password = '***';
  const shown = shownUrl.href;
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return bad(`must be a redis:// or rediss:// URL, got ${shown}`);
  if (url.hostname === '') return bad(`names no host: ${shown}`);
  if (url.hash) return bad(`must not have a #fragment: ${shown}`);
  const db = /^\/?$/.test(url.pathname) ? 0 : /^\/\d{1,5}$/.test(url.pathname) ? Number(url.pathname.slice(1)) : undefined;
  if (db === undefined) return bad(`has a database that is not a number: ${shown}`);
  let timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS;
  for (const [key, value] of url.searchParams) {
    if (key !== 'timeout') return bad(`has an unknown parameter "${key}" (only timeout=MS): ${shown}`);
    if (!/^\d+$/.test(value) || Number(value) < 50 || Number(value) > 60_000) return bad(`timeout must be 50 to 60000 ms: ${shown}`);
    timeoutMs = Number(value);
  }
  const options: RedisOptions = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? 6379 : Number(url.port),
    db,
    lazyConnect: true,
    // Fail at once while the connection is down, and never resend a command after a reconnect: a write that may have
    // been applied is answered 503, never applied twice.
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    // A server that stops answering (frozen, partitioned) has its connection dropped and reopened.
    socketTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    retryStrategy: (attempt: number) => Math.min(100 * attempt, 1000),
    enableAutoPipelining: true,
  };
  if (url.username) options.username = decodeURIComponent(url.username);
  if (url.password) options.password = decodeURIComponent(url.password);
  if (url.protocol === 'rediss:') options.tls = {};
  return { ok: true, target: { shown, options, timeoutMs } };
}

/** The key prefix, or one line saying what is wrong with it. */
function storePrefixError(prefix: string): string | undefined {
  return STORE_PREFIX.test(prefix) ? undefined : `--store-prefix must be 1 to 100 of A-Z a-z 0-9 . _ : / @ -, got "${prefix.slice(0, 120)}"`;
}

// ── the scripts ───────────────────────────────────────────────────────────────────────────────────────────────────

// ARGV of every script: 1 prefix, 2 session name, 3 seed id, 4 now (ISO), 5 max named sessions; its own from 6.
const PRELUDE = `
local prefix = ARGV[1]
local index = prefix .. ':sessions'
local counters = prefix .. ':counters'
local TABLES = {${HISTORY_TABLES.map((t) => `'${t}'`).join(', ')}}
local function key(name) return prefix .. ':session:{' .. name .. '}' end
local function drop(name)
  local s = key(name)
  redis.call('DEL', s, s .. ':events', s .. ':requests', s .. ':comment_threads:bytes', s .. ':scenarios')
  for _, t in ipairs(TABLES) do redis.call('DEL', s .. ':' .. t) end
  redis.call('ZREM', index, name)
end
-- Afterwards the session exists (made from the seed, the least recently used named sessions dropped past the
-- maximum, as MemorySessions does) and is the most recently used. False when the seed is not in Redis.
local function ensure()
  local name = ARGV[2]
  local s = key(name)
  if redis.call('EXISTS', s) == 0 then
    local from = prefix .. ':seed:' .. ARGV[3]
    local base = redis.call('HGET', from, 'base')
    if not base then return false end
    local named = redis.call('ZCARD', index)
    if redis.call('ZSCORE', index, '${DEFAULT_SESSION}') then named = named - 1 end
    while named >= tonumber(ARGV[5]) do
      local oldest = redis.call('ZRANGE', index, 0, 1)
      local victim = oldest[1]
      if victim == '${DEFAULT_SESSION}' then victim = oldest[2] end
      if not victim then break end
      drop(victim)
      named = named - 1
    end
    drop(name)
    for _, t in ipairs(TABLES) do redis.call('COPY', from .. ':' .. t, s .. ':' .. t) end
    redis.call('COPY', from .. ':comment_threads:bytes', s .. ':comment_threads:bytes')
    local tb = redis.call('HGET', from, 'tb') or '0'
    redis.call('HSET', s, 'v', redis.call('HINCRBY', counters, 'version', 1), 'base', base, 'seq', 0, 'created_at', ARGV[4], 'tb', tb)
  end
  redis.call('ZADD', index, redis.call('HINCRBY', counters, 'clock', 1), name)
  return s
end
`;

const SCRIPTS = {
  /** For a write: version, records, seq, and the notifications. */
  load: `${PRELUDE}
local s = ensure()
if not s then return redis.error_reply('NOSEED') end
local h = redis.call('HMGET', s, 'v', 'base', 'seq')
return { h[1], h[2], h[3], redis.call('LRANGE', s .. ':notifications', 0, -1) }`,
  /** For a read: version, records, seq, the event journal, then every history table. */
  read: `${PRELUDE}
local s = ensure()
if not s then return redis.error_reply('NOSEED') end
local h = redis.call('HMGET', s, 'v', 'base', 'seq')
local out = { h[1], h[2], h[3], redis.call('LRANGE', s .. ':events', 0, -1) }
for _, t in ipairs(TABLES) do out[#out + 1] = redis.call('LRANGE', s .. ':' .. t, 0, -1) end
return out`,
  /**
   * 6 the version loaded, 7 records, 8 seq, 9 history limit, 10 its slack, 11 event journal limit, 12 the session's
   * byte budget for comment threads, 13… the number of new rows per history table, then of new events, then the rows,
   * the events, and each new thread's cost in bytes (Store.threadCosts). 0 when the version moved on.
   */
  commit: `${PRELUDE}
local s = key(ARGV[2])
if redis.call('HGET', s, 'v') ~= ARGV[6] then return 0 end
redis.call('HSET', s, 'v', redis.call('HINCRBY', counters, 'version', 1), 'base', ARGV[7], 'seq', ARGV[8])
local limit, slack, budget = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[12])
local at = 13 + #TABLES + 1
-- Appends ARGV[at … at + n - 1] to a list, a thousand at a time (unpack has a limit); the list's new length.
local function push(list, n)
  local length = 0
  for from = at, at + n - 1, 1000 do length = redis.call('RPUSH', list, unpack(ARGV, from, math.min(from + 999, at + n - 1))) end
  at = at + n
  return length
end
local threads = 0
for i, t in ipairs(TABLES) do
  local n = tonumber(ARGV[12 + i])
  if n > 0 then
    local list = s .. ':' .. t
    local length = push(list, n)
    if t == 'comment_threads' then threads = n
    elseif length > limit + slack then redis.call('LTRIM', list, -limit, -1) end
  end
end
local n = tonumber(ARGV[13 + #TABLES])
if n > 0 then
  push(s .. ':events', n)
  redis.call('LTRIM', s .. ':events', -tonumber(ARGV[11]), -1)
end
-- The threads, with their costs in a list beside them and the sum in 'tb': trimmed past the row limit, then from the
-- oldest while over the byte budget (never the newest), as Store does in memory.
if threads > 0 then
  local list, costs = s .. ':comment_threads', s .. ':comment_threads:bytes'
  local total = tonumber(redis.call('HGET', s, 'tb') or '0')
  for i = at, at + threads - 1 do total = total + tonumber(ARGV[i]) end
  push(costs, threads)
  local length = redis.call('LLEN', list)
  local over = length - limit
  if length <= limit + slack then over = 0 end
  while (over > 0 or total > budget) and length > 1 do
    redis.call('LPOP', list)
    total = total - (tonumber(redis.call('LPOP', costs)) or 0)
    length = length - 1
    over = over - 1
  end
  if total < 0 then total = 0 end
  redis.call('HSET', s, 'tb', total)
end
return 1`,
  /** 6 the entry as JSON without its first brace and seq, 7 the journal limit. */
  record: `${PRELUDE}
local s = ensure()
if not s then return redis.error_reply('NOSEED') end
local seq = redis.call('HINCRBY', counters, 'requests', 1)
redis.call('RPUSH', s .. ':requests', '{"seq":' .. seq .. ',' .. ARGV[6])
redis.call('LTRIM', s .. ':requests', -tonumber(ARGV[7]), -1)
return seq`,
  /** 6 how many of the latest. */
  requests: `${PRELUDE}
local s = ensure()
if not s then return redis.error_reply('NOSEED') end
return redis.call('LRANGE', s .. ':requests', -tonumber(ARGV[6]), -1)`,
  list: `${PRELUDE}
local out = {}
for _, name in ipairs(redis.call('ZRANGE', index, 0, -1)) do
  local s = key(name)
  out[#out + 1] = { name, redis.call('HGET', s, 'created_at') or '', redis.call('LLEN', s .. ':requests'), redis.call('LLEN', s .. ':events') }
end
return out`,
  /** 6 'all' to reset every session. */
  reset: `${PRELUDE}
if ARGV[6] == 'all' then
  for _, name in ipairs(redis.call('ZRANGE', index, 0, -1)) do drop(name) end
else
  drop(ARGV[2])
end
return 1`,
} as const;

type ScriptName = keyof typeof SCRIPTS;
const SHAS = Object.fromEntries(Object.entries(SCRIPTS).map(([name, lua]) => [name, createHash('sha1').update(lua).digest('hex')]));

/** A script of another module over the same keys (redisScenarios.ts): its body runs after PRELUDE, with its ARGV. */
export type SessionScript = { readonly lua: string; readonly sha: string };

/** A script body as a SessionScript: PRELUDE first, so it has `key`, `ensure` and the ARGV layout of every script. */
function sessionScript(body: string): SessionScript {
  const lua = `${PRELUDE}\n${body}`;
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

// ── reading replies back ──────────────────────────────────────────────────────────────────────────────────────────

function strings(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new StoreUnavailable(`Redis answered an unexpected ${what}`);
  return value;
}
function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new StoreUnavailable(`Redis answered an unexpected ${what}`);
  return value;
}
/**
 * JSON this module wrote (records, rows, events, journal entries, in the types named): read back as that type. What
 * is not JSON was written by something else (a hand edit, a partial restore): the store is up but the session cannot
 * be read, so the 503 says that and how to get past it, not that Redis is unreachable.
 */
function readBack<T>(session: string, what: string, json: string): T {
  try {
    return JSON.parse(json);
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 120) : String(error);
    throw new StoreUnavailable(
      `The mock's shared store (Redis) holds ${what} of session "${session}" that is not the mock's JSON (${reason}); Redis itself answered. Reset that session (POST /__mock/reset with X-Mock-Session: ${session}) to start it again from the seed.`,
    );
  }
}
function readRows<T>(session: string, what: string, rows: ReadonlyArray<string>): T[] {
  return rows.length === 0 ? [] : readBack<T[]>(session, what, `[${rows.join(',')}]`);
}

/** A connection error's code (ECONNREFUSED …), or its first line. */
function reasonOf(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

const EMPTY_HISTORY = Object.fromEntries(HISTORY_TABLES.map((t) => [t, []]));

// ── the sessions ──────────────────────────────────────────────────────────────────────────────────────────────────

export type RedisSessionsOptions = {
  seed: Seed;
  storeOptions?: StoreOptions;
  maxSessions?: number;
  /** Key prefix (default the package name): mocks with different seeds or purposes on one Redis use different ones. */
  prefix?: string;
};

type Pending = { run(store: Store): void; settle(failure: StoreUnavailable | undefined): void };

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
    });
    client.on('ready', () => {
      this.#lastError = undefined;
    });
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

  /** What a client failure says is wrong now, as a clause: `Redis at URL is unreachable (ECONNREFUSED)`. */
  #whatFailed(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    // Redis's own error replies (out of memory, read-only replica, no auth) are refusals; anything else is the connection.
    const reason =
      error instanceof ReplyError
        ? `refused the command (${(message.split('\n')[0] ?? '').replace(/ script: \w+, on @user_script:\d+\.$/, '').slice(0, 200)})`
        : /timed out/i.test(message)
          ? `did not answer within ${this.#target.timeoutMs} ms`
          : `is unreachable (${this.#lastError ?? 'connection closed'})`;
    return `Redis at ${this.#target.shown} ${reason}`;
  }

  /**
   * Whether the store can serve safely now (GET /__mock/ready): undefined, or one sentence saying what is wrong now,
   * the connection first (a Redis that is down has no policy to report), then the eviction policy, asked afresh.
   */
  async readiness(): Promise<string | undefined> {
    if (this.#client.status !== 'ready') return `${this.#whatFailed(new Error('not connected'))}.`;
    try {
      await this.checkEvictionPolicy();
    } catch (error) {
      return `${this.#whatFailed(error)}.`;
    }
    return this.#policyProblem ? `Redis at ${this.#target.shown} is unsafe: ${this.#policyProblem}.` : undefined;
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
