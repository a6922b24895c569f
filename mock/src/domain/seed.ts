// The default seed, built from the spec's examples so the mock's data and the docs' examples are the same data:
// the paused and closed projects are the records of the resume examples before the resume, the open and closed goals
// those of the close examples. A company, the personas (mock/openapi.yaml's persona table, generated/mock-fixtures.ts)
// with their people, bindings and tokens complete it: each persona's part is derived from its row, never written here.
import { PERSONA_PEOPLE, PERSONA_RIGHTS } from '../../../generated/mock-fixtures.ts';
import { isObject, type JsonObject } from '../../../spec/lib/openapi.ts';
import { operationModels, responseExamples } from '../../../spec/lib/operations.ts';
import type { Schemas } from '../../../spec/lib/schemas.ts';
import { sha256, toBase64Url, toHex } from './digest.ts';
import { decodeId, datedId, shortId, slugId } from './ids.ts';
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
 * The records of the spec's success examples: every operation's 200 examples (spec/lib/operations.ts), each the record
 * under its answer's key (`project`, `goal`), so no example is named here. The examples are validated against these
 * very schemas by Redocly lint (no-invalid-media-type-examples) and by spec/test/examples.test.ts, so they are trusted
 * here rather than validated again at every start (that would add ~300 ms of schema compilation to the cold start).
 */
function successExamples(): Array<{ key: string; record: JsonObject; source: string }> {
  return operationModels().flatMap((model) =>
    responseExamples(model)
      .filter((e) => e.status === 200 && isObject(e.value))
      .flatMap((e) =>
        Object.entries(isObject(e.value) ? e.value : {}).flatMap(([key, record]) =>
          isObject(record) ? [{ key, record, source: `${model.operationId} ${e.name ?? 'example'}` }] : [],
        ),
      ),
  );
}

/** The one success example of a `key` record that `is` picks; an error naming the candidates otherwise. */
function exampleOf<K extends 'Project' | 'Goal'>(_schema: K, key: string, what: string, is: (record: JsonObject) => boolean): Schemas[K] {
  const candidates = successExamples().filter((e) => e.key === key);
  const found = candidates.filter((e) => is(e.record));
  if (found.length !== 1)
    throw new Error(`the spec's 200 examples need exactly one ${what}; found ${found.length} among ${candidates.map((c) => c.source).join(', ') || 'none'}`);
  return found[0]?.record as Schemas[K];
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

function goalRow(template: Goal, viewers: string[], row: Pick<GoalRow, 'closed_at' | 'closed_by_uuid' | 'success' | 'success_status' | 'updated_at'>): GoalRow {
  const people: Access['people'] = Object.fromEntries(viewers.map((uuid) => [uuid, VIEW]));
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

/**
 * The resume answers: the project still closed is the closed one, the other the paused one; the close answers: the
 * achieved goal is the open one (before its close), the missed one the closed one.
 */
function examples(): Examples {
  const closed = (record: JsonObject): boolean => record['closed_at'] !== null && record['closed_at'] !== undefined;
  return {
    paused: exampleOf('Project', 'project', 'project that is not closed (the paused one, resumed)', (r) => !closed(r)),
    closed: exampleOf('Project', 'project', 'closed project (resumed, still closed)', closed),
    achieved: exampleOf('Goal', 'goal', 'goal closed as a success (the open one, closed)', (r) => r['success'] === true),
    missed: exampleOf('Goal', 'goal', 'goal closed as missed (the closed one)', (r) => r['success'] === false),
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

/**
 * The people of the seed: the paused project's champion, reviewer and commenter, then each persona's person the examples
 * lack (PERSONA_PEOPLE); `of` is each persona's person. A person of a `refused` persona is suspended.
 */
type Cast = { people: PersonRow[]; champion: string; reviewer: string; fromExamples: string[]; of: (persona: Persona) => PersonRow };

/** The comment access level: a `view` persona's binding (RULES.md#decision-3: view ≥ 10, edit ≥ 70). */
const VIEW = 40;

/** A person of the mock's own, named after their first name (`Dan Miller`: dan-miller-…, dan@northwind.example). */
function ownPerson(fullName: string, title: string): PersonRow {
  const first = (fullName.split(' ')[0] ?? fullName).toLowerCase();
  const slug = fullName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return personRow({
    id: `${slug}-${shortId(uuidFor(first))}`,
    full_name: fullName,
    title,
    email: `${first}@northwind.example`,
    type: 'human',
    avatar_url: null,
  });
}

function seedPeople(paused: Project): Cast {
  const { champion, reviewer } = paused;
  const commenter = paused.contributors?.find((c) => c.access_level === VIEW)?.person;
  if (!champion || !reviewer || !commenter) throw new Error('the paused project example lacks a champion, reviewer, commenting contributor, space or url');
  const people = [personRow(champion), personRow(reviewer), personRow(commenter)];
  const fromExamples = people.map((p) => p.uuid);
  const persons = new Map<Persona, PersonRow>();
  for (const persona of PERSONAS) {
    const { full_name, title } = PERSONA_PEOPLE[persona];
    let person = people.find((p) => p.full_name === full_name);
    if (!person) {
      if (title === undefined) throw new Error(`persona ${persona}: ${full_name} is in no example; give a title in its x-persona (mock/openapi.yaml)`);
      person = ownPerson(full_name, title);
      people.push(person);
    }
    if (PERSONA_RIGHTS[persona].token === 'refused') person.suspended = true;
    persons.set(persona, person);
  }
  const of = (persona: Persona): PersonRow => {
    const person = persons.get(persona);
    if (!person) throw new Error(`unreachable: persona ${persona} has no person`);
    return person;
  };
  return { people, champion: uuidOf(champion.id), reviewer: uuidOf(reviewer.id), fromExamples, of };
}

/** The distinct people of the personas whose records right is `records`, in the table's order. */
function peopleWith(cast: Cast, records: 'edit' | 'view'): string[] {
  return [...new Set(PERSONAS.filter((p) => PERSONA_RIGHTS[p].records === records).map((p) => cast.of(p).uuid))];
}

/**
 * Binds each `view` persona's person at the comment level on the projects where nobody bound them: a person of the
 * mock's own sees every project. The examples' people keep the examples' bindings (the commenter is a contributor of
 * the paused project, and so of the active one, but not of the closed one, which comment_only therefore cannot see).
 */
function bindViewers(projects: ProjectRow[], cast: Cast): void {
  for (const uuid of peopleWith(cast, 'view').filter((u) => !cast.fromExamples.includes(u))) {
    for (const project of projects) project.access.people[uuid] ??= VIEW;
  }
}

/**
 * The nested rows a project owns, renumbered for `owner` (a project built from another's shape): production gives every
 * project its own contributor rows, subscription list and subscriptions, resource hub and task statuses (§4.3, §5
 * `project_contributor`), so no id of them is another project's. Each id is stable (derived from `owner` and its place).
 */
function ownRows(project: Project, owner: string): Project {
  const id = (what: string): string => uuidFor(`${owner} ${what}`);
  const contributors = project.contributors?.map((c, i) => ({ ...c, id: shortId(id(`contributor ${i}`)) })) ?? null;
  const list = project.subscription_list;
  const subscriptionList = list
    ? {
        ...list,
        id: shortId(id('subscription list')),
        subscriptions: list.subscriptions?.map((s, i) => ({ ...s, id: shortId(id(`subscription ${i}`)) })) ?? null,
      }
    : null;
  const hub = project.resource_hub;
  const resourceHub = hub ? { ...hub, id: slugId(hub.name, id('resource hub')) } : null;
  const taskStatuses = project.task_statuses?.map((t, i) => ({ ...t, id: id(`task status ${i}`) })) ?? null;
  return { ...project, contributors, subscription_list: subscriptionList, resource_hub: resourceHub, task_statuses: taskStatuses };
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
        acknowledged_at: '2025-06-09T08:30:00Z',
        description: richText('The design system is done; page templates are next.'),
      }
    : null;
  return {
    ...ownRows(structuredClone(paused), 'project website redesign'),
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

/** The open goal (the achieved example before its close) and the closed one (the missed example), `viewers` commenting. */
function seedGoals({ paused, achieved, missed }: Examples, viewers: string[]): GoalRow[] {
  return [
    goalRow({ ...achieved, retrospective: null }, viewers, {
      closed_at: null,
      closed_by_uuid: null,
      success: null,
      success_status: null,
      updated_at: paused.goal?.updated_at ?? achieved.inserted_at ?? '',
    }),
    goalRow(missed, viewers, {
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
function seedTokens(cast: Cast): { tokens: Fixtures['tokens']; rows: State['tokens'] } {
  const tokens = Object.fromEntries(PERSONAS.map((persona) => [persona, tokenFor(persona)])) as Fixtures['tokens'];
  const rows = PERSONAS.map((persona) => ({
    persona,
    sha256: toHex(hashToken(tokens[persona])),
    person_uuid: cast.of(persona).uuid,
    read_only: PERSONA_RIGHTS[persona].token === 'read-only',
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
  const { people, champion, reviewer } = cast;
  const activeUuid = uuidFor('project website redesign');
  // The space's level on every record is edit: its members are the champion, the reviewer and each `edit` persona's person.
  const members = [...new Set([champion, reviewer, ...peopleWith(cast, 'edit')])];
  const projects = seedProjects(records, activeProject(paused, activeUuid));
  bindViewers(projects, cast);
  const state: State = {
    company,
    people,
    spaces: [{ uuid: uuidOf(paused.space.id), name: paused.space.name, member_uuids: members }],
    projects,
    goals: seedGoals(records, peopleWith(cast, 'view')),
    tokens: [],
    activities: [],
    comment_threads: [],
    subscription_lists: [],
    subscriptions: [],
    notifications: seedNotifications(paused, champion),
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
      people: { ...Object.fromEntries(PERSONAS.map((persona) => [persona, cast.of(persona).uuid])), reviewer },
    },
  };
}
