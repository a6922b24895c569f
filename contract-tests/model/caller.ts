// The fields of an answer that depend on who asks (RULES.md#caller-fields), on the written record and on every project
// and goal nested in it: a record's `permissions` are the caller's own on that record, one access level's flags
// (projects/permissions.ex, goals/permissions.ex calculate/1), and that level is the highest of the caller's bindings
// (RULES.md#permissions; §3.5): 100 for the record's champion or reviewer, a contributor's own level, the company's and
// anonymous visitors' levels for everyone, the space's for its members. So a champion without has_full_access, or a
// caller whose permissions are higher than every binding the answer shows them (full access for the space's editor),
// is a fault that shows only for that caller. The bindings an answer cannot show (a company admin's, the space's
// full-access group) make the upper bound hold only for the personas whose bindings all show (personas.ts bindingsShown:
// the editor, not the full-access writer, whose full access may come from such a group).
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { violation, type Violation } from '../../spec/lib/violations.ts';
import { sameRecord } from './id-model.ts';

/** Who asked: their person id (any form), and whether every binding they hold shows in the answer (a persona). */
export type Caller = { person: string; persona?: string; exact: boolean };

type Path = Array<string | number>;

const FLAGS = [
  ['has_full_access', 100],
  ['can_edit', 70],
  ['can_comment', 40],
  ['can_view', 10],
] as const;

/** The level a permissions object grants: its highest flag's. */
function grantedLevel(permissions: JsonObject): number {
  for (const [flag, level] of FLAGS) if (permissions[flag] === true) return level;
  return 0;
}

const idOf = (value: unknown): string | undefined => (isObject(value) && typeof value['id'] === 'string' ? value['id'] : undefined);
const levelOf = (levels: unknown, key: string): number => (isObject(levels) && typeof levels[key] === 'number' ? levels[key] : 0);

/** The caller's bindings the record shows: the least level they surely hold, the most they may hold, and why. */
function bindings(record: JsonObject, person: string): { least: number; most: number | undefined; why: string } {
  const reasons: string[] = [];
  let least = 0;
  for (const role of ['champion', 'reviewer']) {
    const id = idOf(record[role]);
    if (id !== undefined && sameRecord(id, person)) {
      least = 100;
      reasons.push(`the ${role} (100)`);
    }
  }
  const contributors = record['contributors'];
  if (Array.isArray(contributors))
    for (const c of contributors) {
      const id = isObject(c) ? idOf(c['person']) : undefined;
      const level = isObject(c) && typeof c['access_level'] === 'number' ? c['access_level'] : undefined;
      if (id !== undefined && level !== undefined && sameRecord(id, person)) {
        least = Math.max(least, level);
        reasons.push(`a contributor at ${level}`);
      }
    }
  const levels = record['access_levels'];
  const everyone = Math.max(levelOf(levels, 'public'), levelOf(levels, 'company'));
  if (everyone > 0) reasons.push(`the company or anyone at ${everyone}`);
  least = Math.max(least, everyone);
  const space = levelOf(levels, 'space');
  if (space > least) reasons.push(`the space at ${space}, for its members`);
  const most = isObject(levels) ? Math.max(least, space) : undefined;
  return { least, most, why: reasons.length > 0 ? reasons.join(', ') : 'no binding the answer shows' };
}

function permissionRule(record: JsonObject, type: string, at: Path, caller: Caller): Violation[] {
  const permissions = record['permissions'];
  if (!isObject(permissions)) return [];
  const granted = grantedLevel(permissions);
  const { least, most, why } = bindings(record, caller.person);
  const who = caller.persona ? `the ${caller.persona} caller (${caller.person})` : `the caller (${caller.person})`;
  if (granted < least)
    return [
      violation(
        [...at, 'permissions'],
        'caller.permissions',
        `a ${type}'s permissions are the caller's own, the highest of their bindings (RULES.md#caller-fields): ${who} is ${why}, so level ${least}; got the flags of level ${granted} ${JSON.stringify(permissions)}`,
      ),
    ];
  if (caller.exact && most !== undefined && granted > most)
    return [
      violation(
        [...at, 'permissions'],
        'caller.permissions',
        `a ${type}'s permissions are the caller's own, the highest of their bindings (RULES.md#caller-fields): ${who} is ${why}, so at most level ${most}; got the flags of level ${granted} ${JSON.stringify(permissions)}`,
      ),
    ];
  return [];
}

/** Every caller-dependent rule on a 200 answer's body, for `caller` (nothing without one). */
export function callerRules(body: unknown, caller: Caller | undefined): Violation[] {
  if (!caller) return [];
  const out: Violation[] = [];
  const visit = (value: unknown, at: Path, depth: number): void => {
    if (depth > 32) return;
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, [...at, index], depth + 1);
      return;
    }
    if (!isObject(value)) return;
    const type = value['__typename'];
    if (type === 'project' || type === 'goal') out.push(...permissionRule(value, type, at, caller));
    for (const [key, child] of Object.entries(value)) if (typeof child === 'object') visit(child, [...at, key], depth + 1);
  };
  visit(body, ['response', 'body'], 0);
  return out;
}

const uuidOfRow = (row: unknown, key: string): string | undefined => (isObject(row) && typeof row[key] === 'string' ? row[key] : undefined);

/**
 * A record's `notifications` are the caller's own unread ones about it (unread_notifications_loader.ex; §4.3), as the
 * target's state shows them (this package's mock: GET /__mock/state): an id in the answer that is no unread
 * notification of the caller's is someone else's. `callerUuid` is the caller's person UUID.
 */
export function ownNotifications(body: unknown, state: unknown, callerUuid: string, caller: string): Violation[] {
  const rows = isObject(state) && Array.isArray(state['notifications']) ? state['notifications'] : [];
  const own = new Set(rows.filter((r) => uuidOfRow(r, 'person_uuid') === callerUuid && isObject(r) && r['read'] === false).map((r) => uuidOfRow(r, 'id')));
  const out: Violation[] = [];
  if (!isObject(body)) return out;
  for (const [key, record] of Object.entries(body)) {
    const list = isObject(record) ? record['notifications'] : undefined;
    if (!Array.isArray(list)) continue;
    for (const [index, notification] of list.entries()) {
      const id = uuidOfRow(notification, 'id');
      if (id !== undefined && !own.has(id))
        out.push(
          violation(
            ['response', 'body', key, 'notifications', index],
            'caller.notifications',
            `a ${key}'s notifications are the caller's own unread ones (RULES.md#caller-fields): notification ${id} is not an unread notification of ${caller}`,
          ),
        );
    }
  }
  return out;
}
