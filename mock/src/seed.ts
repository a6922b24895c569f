// The default seed, built from the spec's examples so the mock's data and the docs' examples are the same data:
// the paused and closed projects are the records of the resume examples before the resume, the open and closed goals
// those of the close examples. A company, five personas and their tokens complete it.
import { isObject, loadDocument, resolvePointer } from '../../spec/lib/openapi.ts';
import type { Schemas } from '../../spec/lib/schemas.ts';
import { sha256, toBase64Url, toHex } from './digest.ts';
import { decodeId, datedId, shortId } from './ids.ts';
import { hashToken } from './security.ts';
import {
  PERSONAS,
  type Access,
  type Fixtures,
  type Persona,
  type Goal,
  type GoalRow,
  type Person,
  type PersonRow,
  type Project,
  type ProjectRow,
  type Seed,
  type State,
} from './state.ts';

export { PERSONAS, type Persona } from './state.ts';

/**
 * A record from one of the spec's response examples. The examples are validated against these very schemas by
 * Redocly lint (no-invalid-media-type-examples) and by spec/test/examples.test.ts, so they are trusted here rather
 * than validated again at every start (that would add ~300 ms of schema compilation to the cold start).
 */
function example<K extends 'Project' | 'Goal'>(_schema: K, name: string, key: string): Schemas[K] {
  const value = resolvePointer(loadDocument(), `#/components/examples/${name}/value`);
  if (!isObject(value) || !isObject(value[key])) throw new Error(`the spec has no example ${name} with a ${key}`);
  return value[key] as Schemas[K];
}

function uuidOf(id: string): string {
  const decoded = decodeId(id);
  if (decoded.kind !== 'uuid') throw new Error(`example id ${id} does not decode`);
  return decoded.uuid;
}

/** A stable UUID (v4 layout) for seed records the examples do not name. */
function uuidFor(name: string): string {
  const hex = toHex(sha256(`service-external-api seed ${name}`));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16] ?? '0', 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A token in production's format, `opk_` and 43 URL-safe base64 characters, stable per persona. */
function tokenFor(persona: string): string {
  return `opk_${toBase64Url(sha256(`service-external-api mock token ${persona}`))}`;
}

function personRow(person: Pick<Person, 'id' | 'full_name' | 'title' | 'email' | 'type' | 'avatar_url'>, extra: Partial<PersonRow> = {}): PersonRow {
  return {
    uuid: uuidOf(person.id),
    full_name: person.full_name,
    title: person.title,
    email: person.email,
    type: person.type,
    avatar_url: person.avatar_url,
    suspended: false,
    company_admin: false,
    ...extra,
  };
}

/** Bindings of a project: company/space/public from its access levels; champion and reviewer full; contributors theirs. */
function projectAccess(project: Project): Access {
  const people: Access['people'] = {};
  for (const contributor of project.contributors ?? []) {
    if (contributor.person && contributor.access_level !== null) people[uuidOf(contributor.person.id)] = contributor.access_level;
  }
  if (project.champion) people[uuidOf(project.champion.id)] = 100;
  if (project.reviewer) people[uuidOf(project.reviewer.id)] = 100;
  return { public: project.access_levels?.public ?? 0, company: project.access_levels?.company ?? 0, space: project.access_levels?.space ?? 0, people };
}

function projectRow(template: Project, row: Pick<ProjectRow, 'stored_status' | 'next_check_in_scheduled_at' | 'updated_at'>): ProjectRow {
  return {
    uuid: uuidOf(template.id),
    name: template.name,
    space_uuid: uuidOf(template.space_id),
    goal_uuid: template.goal_id ? uuidOf(template.goal_id) : null,
    champion_uuid: template.champion ? uuidOf(template.champion.id) : null,
    reviewer_uuid: template.reviewer ? uuidOf(template.reviewer.id) : null,
    closed_at: template.closed_at,
    success_status: template.success_status === 'nil' ? null : template.success_status,
    inserted_at: template.inserted_at ?? row.updated_at,
    deleted_at: null,
    access: projectAccess(template),
    template,
    ...row,
  };
}

function goalRow(template: Goal, commenter: string, row: Pick<GoalRow, 'closed_at' | 'closed_by_uuid' | 'success' | 'success_status' | 'updated_at'>): GoalRow {
  const people: Access['people'] = { [commenter]: 40 };
  if (template.champion) people[uuidOf(template.champion.id)] = 100;
  if (template.reviewer) people[uuidOf(template.reviewer.id)] = 100;
  if (!template.space) throw new Error(`example goal ${template.id} has no space`);
  return {
    uuid: uuidOf(template.id),
    name: template.name,
    space_uuid: uuidOf(template.space.id),
    champion_uuid: template.champion ? uuidOf(template.champion.id) : null,
    reviewer_uuid: template.reviewer ? uuidOf(template.reviewer.id) : null,
    next_update_scheduled_at: template.next_update_scheduled_at ?? null,
    inserted_at: template.inserted_at ?? row.updated_at,
    deleted_at: null,
    access: { public: template.access_levels?.public ?? 0, company: template.access_levels?.company ?? 0, space: template.access_levels?.space ?? 0, people },
    template,
    ...row,
  };
}

function richText(text: string): string {
  return JSON.stringify({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] });
}

/** The four records the seed is built around: the resume examples' projects and the close examples' goals. */
type Examples = { paused: Project; closed: Project; achieved: Goal; missed: Goal };

/** The people of the seed: the paused project's champion, reviewer and commenter, and two people of the mock's own. */
type SeedPeople = { people: PersonRow[]; alice: string; bob: string; carol: string; dan: PersonRow; erin: PersonRow };

function examples(): Examples {
  return {
    paused: example('Project', 'ResumeProjectResponse', 'project'),
    closed: example('Project', 'ResumeClosedProjectResponse', 'project'),
    achieved: example('Goal', 'CloseGoalResponse', 'goal'),
    missed: example('Goal', 'CloseGoalMissedResponse', 'goal'),
  };
}

/** The company, named after the paused project's URL (its first path segment and its origin). */
function seedCompany(url: string): State['company'] {
  return {
    uuid: uuidFor('company'),
    id: new URL(url).pathname.split('/')[1] ?? '',
    name: 'Northwind Labs',
    billing_read_only: false,
    app_origin: new URL(url).origin,
  };
}

/** Alice (champion), Bob (reviewer) and Carol (commenter) from the paused project; Dan (no access) and Erin (suspended). */
function seedPeople(paused: Project): SeedPeople {
  const { champion, reviewer } = paused;
  const commenter = paused.contributors?.find((c) => c.access_level === 40)?.person;
  if (!champion || !reviewer || !commenter) throw new Error('the paused project example lacks a champion, reviewer, commenting contributor, space or url');
  const dan = personRow({
    id: `dan-miller-${shortId(uuidFor('dan'))}`,
    full_name: 'Dan Miller',
    title: 'Finance Analyst',
    email: 'dan@northwind.example',
    type: 'human',
    avatar_url: null,
  });
  const erin = personRow(
    {
      id: `erin-garcia-${shortId(uuidFor('erin'))}`,
      full_name: 'Erin Garcia',
      title: 'Support Lead',
      email: 'erin@northwind.example',
      type: 'human',
      avatar_url: null,
    },
    { suspended: true },
  );
  const people = [personRow(champion), personRow(reviewer), personRow(commenter), dan, erin];
  const [alice, bob, carol] = people.map((p) => p.uuid);
  if (!alice || !bob || !carol) throw new Error('unreachable');
  return { people, alice, bob, carol, dan, erin };
}

/** The active project: the paused one's shape under another name, checked in a week before the examples' day. */
function activeProject(paused: Project, uuid: string): Project {
  const activeCheckIn = paused.last_check_in
    ? {
        ...paused.last_check_in,
        id: datedId('2025-06-06', uuidFor('check-in website redesign')),
        status: 'on_track' as const,
        inserted_at: '2025-06-06T15:00:00Z',
        updated_at: '2025-06-06T15:00:00Z',
        published_at: '2025-06-06T15:00:00Z',
        description: richText('The design system is done; page templates are next.'),
      }
    : null;
  return {
    ...structuredClone(paused),
    id: `website-redesign-${shortId(uuid)}`,
    name: 'Website redesign',
    description: richText('A faster, clearer marketing site with the new pricing page.'),
    milestones: [],
    milestones_ordering_state: [],
    next_milestone: null,
    notifications: [],
    last_check_in: activeCheckIn,
    inserted_at: '2025-04-07T09:30:00Z',
  };
}

/** The paused, active and closed projects, as the resume examples have them before the resume. */
function seedProjects({ paused, closed }: Examples, active: Project): ProjectRow[] {
  return [
    projectRow(paused, { stored_status: 'paused', next_check_in_scheduled_at: '2025-06-06T00:00:00Z', updated_at: '2025-05-30T16:12:00Z' }),
    projectRow(active, { stored_status: 'active', next_check_in_scheduled_at: '2025-06-13T00:00:00Z', updated_at: '2025-06-06T15:00:00Z' }),
    projectRow(closed, {
      stored_status: 'closed',
      next_check_in_scheduled_at: '2025-05-09T00:00:00Z',
      updated_at: closed.closed_at ?? '2025-05-02T16:20:00Z',
    }),
  ];
}

/** The open goal (the achieved example before its close) and the closed one (the missed example), Carol commenting. */
function seedGoals({ paused, achieved, missed }: Examples, carol: string): GoalRow[] {
  return [
    goalRow({ ...achieved, retrospective: null }, carol, {
      closed_at: null,
      closed_by_uuid: null,
      success: null,
      success_status: null,
      updated_at: paused.goal?.updated_at ?? achieved.inserted_at ?? '',
    }),
    goalRow(missed, carol, {
      closed_at: missed.closed_at,
      closed_by_uuid: missed.closed_by ? uuidOf(missed.closed_by.id) : null,
      success: 'no',
      success_status: 'missed',
      updated_at: missed.updated_at ?? '',
    }),
  ];
}

/** Alice's unread notifications, as the paused project example lists them. */
function seedNotifications(paused: Project, alice: string): State['notifications'] {
  return (paused.notifications ?? []).map((n) => ({
    id: n.id,
    person_uuid: alice,
    activity_id: null,
    action: 'project_check_in_acknowledged',
    project_uuid: uuidOf(paused.id),
    goal_uuid: null,
    read: false,
    inserted_at: n.inserted_at,
  }));
}

/** The closed goal's close, so its retrospective is rebuilt from the activity like any later close. */
function addClosedGoalHistory(state: State, missed: Goal): void {
  const retrospective = missed.retrospective;
  if (!retrospective || !missed.closed_by) return;
  const activityId = uuidOf(retrospective.id);
  const threadId = uuidFor('closed goal thread');
  const listId = uuidFor('closed goal list');
  const message: unknown = JSON.parse(retrospective.content);
  if (!isObject(message)) throw new Error('the missed goal example retrospective is not a document');
  state.activities.push({
    id: activityId,
    action: 'goal_closing',
    author_uuid: uuidOf(missed.closed_by.id),
    project_uuid: null,
    goal_uuid: uuidOf(missed.id),
    content: { company_id: state.company.uuid, space_id: state.spaces[0]?.uuid, goal_id: uuidOf(missed.id), success: 'no', success_status: 'missed' },
    comment_thread_id: threadId,
    inserted_at: retrospective.inserted_at,
  });
  state.comment_threads.push({
    id: threadId,
    parent_type: 'activity',
    parent_id: activityId,
    message,
    subscription_list_id: listId,
    inserted_at: retrospective.inserted_at,
  });
  state.subscription_lists.push({ id: listId, parent_type: 'comment_thread', parent_id: threadId, send_to_everyone: true });
}

/** Each persona's token, raw (for the fixtures) and as the stored row (its hash, its person, read-only or not). */
function seedTokens({ alice, carol, dan, erin }: SeedPeople): { tokens: Fixtures['tokens']; rows: State['tokens'] } {
  const owners: Record<Persona, { person: string; readOnly: boolean }> = {
    full_access: { person: alice, readOnly: false },
    read_only: { person: alice, readOnly: true },
    comment_only: { person: carol, readOnly: false },
    no_access: { person: dan.uuid, readOnly: false },
    suspended: { person: erin.uuid, readOnly: false },
  };
  const tokens = Object.fromEntries(PERSONAS.map((persona) => [persona, tokenFor(persona)])) as Fixtures['tokens'];
  const rows = PERSONAS.map((persona) => ({
    persona,
    sha256: toHex(hashToken(tokens[persona])),
    person_uuid: owners[persona].person,
    read_only: owners[persona].readOnly,
  }));
  return { tokens, rows };
}

/** Builds a fresh default seed; every call returns new objects. */
export function defaultSeed(): Seed {
  const records = examples();
  const { paused, closed, achieved, missed } = records;
  if (!paused.space || !paused.url) throw new Error('the paused project example lacks a champion, reviewer, commenting contributor, space or url');
  const company = seedCompany(paused.url);
  const cast = seedPeople(paused);
  const { people, alice, bob, carol, dan, erin } = cast;
  const activeUuid = uuidFor('project website redesign');
  const state: State = {
    company,
    people,
    spaces: [{ uuid: uuidOf(paused.space.id), name: paused.space.name, member_uuids: [alice, bob, erin.uuid] }],
    projects: seedProjects(records, activeProject(paused, activeUuid)),
    goals: seedGoals(records, carol),
    tokens: [],
    activities: [],
    comment_threads: [],
    subscription_lists: [],
    subscriptions: [],
    notifications: seedNotifications(paused, alice),
  };
  addClosedGoalHistory(state, missed);
  const { tokens, rows } = seedTokens(cast);
  state.tokens.push(...rows);

  return {
    state,
    fixtures: {
      tokens,
      projects: { paused: uuidOf(paused.id), active: activeUuid, closed: uuidOf(closed.id) },
      goals: { open: uuidOf(achieved.id), closed: uuidOf(missed.id) },
      people: { full_access: alice, read_only: alice, comment_only: carol, no_access: dan.uuid, suspended: erin.uuid, reviewer: bob },
    },
  };
}
