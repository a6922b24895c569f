// The state rules a client can observe in a 200 response (RULES.md#decision-3; RULES.md#state), as
// functions from the exchange to violations, and OPERATION_RULES: per operation, everything the suite knows of it
// that the spec cannot say (its fixture story, what its write changes, who its answer names, its state rules).
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { closeAgain, resumeAgain, type AgainRule } from './write-again.ts';
import type { Exchange } from './exchange.ts';
import type { RecordStory } from './fixtures.ts';
import type { OperationId } from '../../spec/lib/operations.ts';
import { sameRecord } from './id-model.ts';
import { violation, type Violation } from '../../spec/lib/violations.ts';

type Json = Record<string, unknown>;

function entity(exchange: Exchange, key: string): Json | undefined {
  const json = exchange.json;
  if (!isObject(json)) return undefined;
  const value = json[key];
  return isObject(value) ? value : undefined;
}

/** The server's clock: the response's Date header, else this machine's. */
function serverNow(exchange: Exchange): { now: number; from: string } {
  const date = exchange.response.headers['date'];
  const parsed = date ? Date.parse(date) : Number.NaN;
  return Number.isNaN(parsed) ? { now: Date.now(), from: 'this machine’s clock (no Date header)' } : { now: parsed, from: 'the response’s Date header' };
}

const at = (...path: string[]): string[] => ['response', 'body', ...path];

/** How far a server-set "now" may be from the server's clock (its Date header has second precision). */
const NOW_SLACK_MS = 120_000;

/** A timestamp that a write sets to "now": a violation when it is not within NOW_SLACK_MS of the server's clock. */
function isNow(exchange: Exchange, value: unknown, where: string[], code: string, rule: string): Violation[] {
  if (typeof value !== 'string') return [];
  const when = Date.parse(value);
  if (Number.isNaN(when)) return [];
  const { now, from } = serverNow(exchange);
  if (Math.abs(when - now) <= NOW_SLACK_MS) return [];
  return [
    violation(where, code, `${rule}, but it is ${value}, ${Math.round(Math.abs(now - when) / 1000)} s from now (${new Date(now).toISOString()}, by ${from})`),
  ];
}

/** A successful write needs edit access (RULES.md#decision-3), so the caller's permissions in the answer say so. */
function canEdit(entity: Json, key: string): Violation[] {
  const permissions = entity['permissions'];
  if (!isObject(permissions) || permissions['can_edit'] !== false) return [];
  return [
    violation(
      at(key, 'permissions', 'can_edit'),
      'state.permissions',
      `the write succeeded, so the caller can edit this ${key} (access level ≥ 70; RULES.md#decision-3), but permissions.can_edit is false`,
    ),
  ];
}

/** The person a write is recorded against, where the answer names one: it must be the caller (CONTRACT_PERSON_ID). */
function recordedAgainst(value: unknown, where: string[], caller: string | undefined, what: string): Violation[] {
  if (caller === undefined || !isObject(value)) return [];
  const id = value['id'];
  if (typeof id !== 'string' || sameRecord(id, caller)) return [];
  return [
    violation(
      where,
      'state.caller',
      `${what} is the caller, the person of the token that made the write (CONTRACT_PERSON_ID = ${caller}; RULES.md#state-close); got ${id}`,
    ),
  ];
}

export type ResumeStory = 'paused' | 'active' | 'closed' | undefined;

/**
 * After resume: the same project, never paused, active unless it was closed (then still closed, with its outcome), the
 * check-in moved on, updated_at bumped, the caller able to edit. How state, status and is_outdated agree with each
 * other is agreement.ts's, on every answer.
 */
export function resumeRules(exchange: Exchange, sentId: string, story: ResumeStory): Violation[] {
  if (exchange.response.status !== 200) return [];
  const project = entity(exchange, 'project');
  if (!project) return [];
  const out: Violation[] = [];
  const { id, state, closed_at: closedAt, success_status: successStatus } = project;
  if (typeof id === 'string' && !sameRecord(id, sentId))
    out.push(violation(at('project', 'id'), 'state.record', `the response is about project ${id}, not the one that was resumed (${sentId})`));
  const closed = closedAt !== null && closedAt !== undefined;
  if (story === 'closed') {
    if (state !== 'closed')
      out.push(
        violation(
          at('project', 'state'),
          'state.resume-closed',
          `resuming a closed project must leave it closed (RULES.md#decision-3; RULES.md#state-resume); got state ${JSON.stringify(state)}`,
        ),
      );
    if (!closed)
      out.push(
        violation(
          at('project', 'closed_at'),
          'state.resume-closed',
          `resume must not clear closed_at of a closed project (RULES.md#state-resume); got ${JSON.stringify(closedAt)}`,
        ),
      );
    if (successStatus === 'nil')
      out.push(
        violation(
          at('project', 'success_status'),
          'state.resume-closed',
          'resume must keep the outcome of a closed project (RULES.md#state-resume); got "nil"',
        ),
      );
  } else if (story !== undefined) {
    if (state !== 'active')
      out.push(
        violation(
          at('project', 'state'),
          'state.resume',
          `resuming a ${story} project makes it active (RULES.md#decision-3); got state ${JSON.stringify(state)}`,
        ),
      );
  }
  if (state === 'paused') out.push(violation(at('project', 'state'), 'state.resume', 'a resumed project is never paused (RULES.md#decision-3)'));

  const next = project['next_check_in_scheduled_at'];
  if (typeof next === 'string') {
    const { now, from } = serverNow(exchange);
    const today = Math.floor(now / 86_400_000) * 86_400_000;
    const due = Date.parse(next);
    const day = (t: number): string => new Date(t).toISOString().slice(0, 10);
    // The result is the next Friday after today, the next Friday after a due date of tomorrow, or a due date two or
    // more days ahead, kept: always after today, and tomorrow only when tomorrow is that Friday.
    if (!Number.isNaN(due) && due <= today)
      out.push(
        violation(
          at('project', 'next_check_in_scheduled_at'),
          'state.check-in',
          `resume moves the check-in to a day after today, the coming Friday when it is due (RULES.md#state-resume), but it is ${next}, not after today (${day(today)}, by ${from})`,
        ),
      );
    else if (!Number.isNaN(due) && due - today < 2 * 86_400_000 && new Date(due).getUTCDay() !== 5)
      out.push(
        violation(
          at('project', 'next_check_in_scheduled_at'),
          'state.check-in',
          `resume keeps a check-in only when it is due two or more days ahead, and otherwise moves it to a Friday (RULES.md#state-resume); got tomorrow, ${day(due)}, which is not a Friday`,
        ),
      );
    if (!Number.isNaN(due) && due % 86_400_000 !== 0)
      out.push(
        violation(
          at('project', 'next_check_in_scheduled_at'),
          'state.check-in',
          `resume schedules the check-in at 00:00:00 UTC (RULES.md#state-resume); got ${next}`,
        ),
      );
  }
  out.push(...isNow(exchange, project['updated_at'], at('project', 'updated_at'), 'state.updated', 'resume bumps updated_at to now (RULES.md#state-resume)'));
  out.push(...canEdit(project, 'project'));
  return out;
}

/**
 * After close: the same goal, closed now, status = the success_status sent, success true only for "yes", updated_at
 * not before closed_at, the retrospective the one just sent, and the close recorded against the caller.
 */
export function closeRules(exchange: Exchange, sent: Json, caller?: string): Violation[] {
  if (exchange.response.status !== 200) return [];
  const goal = entity(exchange, 'goal');
  if (!goal) return [];
  const out: Violation[] = [];
  const sentId = sent['goal_id'];
  const { id, is_closed: isClosed, closed_at: closedAt, status, success } = goal;
  if (typeof id === 'string' && typeof sentId === 'string' && !sameRecord(id, sentId))
    out.push(violation(at('goal', 'id'), 'state.record', `the response is about goal ${id}, not the one that was closed (${sentId})`));
  if (isClosed !== true)
    out.push(violation(at('goal', 'is_closed'), 'state.close', `a closed goal has is_closed true (RULES.md#decision-3); got ${JSON.stringify(isClosed)}`));
  if (typeof closedAt !== 'string') {
    out.push(violation(at('goal', 'closed_at'), 'state.close', `close sets closed_at to now (RULES.md#decision-3); got ${JSON.stringify(closedAt)}`));
  } else {
    const { now, from } = serverNow(exchange);
    const when = Date.parse(closedAt);
    const slack = 120_000;
    if (!Number.isNaN(when) && (when > now + slack || when < now - slack))
      out.push(
        violation(
          at('goal', 'closed_at'),
          'state.close',
          `close sets closed_at to now (RULES.md#decision-3; closing again overwrites it), but it is ${closedAt}, ${Math.round(Math.abs(now - when) / 1000)} s from now (${new Date(now).toISOString()}, by ${from})`,
        ),
      );
    const updatedAt = goal['updated_at'];
    if (typeof updatedAt === 'string' && Date.parse(updatedAt) < Date.parse(closedAt))
      out.push(
        violation(
          at('goal', 'updated_at'),
          'state.updated',
          `close bumps updated_at in the same write, so it is not before closed_at (RULES.md#close-response): updated_at ${updatedAt}, closed_at ${closedAt}`,
        ),
      );
    // The same write sets both (goal_closing.ex's changeset and timestamps()): the same instant, to the second.
    else if (typeof updatedAt === 'string' && Date.parse(updatedAt) - Date.parse(closedAt) > 1000)
      out.push(
        violation(
          at('goal', 'updated_at'),
          'state.updated',
          `close sets closed_at and bumps updated_at in the same write, so they are the same instant, to the second (RULES.md#timestamps): updated_at ${updatedAt} is ${Math.round((Date.parse(updatedAt) - Date.parse(closedAt)) / 1000)} s after closed_at ${closedAt}`,
        ),
      );
  }
  if (status !== sent['success_status'])
    out.push(
      violation(
        at('goal', 'status'),
        'state.close-status',
        `status follows the success_status sent (${JSON.stringify(sent['success_status'])}) (RULES.md#decision-3); got ${JSON.stringify(status)}`,
      ),
    );
  const expectedSuccess = sent['success'] === 'yes';
  if (success !== expectedSuccess)
    out.push(
      violation(
        at('goal', 'success'),
        'state.close-success',
        `success is true only when the success sent is exactly "yes" (sent ${JSON.stringify(sent['success'])}; RULES.md#decision-4); got ${JSON.stringify(success)}`,
      ),
    );

  // The retrospective is rebuilt from this close's thread: the text sent, written now, by the closer (§3.4).
  const retrospective = goal['retrospective'];
  if (isObject(retrospective)) {
    const sentText = parsedJson(sent['retrospective']);
    const content = parsedJson(retrospective['content']);
    if (sentText !== undefined && content !== undefined && JSON.stringify(content) !== JSON.stringify(sentText)) {
      out.push(
        violation(
          at('goal', 'retrospective', 'content'),
          'state.retrospective',
          `the goal's retrospective is the one just sent (the newest goal_closing thread; RULES.md#state-close); got ${JSON.stringify(retrospective['content']).slice(0, 120)}`,
        ),
      );
    }
    out.push(
      ...isNow(
        exchange,
        retrospective['inserted_at'],
        at('goal', 'retrospective', 'inserted_at'),
        'state.retrospective',
        'the retrospective is the thread this close just wrote (RULES.md#state-close)',
      ),
    );
    out.push(...recordedAgainst(retrospective['author'], at('goal', 'retrospective', 'author', 'id'), caller, "the retrospective's author"));
  }
  out.push(...recordedAgainst(goal['closed_by'], at('goal', 'closed_by', 'id'), caller, 'closed_by'));
  out.push(...canEdit(goal, 'goal'));
  return out;
}

/** A rich-text string's document (key order is not significant), or undefined when it is not JSON. */
function parsedJson(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return sortKeys(JSON.parse(value));
  } catch {
    return undefined;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}

/** A state rule: the exchange, the body sent, the fixture story of the record (undefined when unknown), the caller's person id when known. */
type StateRule = (exchange: Exchange, sent: Json, story: string | undefined, caller?: string) => Violation[];

/**
 * What the suite knows of an operation that the spec cannot say, in one entry per operation keyed by operationId
 * (complete by construction: a missing or misspelt operation does not compile). A new operation adds its entry here
 * and nothing else in the suite: every table-driven check reads it through the views below and profiles.ts.
 * - `target`: the fixture story whose record the operation writes to (its profile, profiles.ts PROFILES).
 * - `write`: what the write changes in the record it answers with: the answer's key and `__typename` of that record,
 *   the verb messages name the write by, and the fields the write may change (RULES.md#left-alone). Every other
 *   field, nested records included, is what the same record's previous answer showed.
 * - `callerFields`: where its 200 answer names the person the write is recorded against (empty: it names none).
 * - `again`: what its write computes from the record's previous answer (write-again.ts; RULES.md#decision-3: neither
 *   operation has a precondition, so the same write twice is two writes).
 * - `stateRules`: its state rules on a 200 answer (RULES.md#state).
 *
 * Resume sets the stored status (so `state` and `status`), recomputes the next check-in (so `is_outdated`) and bumps
 * `updated_at` (RULES.md#state-resume; project_resuming.ex's changeset); its answer names nobody for the resume
 * itself. Close sets `closed_at` (so `is_closed` and `is_outdated`), `closed_by`, `success`, `success_status` (so
 * `status`), bumps `updated_at`, and writes the comment thread the goal's `retrospective` is rebuilt from
 * (RULES.md#state-close; goal_closing.ex's changeset, goals/retrospective.ex); its answer names the closer twice.
 */
export const OPERATION_RULES = {
  resumeProject: {
    target: 'paused',
    write: { record: 'project', verb: 'resume', changes: ['state', 'status', 'next_check_in_scheduled_at', 'is_outdated', 'updated_at'] },
    callerFields: [],
    again: resumeAgain,
    stateRules: (exchange, sent, story) =>
      resumeRules(
        exchange,
        typeof sent['project_id'] === 'string' ? sent['project_id'] : '',
        story === 'paused' || story === 'active' || story === 'closed' ? story : undefined,
      ),
  },
  closeGoal: {
    target: 'open',
    write: {
      record: 'goal',
      verb: 'close',
      changes: ['closed_at', 'is_closed', 'is_outdated', 'closed_by', 'success', 'success_status', 'status', 'updated_at', 'retrospective'],
    },
    callerFields: ['goal.closed_by', 'goal.retrospective.author'],
    again: closeAgain,
    stateRules: (exchange, sent, _story, caller) => closeRules(exchange, sent, caller),
  },
} as const satisfies { [K in OperationId]: OperationRules };

/** One operation's entry of OPERATION_RULES. */
export type OperationRules = {
  target: RecordStory;
  write: { record: string; verb: string; changes: ReadonlyArray<string> };
  callerFields: ReadonlyArray<string>;
  again: AgainRule;
  stateRules: StateRule;
};

function isOperationId(key: string): key is OperationId {
  return Object.hasOwn(OPERATION_RULES, key);
}

const OPERATION_IDS: ReadonlyArray<OperationId> = Object.keys(OPERATION_RULES).filter(isOperationId);

function hasEvery<T>(table: Partial<Record<OperationId, T>>): table is Record<OperationId, T> {
  return OPERATION_IDS.every((operationId) => table[operationId] !== undefined);
}

/** One part of every operation's entry, keyed by operationId (the views the suite's files read). */
function view<T>(part: (rules: OperationRules) => T): Readonly<Record<OperationId, T>> {
  const table: Partial<Record<OperationId, T>> = {};
  for (const operationId of OPERATION_IDS) table[operationId] = part(OPERATION_RULES[operationId]);
  if (!hasEvery(table)) throw new Error('unreachable: OPERATION_IDS holds every operation of OPERATION_RULES');
  return table;
}

/** What each operation's write changes (OPERATION_RULES `write`). */
export const WRITES = view((rules) => rules.write);

/** Where each operation's 200 answer names the person the write is recorded against (OPERATION_RULES `callerFields`). */
export const CALLER_FIELDS = view((rules) => rules.callerFields);

/** The state rules of each operation (OPERATION_RULES `stateRules`). */
export const STATE_RULES = view((rules) => rules.stateRules);

/** What each operation's write computes from the record's previous answer (OPERATION_RULES `again`). */
const AGAIN_RULES = view((rules) => rules.again);

/**
 * The rules of a write's answer against the same record's previous answer (`previous`; nothing without one), sent at
 * `previousAnsweredAt` (its Date header, ms) when known: the operation's own `again` rule.
 */
export function writeAgainRules(
  operationId: OperationId,
  previous: JsonObject | undefined,
  body: unknown,
  headers: Readonly<Record<string, string | undefined>>,
  previousAnsweredAt?: number,
): Violation[] {
  if (!previous || !isObject(body)) return [];
  return AGAIN_RULES[operationId](previous, body, headers, previousAnsweredAt);
}
