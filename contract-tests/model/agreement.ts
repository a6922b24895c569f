// Fields that must agree with each other in every answer, wherever a record appears in it (the written record and
// every nested one): an id is the slug of the record's current label (or the date it was made) before its short id,
// a reference (`space_id`, `goal_id`, `last_check_in_id`, `parent_goal_id`) names the nested record it stands for,
// and a project's or goal's `state`, `is_closed`, `closed_at`, `success_status`, `is_outdated` and `status` are what
// Project.state/1, Project.status/1, Goal.status/1 and their `outdated?` compute from each other
// (RULES.md#agreement); and every timestamp, at any depth, has production's form (RULES.md#timestamps). The suite's own reading of production's rules, written apart from the mock's on purpose.
import { isObject, loadDocument, pointerTo, resolvePointer, type JsonObject } from '../../spec/lib/openapi.ts';
import { sameRecord, shortIdIn, slugOf } from './id-model.ts';
import { violation, type Violation } from '../../spec/lib/violations.ts';

/** Records whose id is `<slug of this field>-<short id>` (paths.ex). */
const LABELLED: Readonly<Record<string, string>> = {
  project: 'name',
  goal: 'name',
  person: 'full_name',
  space: 'name',
  milestone: 'title',
  resource_hub: 'name',
};
/** Records whose id is `<YYYY-MM-DD of inserted_at>-<short id>` (paths.ex). */
const DATED: ReadonlySet<string> = new Set(['project_check_in', 'project_retrospective', 'goal_progress_update']);
/** Reference fields and the nested record each names: its short id (bare) or its whole id (`full`). */
const REFERENCES: Readonly<Record<string, ReadonlyArray<{ field: string; record: string; form: 'short' | 'full' }>>> = {
  project: [
    { field: 'space_id', record: 'space', form: 'short' },
    { field: 'goal_id', record: 'goal', form: 'short' },
  ],
  goal: [
    { field: 'last_check_in_id', record: 'last_check_in', form: 'short' },
    { field: 'parent_goal_id', record: 'parent_goal', form: 'full' },
  ],
};

const DAY_MS = 86_400_000;
/** A string that is a timestamp (a date and a time), in any form. */
const TIMESTAMP = /^\d{4}-\d\d-\d\dT/;
/** Production's form (the Any serializer): UTC with `Z`, whole seconds; microseconds only from a `_usec` column. */
const WHOLE_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const MICROSECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
/** Fields read from a `:utc_datetime_usec` column (soft_delete's deleted_at): written with six decimals. */
const USEC_FIELDS: ReadonlySet<string> = new Set(['archived_at']);
/** The outcomes a closed record has: the spec's SuccessStatus enum. */
const OUTCOMES = resolvePointer(loadDocument(), `${pointerTo('components', 'schemas', 'SuccessStatus')}/enum`);
const CLOSED_STATUSES: ReadonlySet<unknown> = new Set(Array.isArray(OUTCOMES) ? OUTCOMES : []);

type Path = Array<string | number>;

/** The UTC day (ms at 00:00) of the server's clock: the Date header, else this machine's. */
export function serverDay(headers: Readonly<Record<string, string | undefined>>): number {
  const parsed = Date.parse(headers['date'] ?? '');
  return Math.floor((Number.isNaN(parsed) ? Date.now() : parsed) / DAY_MS) * DAY_MS;
}

/** Whole days from the UTC day of `value` to `today`; undefined when it is not a timestamp. */
function daysSince(value: unknown, today: number): number | undefined {
  if (typeof value !== 'string') return undefined;
  const when = Date.parse(value);
  return Number.isNaN(when) ? undefined : Math.round((today - Math.floor(when / DAY_MS) * DAY_MS) / DAY_MS);
}

const shown = (value: unknown): string => JSON.stringify(value) ?? 'absent';

function idRules(record: JsonObject, type: string, at: Path): Violation[] {
  const id = record['id'];
  if (typeof id !== 'string') return [];
  const short = shortIdIn(id);
  if (short === undefined) return [];
  const out: Violation[] = [];
  const labelField = LABELLED[type];
  const label = labelField === undefined ? undefined : record[labelField];
  if (typeof label === 'string') {
    const expected = `${slugOf(label)}-${short}`;
    if (id !== expected)
      out.push(
        violation(
          [...at, 'id'],
          'agreement.id',
          `a ${type}'s id is the slug of its ${labelField} before its short id (RULES.md#response-ids): ${labelField} ${shown(label)} gives ${shown(expected)}; got ${shown(id)}`,
        ),
      );
  }
  if (DATED.has(type) && typeof record['inserted_at'] === 'string') {
    const expected = `${record['inserted_at'].slice(0, 10)}-${short}`;
    if (id !== expected)
      out.push(
        violation(
          [...at, 'id'],
          'agreement.id',
          `a ${type}'s id is the date it was made (inserted_at ${record['inserted_at']}) before its short id (RULES.md#response-ids): expected ${shown(expected)}; got ${shown(id)}`,
        ),
      );
  }
  for (const reference of REFERENCES[type] ?? []) {
    const value = record[reference.field];
    const nested = record[reference.record];
    if (typeof value !== 'string' || !isObject(nested) || typeof nested['id'] !== 'string') continue;
    const nestedId = nested['id'];
    const expected = reference.form === 'full' ? nestedId : shortIdIn(nestedId);
    const agrees = reference.form === 'full' ? sameRecord(value, nestedId) && value === nestedId : value === expected;
    if (!agrees)
      out.push(
        violation(
          [...at, reference.field],
          'agreement.reference',
          `${reference.field} names the ${reference.record} the answer carries (${reference.form === 'full' ? 'its id' : 'the bare short id of its id'} ${shown(nestedId)}; RULES.md#response-ids); got ${shown(value)}`,
        ),
      );
  }
  return out;
}

function projectRules(project: JsonObject, at: Path, today: number): Violation[] {
  const out: Violation[] = [];
  const has = (key: string): boolean => Object.hasOwn(project, key);
  const { state, closed_at: closedAt, success_status: successStatus, status } = project;
  const closed = closedAt !== null && closedAt !== undefined;
  if (has('state') && has('closed_at') && (state === 'closed') !== closed) {
    out.push(
      violation(
        [...at, 'state'],
        'agreement.state',
        `a project is closed exactly when closed_at is set (Project.state/1; RULES.md#state-project): state ${shown(state)}, closed_at ${shown(closedAt)}`,
      ),
    );
  }
  if (has('success_status') && has('closed_at')) {
    if (!closed && successStatus !== 'nil')
      out.push(
        violation(
          [...at, 'success_status'],
          'agreement.success-status',
          `a project that is not closed has success_status "nil" (the string; RULES.md#decision-1); got ${shown(successStatus)}`,
        ),
      );
    if (closed && !CLOSED_STATUSES.has(successStatus))
      out.push(
        violation(
          [...at, 'success_status'],
          'agreement.success-status',
          `a closed project has success_status "achieved" or "missed" (RULES.md#state-project); got ${shown(successStatus)}`,
        ),
      );
  }
  // is_outdated (Projects.outdated?/1): no next check-in → true; paused or archived or not started → false; else the
  // next check-in more than 3 days past. A closed project's stored status is not in the answer, so it is not judged.
  const next = project['next_check_in_scheduled_at'];
  const outdated = project['is_outdated'];
  if (typeof outdated === 'boolean' && has('next_check_in_scheduled_at') && state !== 'closed' && !closed) {
    const timeframe = project['timeframe'];
    const start = isObject(timeframe) && isObject(timeframe['contextual_start_date']) ? timeframe['contextual_start_date']['date'] : undefined;
    const notStarted = typeof start === 'string' && Date.parse(start) > today;
    const missedBy = daysSince(next, today);
    let expected: boolean | undefined;
    let why = '';
    if (next === null) [expected, why] = [true, 'a project with no next check-in is outdated'];
    else if (state === 'paused') [expected, why] = [false, 'a paused project is not outdated'];
    else if (project['is_archived'] === true) [expected, why] = [false, 'an archived project is not outdated'];
    else if (notStarted) [expected, why] = [false, `a project that has not started (timeframe from ${String(start)}) is not outdated`];
    else if (missedBy !== undefined)
      [expected, why] = [
        missedBy > 3,
        `a project is outdated exactly when its next check-in (${String(next)}) is more than 3 days past (${missedBy} days, by the server's Date)`,
      ];
    if (expected !== undefined && outdated !== expected)
      out.push(
        violation([...at, 'is_outdated'], 'agreement.outdated', `${why} (Projects.outdated?/1; RULES.md#state-project): expected ${expected}; got ${outdated}`),
      );
  }
  // status (Project.status/1): success_status when set, paused, outdated, the last check-in's status, pending.
  if (typeof status === 'string') {
    let expected: unknown;
    let why = '';
    if (CLOSED_STATUSES.has(successStatus)) [expected, why] = [successStatus, 'a project with an outcome has the status of its outcome (success_status)'];
    else if (successStatus === 'nil' || !closed) {
      if (state === 'paused') [expected, why] = ['paused', 'a paused project has status "paused"'];
      else if (outdated === true) [expected, why] = ['outdated', 'an outdated project has status "outdated"'];
      else if (outdated === false && state === 'active') {
        const last = project['last_check_in'];
        if (last === null) [expected, why] = ['pending', 'a project with no check-in has status "pending"'];
        else if (isObject(last) && typeof last['status'] === 'string')
          [expected, why] = [last['status'], 'an active project that is not outdated has the status of its last check-in'];
      }
    }
    if (expected !== undefined && status !== expected)
      out.push(
        violation(
          [...at, 'status'],
          'agreement.status',
          `${why} (Project.status/1; RULES.md#state-project): expected ${shown(expected)}; got ${shown(status)}`,
        ),
      );
  }
  return out;
}

function goalRules(goal: JsonObject, at: Path, today: number): Violation[] {
  const out: Violation[] = [];
  const has = (key: string): boolean => Object.hasOwn(goal, key);
  const { is_closed: isClosed, closed_at: closedAt, status, success } = goal;
  const closed = closedAt !== null && closedAt !== undefined;
  if (typeof isClosed === 'boolean' && has('closed_at') && isClosed !== closed) {
    out.push(
      violation(
        [...at, 'is_closed'],
        'agreement.state',
        `a goal is closed exactly when closed_at is set (Goal.state/1; RULES.md#state-goal): is_closed ${isClosed}, closed_at ${shown(closedAt)}`,
      ),
    );
  }
  const outdated = goal['is_outdated'];
  const next = goal['next_update_scheduled_at'];
  if (typeof outdated === 'boolean' && has('closed_at')) {
    let expected: boolean | undefined;
    let why = '';
    if (has('next_update_scheduled_at') && next === null) [expected, why] = [true, 'a goal with no next update is outdated'];
    else if (closed) [expected, why] = [false, 'a closed goal is not outdated'];
    else if (goal['is_archived'] === true) [expected, why] = [false, 'an archived goal is not outdated'];
    else {
      const missedBy = daysSince(next, today);
      if (missedBy !== undefined)
        [expected, why] = [
          missedBy > 3,
          `a goal is outdated exactly when its next update (${String(next)}) is more than 3 days past (${missedBy} days, by the server's Date)`,
        ];
    }
    if (expected !== undefined && outdated !== expected)
      out.push(
        violation([...at, 'is_outdated'], 'agreement.outdated', `${why} (Goals.outdated?/1; RULES.md#state-goal): expected ${expected}; got ${outdated}`),
      );
  }
  // status (Goal.status/1): the outcome when closed; else (no outcome) "yes" → achieved, outdated, the last update, pending.
  if (typeof status === 'string' && has('closed_at')) {
    let expected: unknown;
    let why = '';
    if (closed && !CLOSED_STATUSES.has(status))
      out.push(
        violation(
          [...at, 'status'],
          'agreement.status',
          `a closed goal has the status of its outcome, "achieved" or "missed" (Goal.status/1; RULES.md#state-goal); got ${shown(status)}`,
        ),
      );
    else if (!closed && success === true) [expected, why] = ['achieved', 'an open goal whose success is "yes" has status "achieved"'];
    // An open goal's legacy success "no" (missed) cannot be told apart from other text in the answer: "missed" passes.
    else if (!closed && status !== 'missed') {
      if (outdated === true) [expected, why] = ['outdated', 'an open, outdated goal has status "outdated"'];
      else if (outdated === false) {
        const last = goal['last_check_in'];
        if (last === null) [expected, why] = ['pending', 'an open goal with no update has status "pending"'];
        else if (isObject(last) && typeof last['status'] === 'string')
          [expected, why] = [last['status'], 'an open goal that is not outdated has the status of its last update'];
        else if (status === 'achieved')
          out.push(
            violation(
              [...at, 'status'],
              'agreement.status',
              `an open goal is achieved only when its success is "yes" (Goal.status/1; RULES.md#state-goal): expected not "achieved"; got "achieved"`,
            ),
          );
      }
    }
    if (expected !== undefined && status !== expected)
      out.push(
        violation([...at, 'status'], 'agreement.status', `${why} (Goal.status/1; RULES.md#state-goal): expected ${shown(expected)}; got ${shown(status)}`),
      );
  }
  return out;
}

/** Permission flags from the lowest level they need to the highest (§5.8: view 10, comment 40, edit 70, full 100). */
const PERMISSION_LADDER = ['can_view', 'can_comment', 'can_edit', 'has_full_access'] as const;

/**
 * The rules every record with permissions, access levels or milestones keeps, at any depth (RULES.md#nested-records):
 * its permissions are one access level's (a flag implies every flag below it), its privacy is what its access levels
 * give (AccessLevels.calc_privacy/1), and its milestones follow its milestones_ordering_state.
 */
function nestedRules(record: JsonObject, type: string, at: Path): Violation[] {
  const out: Violation[] = [];
  const permissions = record['permissions'];
  if (isObject(permissions)) {
    const granted = PERMISSION_LADDER.map((flag) => permissions[flag]);
    const highest = granted.lastIndexOf(true);
    const missing = PERMISSION_LADDER.slice(0, Math.max(0, highest)).filter((flag) => permissions[flag] === false);
    if (missing.length > 0)
      out.push(
        violation(
          [...at, 'permissions'],
          'agreement.permissions',
          `a ${type}'s permissions come from one access level, so ${PERMISSION_LADDER[highest] ?? ''} implies ${missing.join(', ')} (view 10, comment 40, edit 70, full 100; RULES.md#nested-records); got ${shown(permissions)}`,
        ),
      );
  }
  const levels = record['access_levels'];
  const privacy = record['privacy'];
  if (typeof privacy === 'string' && isObject(levels)) {
    const level = (key: string): number | undefined => (typeof levels[key] === 'number' ? levels[key] : undefined);
    const [open, company, space] = [level('public'), level('company'), level('space')];
    if (open !== undefined && company !== undefined && space !== undefined) {
      const expected = open > 0 ? 'public' : company > 0 ? 'internal' : space > 0 ? 'confidential' : 'secret';
      if (privacy !== expected)
        out.push(
          violation(
            [...at, 'privacy'],
            'agreement.privacy',
            `a ${type}'s privacy is what its access levels give (public if anyone, internal if the company, confidential if the space, else secret; AccessLevels.calc_privacy/1; RULES.md#nested-records): access levels ${shown({ public: open, company, space })} give ${shown(expected)}; got ${shown(privacy)}`,
          ),
        );
    }
  }
  const milestones = record['milestones'];
  const ordering = record['milestones_ordering_state'];
  if (Array.isArray(milestones) && Array.isArray(ordering)) {
    const rank = (milestone: unknown): number => {
      const id = isObject(milestone) ? milestone['id'] : undefined;
      return typeof id === 'string' ? ordering.findIndex((o) => typeof o === 'string' && sameRecord(o, id)) : -1;
    };
    const ranks = milestones.map(rank).filter((r) => r >= 0);
    if (ranks.some((r, i) => i > 0 && r < (ranks[i - 1] ?? 0)))
      out.push(
        violation(
          [...at, 'milestones'],
          'agreement.milestone-order',
          `a ${type}'s milestones come in the order of its milestones_ordering_state (RULES.md#nested-records): ${shown(ordering)}; got ${shown(milestones.map((m) => (isObject(m) ? m['id'] : m)))}`,
        ),
      );
  }
  return out;
}

/** Contributor roles in production's order (serializers/project.ex sorts champion, reviewer, contributor, then by full name). */
const ROLE_ORDER: Readonly<Record<string, number>> = { champion: 0, reviewer: 1, contributor: 2 };
/** Lists production orders by `index` (goals/get preloads targets ordered by index; the checklist and a project's task statuses likewise). */
const BY_INDEX: Readonly<Record<string, ReadonlyArray<string>>> = {
  goal: ['targets', 'checklist'],
  goal_progress_update: ['checklist'],
  project: ['task_statuses'],
};

const fullNameOf = (contributor: unknown): string =>
  isObject(contributor) && isObject(contributor['person']) && typeof contributor['person']['full_name'] === 'string' ? contributor['person']['full_name'] : '';

/**
 * Lists in production's order (RULES.md#list-order): a project's contributors champion, reviewer, contributor and, within
 * a role, by full name; a goal's targets and checklist items by index.
 */
function orderRules(record: JsonObject, type: string, at: Path): Violation[] {
  const out: Violation[] = [];
  const contributors = record['contributors'];
  if (type === 'project' && Array.isArray(contributors)) {
    const keys = contributors.map((c) => ({ rank: isObject(c) && typeof c['role'] === 'string' ? (ROLE_ORDER[c['role']] ?? 3) : 3, name: fullNameOf(c) }));
    const sorted = [...keys].sort((a, b) => a.rank - b.rank || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (keys.some((k, i) => k.rank !== sorted[i]?.rank || k.name !== sorted[i]?.name))
      out.push(
        violation(
          [...at, 'contributors'],
          'agreement.list-order',
          `a project's contributors come champion, reviewer, contributor, then by full name (serializers/project.ex; RULES.md#list-order): expected ${shown(sorted.map((k) => k.name))}; got ${shown(keys.map((k) => k.name))}`,
        ),
      );
  }
  for (const field of BY_INDEX[type] ?? []) {
    const list = record[field];
    if (!Array.isArray(list)) continue;
    const indexes = list.map((item) => (isObject(item) && typeof item['index'] === 'number' ? item['index'] : undefined));
    if (indexes.some((index, i) => i > 0 && index !== undefined && (indexes[i - 1] ?? -Infinity) > index))
      out.push(
        violation(
          [...at, field],
          'agreement.list-order',
          `a ${type}'s ${field} come in the order of their index (goals/get preloads them ordered by index; RULES.md#list-order); got indexes ${shown(indexes)}`,
        ),
      );
  }
  return out;
}

/** Nested records that name the record holding them: by a reference field (its short id) or by a nested record (its id). */
const PARENT_LINKS: Readonly<Record<string, ReadonlyArray<{ list: string; field: string; form: 'short' | 'nested' }>>> = {
  goal: [
    { list: 'projects', field: 'goal_id', form: 'short' },
    { list: 'projects', field: 'goal', form: 'nested' },
  ],
  project: [
    { list: 'contributors', field: 'project', form: 'nested' },
    { list: 'last_check_in', field: 'project', form: 'nested' },
    { list: 'retrospective', field: 'project', form: 'nested' },
  ],
};

/** The ids of nested records agree with the record they name (RULES.md#response-ids): a goal's projects have its goal_id. */
function parentRules(record: JsonObject, type: string, at: Path): Violation[] {
  const id = record['id'];
  if (typeof id !== 'string') return [];
  const short = shortIdIn(id);
  const out: Violation[] = [];
  for (const link of PARENT_LINKS[type] ?? []) {
    const held = record[link.list];
    const children = Array.isArray(held) ? held.map((c, i) => ({ c, where: [...at, link.list, i] })) : [{ c: held, where: [...at, link.list] }];
    for (const { c, where } of children) {
      if (!isObject(c)) continue;
      const value = c[link.field];
      const named = link.form === 'short' ? value : isObject(value) ? value['id'] : undefined;
      if (typeof named !== 'string') continue;
      const agrees = link.form === 'short' ? named === short : sameRecord(named, id);
      if (!agrees)
        out.push(
          violation(
            [...where, link.field],
            'agreement.reference',
            `${link.list === 'projects' ? 'a project the goal lists' : `the ${type}'s ${link.list}`} names the ${type} that holds it (${link.form === 'short' ? `the bare short id of ${shown(id)}: ${shown(short)}` : `its id ${shown(id)}`}; RULES.md#response-ids); got ${shown(named)}`,
          ),
        );
    }
  }
  // A project's subscription_list is its own (parent_type project), not a write's (§4.3).
  const list = record['subscription_list'];
  if (type === 'project' && isObject(list) && typeof list['parent_type'] === 'string' && list['parent_type'] !== 'project')
    out.push(
      violation(
        [...at, 'subscription_list', 'parent_type'],
        'agreement.reference',
        `a project's subscription_list is the project's own, parent_type "project" (the list a write opens hangs off its comment thread; §4.3, RULES.md#subscriptions); got ${shown(list['parent_type'])}`,
      ),
    );
  return out;
}

/**
 * Timestamps of one record that agree with each other (RULES.md#timestamps), compared as instants: nothing is updated,
 * closed or acknowledged before it was made, nothing acknowledged before it was published, and a project or goal is
 * not updated before it was closed (closing bumps updated_at in the same write).
 */
function timeRules(record: JsonObject, type: string, at: Path): Violation[] {
  const out: Violation[] = [];
  const when = (field: string): number | undefined => {
    const value = record[field];
    const parsed = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return Number.isNaN(parsed) ? undefined : parsed;
  };
  const pairs: ReadonlyArray<[string, string, string]> = [
    ['updated_at', 'inserted_at', 'nothing is updated before it was made'],
    ['closed_at', 'inserted_at', 'nothing is closed before it was made'],
    ['acknowledged_at', 'inserted_at', 'nothing is acknowledged before it was written'],
    ['acknowledged_at', 'published_at', 'nothing is acknowledged before it was published'],
    ...(type === 'project' || type === 'goal'
      ? [
          ['updated_at', 'closed_at', 'closing bumps updated_at in the same write, so a record is never updated before it was closed'] as [
            string,
            string,
            string,
          ],
        ]
      : []),
  ];
  for (const [later, earlier, why] of pairs) {
    const [a, b] = [when(later), when(earlier)];
    if (a !== undefined && b !== undefined && a < b)
      out.push(
        violation(
          [...at, later],
          'agreement.timestamps',
          `${why} (RULES.md#timestamps): ${later} ${shown(record[later])} is before ${earlier} ${shown(record[earlier])}`,
        ),
      );
  }
  return out;
}

/** Potential subscribers of a project or goal are never marked subscribed (Subscriber.from_project/from_goal; §5.11). */
function subscriberRules(record: JsonObject, type: string, at: Path): Violation[] {
  const list = record['potential_subscribers'];
  if ((type !== 'project' && type !== 'goal') || !Array.isArray(list)) return [];
  return list.flatMap((s, i) =>
    isObject(s) && s['is_subscribed'] === true
      ? [
          violation(
            [...at, 'potential_subscribers', i, 'is_subscribed'],
            'agreement.subscribers',
            `a ${type}'s potential subscribers are built from its contributors or space members, and is_subscribed is always false there (notifications/subscriber.ex; RULES.md#subscriptions); got true`,
          ),
        ]
      : [],
  );
}

/** The form of one timestamp field (RULES.md#timestamps): production writes every one the same way. */
function timestampRule(field: string, value: string, at: Path): Violation[] {
  const usec = USEC_FIELDS.has(field);
  if ((usec ? MICROSECONDS : WHOLE_SECONDS).test(value)) return [];
  return [
    violation(
      [...at, field],
      'agreement.timestamp',
      `production writes ${field} ${usec ? 'in UTC with microseconds, like 2025-06-13T15:42:07.123456Z' : 'in UTC to the second, like 2025-06-13T15:42:07Z'} (no offset, ${usec ? 'six decimals' : 'no fraction'}; RULES.md#timestamps); got ${shown(value)}`,
    ),
  ];
}

/**
 * Every agreement rule on every record of a JSON answer (the body of a 200), with `today` the server's UTC day.
 * Records are objects with a `__typename`; the walk visits nested records and lists.
 */
export function agreementRules(body: unknown, today: number): Violation[] {
  const out: Violation[] = [];
  const visit = (value: unknown, at: Path): void => {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, [...at, index]);
      return;
    }
    if (!isObject(value)) return;
    const type = value['__typename'];
    if (typeof type === 'string') {
      out.push(...idRules(value, type, at), ...nestedRules(value, type, at), ...orderRules(value, type, at));
      out.push(...parentRules(value, type, at), ...timeRules(value, type, at), ...subscriberRules(value, type, at));
      if (type === 'project') out.push(...projectRules(value, at, today));
      if (type === 'goal') out.push(...goalRules(value, at, today));
    }
    for (const [key, child] of Object.entries(value)) {
      if (typeof child === 'string' && TIMESTAMP.test(child)) out.push(...timestampRule(key, child, at));
      else visit(child, [...at, key]);
    }
  };
  visit(body, ['response', 'body']);
  return out;
}
