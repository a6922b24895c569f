// What a write computes from the record as it was before it (the same record's previous answer: memory.ts), on every
// 200 answer (each operation's rule is its OPERATION_RULES `again` entry, state-rules.ts): neither operation has a state precondition, so the same write twice is two writes (RULES.md#decision-3).
// Resume moves the next check-in by the coming-Friday rule from the old due date and the server's day
// (RULES.md#state-resume). Closing a closed goal again overwrites closed_at and records another close: the answer's
// retrospective is a new one, not acknowledged (RULES.md#state-close).
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { serverDay } from './agreement.ts';
import { violation, type Violation } from '../../spec/lib/violations.ts';

const DAY_MS = 86_400_000;
const FRIDAY = 5;
type Headers = Readonly<Record<string, string | undefined>>;

/**
 * A write's rules against the same record's previous answer (`previous`): the answer's body, its headers (the server's
 * day), and when the previous answer was sent (its Date header, ms) when known. Each operation names its own in
 * state-rules.ts OPERATION_RULES `again`.
 */
export type AgainRule = (previous: JsonObject, body: JsonObject, headers: Headers, previousAnsweredAt?: number) => Violation[];

const dayOf = (time: number): number => Math.floor(time / DAY_MS) * DAY_MS;
const iso = (time: number): string => new Date(time).toISOString().replace('.000Z', 'Z');

/** The Friday after `day` (Monday–Thursday: that week's; Friday: a week later; Saturday +6; Sunday +5: time.ex next_week_friday/1). */
function nextFriday(day: number): number {
  const weekday = new Date(day).getUTCDay();
  const ahead = (FRIDAY - weekday + 7) % 7 || 7;
  return day + ahead * DAY_MS;
}

/**
 * Production's next check-in after a resume (time.ex calculate_next_weekly_check_in/2): from the old due date (today
 * when there was none) and today, at 00:00:00 UTC.
 */
export function nextCheckIn(oldDue: string | null, today: number): number | undefined {
  const parsed = oldDue === null ? today : Date.parse(oldDue);
  if (Number.isNaN(parsed)) return undefined;
  const due = dayOf(parsed);
  if (today >= due) return nextFriday(today);
  if (due === today + DAY_MS) return nextFriday(due);
  return due;
}

/** Resume again: the next check-in from the previous due date and the server's day (RULES.md#state-resume). */
export const resumeAgain: AgainRule = (previous, body, headers) => {
  const project = body['project'];
  if (!isObject(project)) return [];
  const before = previous['next_check_in_scheduled_at'];
  const after = project['next_check_in_scheduled_at'];
  if ((before !== null && typeof before !== 'string') || typeof after !== 'string') return [];
  const today = serverDay(headers);
  const expected = nextCheckIn(before, today);
  if (expected === undefined || Date.parse(after) === expected) return [];
  return [
    violation(
      ['response', 'body', 'project', 'next_check_in_scheduled_at'],
      'write.check-in',
      `resume moves a check-in due ${before === null ? 'never' : String(before)} to ${iso(expected)} on ${iso(today).slice(0, 10)} (the server's Date): the coming Friday when it is due by tomorrow, else kept (RULES.md#state-resume); got ${after}`,
    ),
  ];
};

/** Close again: a new closed_at and a new, unacknowledged retrospective (RULES.md#state-close). */
export const closeAgain: AgainRule = (previous, body, _headers, previousAnsweredAt) => {
  const goal = body['goal'];
  if (!isObject(goal)) return [];
  const before = previous['closed_at'];
  if (typeof before !== 'string') return [];
  const out: Violation[] = [];
  const closedAt = goal['closed_at'];
  // This close ran after the previous answer was sent (its Date, whole seconds): when that Date is already a later
  // second than the first close's time, this close's time is later still. This answer's own Date proves nothing: the
  // server may write in one second and answer in the next (or after a delay), and a same-second close may keep the time.
  if (typeof closedAt === 'string' && previousAnsweredAt !== undefined && previousAnsweredAt > Date.parse(before) && closedAt === before)
    out.push(
      violation(
        ['response', 'body', 'goal', 'closed_at'],
        'write.close-again',
        `closing a closed goal again overwrites closed_at with the new time (RULES.md#state-close), but it is still the first close's ${before}, although the answer before this close was sent at ${iso(previousAnsweredAt)} (the server's Date)`,
      ),
    );
  const oldRetrospective = previous['retrospective'];
  const retrospective = goal['retrospective'];
  if (isObject(oldRetrospective) && isObject(retrospective)) {
    if (retrospective['id'] === oldRetrospective['id'])
      out.push(
        violation(
          ['response', 'body', 'goal', 'retrospective', 'id'],
          'write.close-again',
          `closing again records another close, and the goal's retrospective is the newest one (goals/retrospective.ex; RULES.md#state-close), but its id is the earlier one's, ${JSON.stringify(retrospective['id'])}`,
        ),
      );
    for (const field of ['acknowledged_at', 'acknowledged_by'])
      if (Object.hasOwn(retrospective, field) && retrospective[field] !== null)
        out.push(
          violation(
            ['response', 'body', 'goal', 'retrospective', field],
            'write.close-again',
            `a retrospective just written is not acknowledged yet (RULES.md#state-close): ${field} is null; got ${JSON.stringify(retrospective[field])}`,
          ),
        );
  }
  return out;
};
