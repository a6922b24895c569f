// Rows and templates to the spec's objects, as the caller sees them: every field of the contract, the computed fields
// (state, status, is_outdated, permissions, privacy …) by the real rules. Reads the state; never changes it.
import { accessLevel, personRow } from './access.ts';
import { shortId, slugId } from './ids.ts';
import {
  goalOutdated,
  goalStatus,
  permissionsFor,
  privacyOf,
  projectOutdated,
  projectState,
  projectStatus,
  type GoalFacts,
  type ProjectFacts,
} from './rules.ts';
import type { Access, Goal, GoalRow, Person, PersonRow, Project, ProjectRow, SpaceRow, State } from './state.ts';

/** A goal lists unread notifications of these actions only; closing is not one (UnreadNotificationsLoader). */
const GOAL_NOTIFICATION_ACTIONS = new Set(['goal_created', 'goal_editing', 'goal_archived']);

// Views are only serialized, never changed, so the small objects that depend on one row or on a few values are built
// once and shared by every answer while their row is unchanged: the same objects each time keep the serializer's
// memory warm and the allocator idle. Each memo checks every field it read, so a row changed in place (a test that
// edits the state) gets a new view.
const PERSON_VIEWS = new WeakMap<PersonRow, { uuid: string; view: Person }>();
const SPACE_VIEWS = new WeakMap<SpaceRow, { uuid: string; view: NonNullable<Project['space']> }>();
const ACCESS_VIEWS = new WeakMap<Access, NonNullable<Project['access_levels']>>();
const PROJECT_PERMISSIONS = new Map<string, { __typename: 'project_permissions' } & ReturnType<typeof permissionsFor>>();
const GOAL_PERMISSIONS = new Map<string, { __typename: 'goal_permissions' } & ReturnType<typeof permissionsFor>>();

function personView(state: State, uuid: string | null): Person | null {
  const row = uuid ? personRow(state, uuid) : undefined;
  if (!row) return null;
  const known = PERSON_VIEWS.get(row);
  const v = known?.view;
  if (
    known?.uuid === row.uuid &&
    v &&
    v.full_name === row.full_name &&
    v.title === row.title &&
    v.avatar_url === row.avatar_url &&
    v.email === row.email &&
    v.type === row.type
  )
    return v;
  const view: Person = {
    __typename: 'person',
    id: slugId(row.full_name, row.uuid),
    full_name: row.full_name,
    title: row.title,
    avatar_url: row.avatar_url,
    email: row.email,
    type: row.type,
  };
  PERSON_VIEWS.set(row, { uuid: row.uuid, view });
  return view;
}

function spaceView(state: State, uuid: string): Project['space'] {
  const space = state.spaces.find((s) => s.uuid === uuid);
  if (!space) return null;
  const known = SPACE_VIEWS.get(space);
  if (known?.uuid === space.uuid && known.view.name === space.name) return known.view;
  const view = { __typename: 'space' as const, id: slugId(space.name, space.uuid), name: space.name };
  SPACE_VIEWS.set(space, { uuid: space.uuid, view });
  return view;
}

function accessLevelsView(access: Access): NonNullable<Project['access_levels']> {
  const known = ACCESS_VIEWS.get(access);
  if (known && known.public === access.public && known.company === access.company && known.space === access.space) return known;
  const view = { __typename: 'access_levels' as const, public: access.public, company: access.company, space: access.space };
  ACCESS_VIEWS.set(access, view);
  return view;
}

type Permissions = ReturnType<typeof permissionsFor>;

function permissionsView<T extends string>(
  cache: Map<string, { __typename: T } & Permissions>,
  typename: T,
  level: number,
  companyReadOnly: boolean,
): { __typename: T } & Permissions {
  const key = `${level} ${companyReadOnly}`;
  let view = cache.get(key);
  if (!view) {
    view = { __typename: typename, ...permissionsFor(level, companyReadOnly) };
    cache.set(key, view);
  }
  return view;
}

function url(state: State, kind: 'projects' | 'goals', id: string): string {
  return `${state.company.app_origin}/${state.company.id}/${kind}/${id}`;
}

function projectFacts(p: ProjectRow): ProjectFacts {
  return {
    stored_status: p.stored_status,
    closed_at: p.closed_at,
    success_status: p.success_status,
    next_check_in_scheduled_at: p.next_check_in_scheduled_at,
    deleted_at: p.deleted_at,
    start_date: p.template.timeframe?.contextual_start_date?.date ?? null,
    last_check_in_status: p.template.last_check_in?.status ?? null,
  };
}

function goalFacts(g: GoalRow): GoalFacts {
  return {
    closed_at: g.closed_at,
    success: g.success,
    success_status: g.success_status,
    next_update_scheduled_at: g.next_update_scheduled_at,
    deleted_at: g.deleted_at,
    last_check_in_status: g.template.last_check_in?.status ?? null,
  };
}

function unread(state: State, personUuid: string, about: { project_uuid?: string; goal_uuid?: string }): NonNullable<Project['notifications']> {
  return state.notifications
    .filter((n) => n.person_uuid === personUuid && !n.read && (about.project_uuid ? n.project_uuid === about.project_uuid : n.goal_uuid === about.goal_uuid))
    .filter((n) => about.project_uuid !== undefined || GOAL_NOTIFICATION_ACTIONS.has(n.action))
    .map((n) => ({ __typename: 'notification', id: n.id, read: false, read_at: null, inserted_at: n.inserted_at }));
}

/** A project as the caller sees it: every field of the contract, computed fields by the real rules. */
export function projectView(state: State, now: Date, p: ProjectRow, callerUuid: string, options: { nestGoal: boolean }): Project {
  const facts = projectFacts(p);
  const goal = options.nestGoal && p.goal_uuid ? state.goals.find((g) => g.uuid === p.goal_uuid && !g.deleted_at) : undefined;
  const id = slugId(p.name, p.uuid);
  // Templates are never mutated after the seed, and responses are only serialized: share them, do not copy them.
  return {
    ...p.template,
    __typename: 'project',
    id,
    name: p.name,
    space_id: shortId(p.space_uuid),
    space: spaceView(state, p.space_uuid),
    goal_id: p.goal_uuid ? shortId(p.goal_uuid) : null,
    goal: goal ? essentialGoal(goal, now) : null,
    state: projectState(facts),
    status: projectStatus(facts, now),
    success_status: p.success_status ?? 'nil',
    closed_at: p.closed_at,
    next_check_in_scheduled_at: p.next_check_in_scheduled_at,
    is_outdated: projectOutdated(facts, now),
    is_archived: p.deleted_at !== null,
    inserted_at: p.inserted_at,
    updated_at: p.updated_at,
    champion: personView(state, p.champion_uuid),
    reviewer: personView(state, p.reviewer_uuid),
    access_levels: accessLevelsView(p.access),
    privacy: privacyOf(p.access),
    permissions: permissionsView(
      PROJECT_PERMISSIONS,
      'project_permissions',
      accessLevel(state, callerUuid, p.access, p.space_uuid),
      state.company.billing_read_only,
    ),
    notifications: unread(state, callerUuid, { project_uuid: p.uuid }),
    url: url(state, 'projects', id),
  };
}

/** The goal as the real close response writes it (essential level), used where a project nests its goal. */
function essentialGoal(g: GoalRow, now: Date): Goal {
  const facts = goalFacts(g);
  return {
    __typename: 'goal',
    id: slugId(g.name, g.uuid),
    name: g.name,
    status: goalStatus(facts, now),
    success: g.success === 'yes',
    is_closed: g.closed_at !== null,
    closed_at: g.closed_at,
    closed_by: null,
    inserted_at: g.inserted_at,
    updated_at: g.updated_at,
    archived_at: g.deleted_at,
    is_archived: g.deleted_at !== null,
    is_outdated: goalOutdated(facts, now),
    timeframe: g.template.timeframe,
    last_check_in_id: g.template.last_check_in_id,
    permissions: null,
    targets: null,
    space: null,
    champion: null,
    reviewer: null,
  };
}

/** A goal as the caller sees it: every field of the seed, the closing fields from the latest close. */
export function goalView(state: State, now: Date, g: GoalRow, callerUuid: string, options: { nestProjects: boolean }): Goal {
  const closing = state.activities.findLast((a) => a.action === 'goal_closing' && a.goal_uuid === g.uuid);
  const thread = closing ? state.comment_threads.findLast((t) => t.id === closing.comment_thread_id) : undefined;
  const author = closing ? personView(state, closing.author_uuid) : null;
  const id = slugId(g.name, g.uuid);
  return {
    ...g.template,
    ...essentialGoal(g, now),
    closed_by: personView(state, g.closed_by_uuid),
    champion: personView(state, g.champion_uuid),
    reviewer: personView(state, g.reviewer_uuid),
    space: spaceView(state, g.space_uuid),
    targets: g.template.targets,
    access_levels: accessLevelsView(g.access),
    privacy: privacyOf(g.access),
    permissions: permissionsView(GOAL_PERMISSIONS, 'goal_permissions', accessLevel(state, callerUuid, g.access, g.space_uuid), state.company.billing_read_only),
    notifications: unread(state, callerUuid, { goal_uuid: g.uuid }),
    retrospective:
      g.closed_at && closing && thread && author
        ? {
            __typename: 'goal_retrospective',
            id: shortId(closing.id),
            title: g.name,
            inserted_at: thread.inserted_at,
            comment_count: 0,
            author,
            content: JSON.stringify(thread.message),
            acknowledged_at: null,
            acknowledged_by: null,
          }
        : g.closed_at
          ? (g.template.retrospective ?? null)
          : null,
    projects: options.nestProjects
      ? state.projects.filter((p) => p.goal_uuid === g.uuid && !p.deleted_at).map((p) => projectView(state, now, p, callerUuid, { nestGoal: false }))
      : [],
    url: url(state, 'goals', id),
  };
}
