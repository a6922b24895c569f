// The Lua scripts of the sessions in Redis (redisSessions.ts), one per operation, so each is atomic.
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
import { createHash } from 'node:crypto';
import { DEFAULT_SESSION } from './sessions.ts';
import { HISTORY_TABLES } from './store.ts';

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

export const SCRIPTS = {
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

export type ScriptName = keyof typeof SCRIPTS;
export const SHAS = Object.fromEntries(Object.entries(SCRIPTS).map(([name, lua]) => [name, createHash('sha1').update(lua).digest('hex')]));

/** A script of another module over the same keys (redisScenarios.ts): its body runs after PRELUDE, with its ARGV. */
export type SessionScript = { readonly lua: string; readonly sha: string };

/** A script body as a SessionScript: PRELUDE first, so it has `key`, `ensure` and the ARGV layout of every script. */
export function sessionScript(body: string): SessionScript {
  const lua = `${PRELUDE}\n${body}`;
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}
