// The real service's state rules, as pure functions (RULES.md#state; Project.state/1, Project.status/1,
// Projects.outdated?/1, Goal.status/1, Goals.outdated?/1, Time.calculate_next_weekly_check_in/2).
import { isObject } from '../../../spec/lib/openapi.ts';
import type { Schemas } from './state.ts';

const DAY_MS = 86_400_000;

/** A timestamp as the service writes second-precision columns: `2025-06-13T15:42:07Z`. */
export function isoSeconds(date: Date): string {
  // join() makes one flat string; a concatenation or replace() would keep a rope alive in every history row.
  return [date.toISOString().slice(0, 19), 'Z'].join('');
}

function utcDay(value: Date | string): number {
  const date = typeof value === 'string' ? new Date(value) : value;
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

/** Days from `a` to `b`, by UTC calendar date (Date.diff(b, a)). */
function dayDiff(later: number, earlier: number): number {
  return Math.round((later - earlier) / DAY_MS);
}

/** Monday–Thursday: the Friday of that week; Friday: a week later; Saturday +6; Sunday +5. */
function nextWeekFriday(day: number): number {
  const weekday = new Date(day).getUTCDay() || 7; // ISO: Monday 1 … Sunday 7
  const add = weekday === 5 ? 7 : weekday < 5 ? 5 - weekday : 12 - weekday;
  return day + add * DAY_MS;
}

/**
 * The next weekly check-in after a resume, at 00:00:00 UTC: from today when the old one is due today or overdue
 * (or missing), from the old one when it is due tomorrow, and the old one kept when it is two or more days ahead.
 */
export function nextWeeklyCheckIn(oldDue: string | null, now: Date): string {
  const today = utcDay(now);
  const due = oldDue ? utcDay(oldDue) : today;
  let result: number;
  if (today >= due) result = nextWeekFriday(today);
  else if (dayDiff(due, today) <= 1) result = nextWeekFriday(due);
  else result = due;
  return isoSeconds(new Date(result));
}

export type ProjectFacts = {
  stored_status: Schemas['ProjectState'];
  closed_at: string | null;
  success_status: Schemas['SuccessStatus'] | null;
  next_check_in_scheduled_at: string | null;
  deleted_at: string | null;
  start_date: string | null;
  last_check_in_status: Schemas['CheckInStatus'] | null;
};

export function projectState(p: ProjectFacts): Schemas['ProjectState'] {
  if (p.closed_at) return 'closed';
  return p.stored_status === 'paused' ? 'paused' : 'active';
}

export function projectOutdated(p: ProjectFacts, now: Date): boolean {
  if (!p.next_check_in_scheduled_at) return true;
  if (p.stored_status === 'closed' || p.stored_status === 'paused' || p.deleted_at) return false;
  if (p.start_date && utcDay(p.start_date) > utcDay(now)) return false;
  return dayDiff(utcDay(now), utcDay(p.next_check_in_scheduled_at)) > 3;
}

export function projectStatus(p: ProjectFacts, now: Date): Schemas['ProjectStatus'] {
  if (p.success_status) return p.success_status;
  if (p.stored_status === 'paused') return 'paused';
  if (projectOutdated(p, now)) return 'outdated';
  return p.last_check_in_status ?? 'pending';
}

export type GoalFacts = {
  closed_at: string | null;
  success: string | null;
  success_status: Schemas['SuccessStatus'] | null;
  next_update_scheduled_at: string | null;
  deleted_at: string | null;
  last_check_in_status: Schemas['CheckInStatus'] | null;
};

export function goalOutdated(g: GoalFacts, now: Date): boolean {
  if (!g.next_update_scheduled_at) return true;
  if (g.closed_at || g.deleted_at) return false;
  return dayDiff(utcDay(now), utcDay(g.next_update_scheduled_at)) > 3;
}

export function goalStatus(g: GoalFacts, now: Date): Schemas['GoalStatus'] {
  if (g.success_status) return g.success_status;
  if (g.success === 'yes') return 'achieved';
  if (g.success === 'no') return 'missed';
  if (goalOutdated(g, now)) return 'outdated';
  return g.last_check_in_status ?? 'pending';
}

/** Access levels (access_binding.ex): view 10, comment 40, edit 70, full 100. */
export const ACCESS = { none: 0, view: 10, comment: 40, edit: 70, full: 100 } as const;

export function permissionsFor(level: number, companyReadOnly: boolean): Required<Omit<Schemas['ProjectPermissions'], '__typename'>> {
  const canView = level >= ACCESS.view;
  // A billing read-only company keeps only can_view (Permissions.ReadOnly.view_only/1).
  if (companyReadOnly) return { can_view: canView, can_comment: false, can_edit: false, has_full_access: false };
  return { can_view: canView, can_comment: level >= ACCESS.comment, can_edit: level >= ACCESS.edit, has_full_access: level >= ACCESS.full };
}

/** public if anonymous > 0, else internal if company > 0, else confidential if space > 0, else secret. */
export function privacyOf(levels: { public: number; company: number; space: number }): Schemas['Privacy'] {
  if (levels.public > 0) return 'public';
  if (levels.company > 0) return 'internal';
  if (levels.space > 0) return 'confidential';
  return 'secret';
}

/** Every mention node's `attrs.id` in a rich-text document, in document order (RichContent.find_mentioned_ids). */
export function mentionedIds(document: unknown): unknown[] {
  const found: unknown[] = [];
  // An explicit stack, not recursion: a hostile document can nest deeper than the call stack.
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
    } else if (isObject(node)) {
      if (node['type'] === 'mention') found.push(isObject(node['attrs']) ? node['attrs']['id'] : undefined);
      stack.push(node['content']);
    }
  }
  return found;
}

/**
 * V8's cost, in bytes, of the parts of a JSON value (as JSON.parse builds them): an estimate from the value's shape,
 * not a heap measurement, but one that no shape can make small while the heap is large. A document of empty objects
 * is counted at what it costs (about 60 bytes each), not at its 3 bytes of JSON text.
 */
const COST = { object: 32, property: 16, array: 32, element: 8, string: 16, number: 16 } as const;
const WIDE = /[^\u0000-\u00ff]/;

function stringCost(text: string): number {
  // One byte a character, or two once any character is outside Latin-1 (V8's two string representations).
  return COST.string + (WIDE.test(text) ? 2 * text.length : text.length);
}

/**
 * How deeply a JSON value nests (a scalar is 0) and what keeping it costs in bytes (COST), in one walk without
 * recursion: a hostile document can nest deeper than the call stack.
 */
export function measureDocument(value: unknown): { depth: number; bytes: number } {
  let deepest = 0;
  let bytes = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() ?? [undefined, 0];
    if (depth > deepest) deepest = depth;
    if (typeof node === 'string') bytes += stringCost(node);
    else if (typeof node === 'number') bytes += COST.number;
    else if (Array.isArray(node)) {
      bytes += COST.array + COST.element * node.length;
      for (const child of node) stack.push([child, depth + 1]);
    } else if (isObject(node)) {
      bytes += COST.object;
      for (const key of Object.keys(node)) {
        bytes += COST.property + stringCost(key);
        stack.push([node[key], depth + 1]);
      }
    }
  }
  return { depth: deepest, bytes };
}
