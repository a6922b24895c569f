// Scripted sequences (POST /__mock/scenarios): per session, "the next N requests of operation X answer as if they
// carried this Prefer", then normally; several queue in order, each consumed by the requests of its own operation.
// `Scenarios` is what the core asks of wherever they are kept: this process's memory (MemoryScenarios, below) or the
// shared store (redisScenarios.ts), where a scenario is consumed exactly once across every replica.
import type { components as Control } from '../../../generated/mock-control.ts';
import { operationModels } from '../../../spec/lib/operations.ts';
import { isObject } from '../../../spec/lib/openapi.ts';
import { MAX_PREFER_LENGTH, MAX_SCENARIO_BODY, MAX_SCENARIO_TIMES, MAX_SCENARIOS } from '../limits.ts';
import { forcedReply, parsePrefer, type TakenScenario } from './prefer.ts';

export type { TakenScenario } from './prefer.ts';

/** A value now, or later: the in-memory store answers at once, a shared one through a promise. */
export type Awaitable<T> = T | Promise<T>;

/** A queued scenario as the controls show it (mock/openapi.yaml's Scenario). */
export type Scenario = Control['schemas']['Scenario'];
export type ScenarioRequest = Control['schemas']['ScenarioRequest'];

/** Thrown by `add` when the session already holds MAX_SCENARIOS pending scenarios: the control's 400. */
export class TooManyScenarios extends Error {
  override name = 'TooManyScenarios';
  constructor() {
    super(`this session already has ${MAX_SCENARIOS} pending scenarios; DELETE /__mock/scenarios or let them run first`);
  }
}

/**
 * Where the scenarios are kept. Every operation may answer with a promise; `take` is atomic: a scenario answers
 * exactly `times` requests, whichever process or how many at once ask.
 */
export interface Scenarios {
  /** Queues a (validated) scenario at the end of the session's queue; throws TooManyScenarios past MAX_SCENARIOS. */
  add(session: string, scenario: Required<ScenarioRequest>): Awaitable<Scenario>;
  /** The session's pending scenarios, in queue order. */
  list(session: string): Awaitable<Scenario[]>;
  /** Drops the session's scenarios, or every session's when `session` is undefined. */
  clear(session?: string): Awaitable<void>;
  /**
   * The first pending scenario of `operation`, which one request consumes: its id and Prefer value (the answer is
   * marked `X-Mock-Rehearsal: scenario <id>`), or the Prefer value alone (marked `scenario`); none: undefined.
   */
  take(session: string, operation: string): Awaitable<TakenScenario | string | undefined>;
}

/** The default: every session's queue in this process's memory, at most `maxSessions` queues (oldest dropped first). */
export class MemoryScenarios implements Scenarios {
  readonly #queues = new Map<string, Scenario[]>();
  readonly #maxSessions: number;
  #seq = 0;

  constructor(maxSessions = 1000) {
    this.#maxSessions = Math.max(1, maxSessions);
  }

  add(session: string, scenario: Required<ScenarioRequest>): Scenario {
    const queue = this.#queues.get(session) ?? [];
    if (queue.length >= MAX_SCENARIOS) throw new TooManyScenarios();
    const added: Scenario = { id: `scenario-${++this.#seq}`, operation: scenario.operation, prefer: scenario.prefer, remaining: scenario.times };
    queue.push(added);
    this.#queues.delete(session);
    this.#queues.set(session, queue);
    for (const oldest of this.#queues.keys()) {
      if (this.#queues.size <= this.#maxSessions) break;
      this.#queues.delete(oldest);
    }
    return { ...added };
  }

  list(session: string): Scenario[] {
    return (this.#queues.get(session) ?? []).map((s) => ({ ...s }));
  }

  clear(session?: string): void {
    if (session === undefined) this.#queues.clear();
    else this.#queues.delete(session);
  }

  take(session: string, operation: string): TakenScenario | undefined {
    const queue = this.#queues.get(session);
    if (!queue) return undefined;
    const index = queue.findIndex((s) => s.operation === operation);
    const scenario = queue[index];
    if (!scenario) return undefined;
    scenario.remaining -= 1;
    if (scenario.remaining <= 0) queue.splice(index, 1);
    if (queue.length === 0) this.#queues.delete(session);
    return { id: scenario.id, prefer: scenario.prefer };
  }
}

const PREFER_KEYS = ['code', 'example', 'delay', 'fault'] as const;

/**
 * A POST /__mock/scenarios body checked field by field: the scenario, or one sentence naming the field that is wrong.
 * The Prefer value must set at least one of code, example, delay, fault, and a code or example must be one the
 * operation documents, or a code one of the mock's gateway statuses (502, 503, 504): the same check a request's own
 * Prefer gets, made now, so a bad scenario queues nothing.
 */
export function parseScenario(body: Uint8Array): Checked {
  if (body.length > MAX_SCENARIO_BODY) return { ok: false, message: `the body must be at most ${MAX_SCENARIO_BODY} bytes of JSON, got ${body.length}` };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return { ok: false, message: 'the body must be a JSON object {"operation", "prefer", "times"}' };
  }
  return checkScenario(value);
}

type Checked = { ok: true; value: Required<ScenarioRequest> } | { ok: false; message: string };

/** A scenario given as a value (the MSW handlers' `scenarios.add`, or a parsed body), checked as parseScenario says. */
export function checkScenario(value: unknown): Checked {
  const fail = (message: string) => ({ ok: false as const, message });
  if (!isObject(value)) return fail('the body must be a JSON object {"operation", "prefer", "times"}');
  const unknown = Object.keys(value).find((key) => key !== 'operation' && key !== 'prefer' && key !== 'times');
  if (unknown !== undefined) return fail(`${unknown.slice(0, 80)} is not a field of a scenario (operation, prefer, times)`);
  const models = operationModels();
  const operation = models.find((o) => o.operationId === value['operation'])?.operationId;
  if (operation === undefined)
    return fail(`operation must be one of ${models.map((o) => o.operationId).join(', ')}, got ${JSON.stringify(value['operation'] ?? null).slice(0, 80)}`);
  const prefer = value['prefer'];
  if (typeof prefer !== 'string' || prefer.length > MAX_PREFER_LENGTH)
    return fail(`prefer must be a Prefer value of at most ${MAX_PREFER_LENGTH} characters, e.g. "code=500" or "fault=timeout"`);
  const parsed = parsePrefer(prefer);
  if (!parsed.ok) return fail(`prefer: ${String(isObject(parsed.error.body) ? parsed.error.body['message'] : parsed.error.body)}`);
  if (!PREFER_KEYS.some((key) => parsed.value[key] !== undefined)) return fail(`prefer must set at least one of ${PREFER_KEYS.join(', ')}, got "${prefer}"`);
  const forced = forcedReply(operation, parsed.value);
  if (forced?.code === 'MOCK_CONTROL_ERROR') return fail(`prefer: ${String(isObject(forced.body) ? forced.body['message'] : forced.body)}`);
  const times = value['times'] ?? 1;
  if (typeof times !== 'number' || !Number.isInteger(times) || times < 1 || times > MAX_SCENARIO_TIMES)
    return fail(`times must be a whole number from 1 to ${MAX_SCENARIO_TIMES}, got ${JSON.stringify(times).slice(0, 80)}`);
  return { ok: true, value: { operation, prefer, times } };
}
