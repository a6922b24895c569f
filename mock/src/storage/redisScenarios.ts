// The queued scenarios (scenarios.ts) of sessions kept in Redis, beside each session's other keys:
//   P:session:{NAME}:scenarios   list: one JSON scenario per element, in queue order (at most MAX_SCENARIOS)
// Every operation is one Lua script, so a scenario queued through one replica is consumed exactly `times` times across
// all of them, however many requests arrive at once: `take` finds the first scenario of the operation, counts it down
// and removes it at zero in one step. A reset or an eviction of the session drops the list with the session
// (redisScripts.ts, `drop`). Scenario ids come from the shared counter (P:counters, field `scenarios`).
import { isObject } from '../../../spec/lib/openapi.ts';
import { MAX_SCENARIOS } from '../limits.ts';
import type { SessionScript } from './redisScripts.ts';
import type { Scenario, ScenarioRequest, Scenarios, TakenScenario } from '../answers/scenarios.ts';
import { TooManyScenarios } from '../answers/scenarios.ts';
import { StoreUnavailable } from './sessions.ts';

// ARGV from 6: add: operation, prefer, times, the most a session holds; take: operation; clear: 'all' or 'one'.
const BODIES = {
  add: `
local s = ensure()
if not s then return redis.error_reply('NOSEED') end
local list = s .. ':scenarios'
if redis.call('LLEN', list) >= tonumber(ARGV[9]) then return false end
local id = 'scenario-' .. redis.call('HINCRBY', counters, 'scenarios', 1)
redis.call('RPUSH', list, cjson.encode({ id = id, operation = ARGV[6], prefer = ARGV[7], remaining = tonumber(ARGV[8]) }))
return id`,
  list: `return redis.call('LRANGE', key(ARGV[2]) .. ':scenarios', 0, -1)`,
  clear: `
if ARGV[6] == 'all' then
  for _, name in ipairs(redis.call('ZRANGE', index, 0, -1)) do redis.call('DEL', key(name) .. ':scenarios') end
else
  redis.call('DEL', key(ARGV[2]) .. ':scenarios')
end
return 1`,
  take: `
local list = key(ARGV[2]) .. ':scenarios'
local n = redis.call('LLEN', list)
for i = 0, n - 1 do
  local raw = redis.call('LINDEX', list, i)
  local scenario = cjson.decode(raw)
  if scenario.operation == ARGV[6] then
    scenario.remaining = scenario.remaining - 1
    if scenario.remaining <= 0 then redis.call('LREM', list, 1, raw) else redis.call('LSET', list, i, cjson.encode(scenario)) end
    return { scenario.id, scenario.prefer }
  end
end
return false`,
} as const;

/** A scenario as Redis keeps it, read back in the shape (and key order) the controls answer. */
function scenarioOf(json: string): Scenario {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  if (!isObject(value))
    throw new StoreUnavailable("The mock's shared store (Redis) holds a queued scenario that is not the mock's JSON; DELETE /__mock/scenarios drops it.");
  const { id, operation, prefer, remaining } = value;
  if (typeof id !== 'string' || typeof operation !== 'string' || typeof prefer !== 'string' || typeof remaining !== 'number')
    throw new StoreUnavailable("The mock's shared store (Redis) holds a queued scenario that is not the mock's JSON; DELETE /__mock/scenarios drops it.");
  return { id, operation, prefer, remaining };
}

/** What the scenarios need of the sessions in Redis (redisSessions.ts): a session's script run with its keys. */
export type ScriptRunner = { runScript(script: SessionScript, session: string, extra?: ReadonlyArray<string | number>): Promise<unknown> };

export class RedisScenarios implements Scenarios {
  readonly #sessions: ScriptRunner;
  readonly #scripts: Record<keyof typeof BODIES, SessionScript>;

  /** `sessionScript` is redisScripts.ts's (passed in, so this module needs nothing of it while it loads). */
  constructor(sessions: ScriptRunner, sessionScript: (body: string) => SessionScript) {
    this.#sessions = sessions;
    this.#scripts = { add: sessionScript(BODIES.add), list: sessionScript(BODIES.list), clear: sessionScript(BODIES.clear), take: sessionScript(BODIES.take) };
  }

  async add(session: string, scenario: Required<ScenarioRequest>): Promise<Scenario> {
    const id = await this.#sessions.runScript(this.#scripts.add, session, [scenario.operation, scenario.prefer, scenario.times, MAX_SCENARIOS]);
    if (id === null) throw new TooManyScenarios();
    if (typeof id !== 'string') throw new StoreUnavailable('Redis answered an unexpected scenario id');
    return { id, operation: scenario.operation, prefer: scenario.prefer, remaining: scenario.times };
  }

  async list(session: string): Promise<Scenario[]> {
    const rows = await this.#sessions.runScript(this.#scripts.list, session);
    if (!Array.isArray(rows)) throw new StoreUnavailable('Redis answered an unexpected scenario list');
    return rows.map((row: unknown) => scenarioOf(typeof row === 'string' ? row : ''));
  }

  async clear(session?: string): Promise<void> {
    await this.#sessions.runScript(this.#scripts.clear, session ?? '', [session === undefined ? 'all' : 'one']);
  }

  async take(session: string, operation: string): Promise<TakenScenario | undefined> {
    const taken = await this.#sessions.runScript(this.#scripts.take, session, [operation]);
    if (!Array.isArray(taken)) return undefined;
    const [id, prefer]: unknown[] = taken;
    if (typeof id !== 'string' || typeof prefer !== 'string') throw new StoreUnavailable('Redis answered an unexpected scenario');
    return { id, prefer };
  }
}
