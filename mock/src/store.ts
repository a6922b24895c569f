// The store: one state and the two write operations with the real service's rules (domain-and-shapes.md §3–4).
// It knows nothing of HTTP: operations answer with a value or a reason (not_found, forbidden, failed).
import { isObject } from '../../spec/lib/openapi.ts';
import { decodeId, newUuid, shortId, slugId } from './ids.ts';
import { ACCESS, goalOutdated, goalStatus, isoSeconds, mentionedIds, nestingDepth, nextWeeklyCheckIn, permissionsFor, privacyOf, projectOutdated, projectState, projectStatus, type GoalFacts, type ProjectFacts } from './rules.ts';
import { findToken, type Principal, type TokenRecord } from './security.ts';
import type { Access, ActivityRow, Goal, GoalRow, NotificationRow, Person, PersonRow, Project, ProjectRow, State, SubscriptionRow } from './state.ts';

export type Outcome<T> = { ok: true; value: T } | { ok: false; reason: 'not_found' | 'forbidden' | 'failed'; detail: string };

/** Decoded inputs: ids are UUIDs, rich text is the parsed document (not yet known to be an object). */
export type ResumeInputs = { project_id: string; message: unknown; send_notifications_to_everyone?: boolean | null; subscriber_ids?: Array<string | null> };
export type CloseInputs = {
  goal_id: string;
  success: string;
  retrospective: unknown;
  success_status: 'achieved' | 'missed';
  send_notifications_to_everyone?: boolean | null;
  subscriber_ids?: Array<string | null>;
};

/** One write's side effects, as the event journal reports them. */
export type WriteEvent = { seq: number; at: string; activity: ActivityRow; subscriptions: SubscriptionRow[]; recipients: string[]; send_to_everyone: boolean };

/** The event journal keeps this many writes per store; older ones are dropped first. */
export const EVENT_JOURNAL_LIMIT = 1000;

export type StoreOptions = {
  now: () => Date;
  newId?: () => string;
  /** Rows kept per history table (activities, threads, lists, subscriptions, notifications), give or take a tenth; the oldest go first. */
  historyLimit?: number;
};

/** The deepest rich-text document the mock accepts; ProseMirror documents nest a handful of levels. */
export const MAX_DOCUMENT_DEPTH = 1000;

/** A long-running shared mock keeps this many rows per history table, so its memory stays flat under load. */
export const HISTORY_LIMIT = 5000;

function fail(reason: 'not_found' | 'forbidden' | 'failed', detail: string): { ok: false; reason: typeof reason; detail: string } {
  return { ok: false, reason, detail };
}

export class Store {
  readonly state: State;
  /** The writes since this store was created, oldest first, at most EVENT_JOURNAL_LIMIT. */
  readonly events: WriteEvent[] = [];
  #seq = 0;
  readonly #now: () => Date;
  readonly #newId: () => string;
  readonly #historyLimit: number;
  /** The token hashes as buffers, rebuilt only when the token table is replaced. */
  #tokenRecords: { source: State['tokens']; records: TokenRecord[] } | undefined;

  constructor(state: State, options: StoreOptions) {
    this.state = state;
    this.#now = options.now;
    this.#newId = options.newId ?? newUuid;
    this.#historyLimit = options.historyLimit ?? HISTORY_LIMIT;
  }

  // ── who ────────────────────────────────────────────────────────────────────────────────────────────────────────

  /** The token's person, if the token exists and its person may act (not suspended; People.authenticate_api_token). */
  authenticate(rawToken: string): Principal | undefined {
    if (this.#tokenRecords?.source !== this.state.tokens || this.#tokenRecords.records.length !== this.state.tokens.length) {
      this.#tokenRecords = { source: this.state.tokens, records: this.state.tokens.map((t) => ({ hash: Buffer.from(t.sha256, 'hex'), personUuid: t.person_uuid, readOnly: t.read_only })) };
    }
    const record = findToken(this.#tokenRecords.records, rawToken);
    if (!record) return undefined;
    const person = this.#person(record.personUuid);
    if (!person || person.suspended) return undefined;
    return { personUuid: record.personUuid, readOnly: record.readOnly };
  }

  #person(uuid: string): PersonRow | undefined {
    return this.state.people.find((p) => p.uuid === uuid);
  }

  /** The highest binding the person has on a record (Repo.Getter: max over the person's access groups). */
  accessLevel(personUuid: string, access: Access, spaceUuid: string): number {
    const person = this.#person(personUuid);
    if (!person) return ACCESS.none;
    const space = this.state.spaces.find((s) => s.uuid === spaceUuid);
    const levels = [access.company, access.people[personUuid] ?? ACCESS.none];
    if (person.company_admin) levels.push(ACCESS.full);
    if (space?.member_uuids.includes(personUuid)) levels.push(access.space);
    return Math.max(...levels);
  }

  // ── the operations ─────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * The record the caller may edit: not found (or archived, or invisible: under view access) comes before forbidden
   * (visible without edit access, or a billing read-only company), as in the real handlers.
   */
  #editable<R extends { uuid: string; deleted_at: string | null; access: Access; space_uuid: string }>(rows: ReadonlyArray<R>, uuid: string, principal: Principal, what: string): Outcome<R> {
    const record = rows.find((r) => r.uuid === uuid && !r.deleted_at);
    if (!record) return fail('not_found', `no such ${what}`);
    const level = this.accessLevel(principal.personUuid, record.access, record.space_uuid);
    if (level < ACCESS.view) return fail('not_found', `the caller cannot see the ${what}`);
    if (!permissionsFor(level, this.state.company.billing_read_only).can_edit) return fail('forbidden', `the caller cannot edit the ${what}`);
    return { ok: true, value: record };
  }

  /** ProjectResuming: no state precondition; status becomes active and the next check-in moves to the coming Friday. */
  resumeProject(principal: Principal, inputs: ResumeInputs): Outcome<{ project: Project; event: WriteEvent }> {
    const found = this.#editable(this.state.projects, inputs.project_id, principal, 'project');
    if (!found.ok) return found;
    const project = found.value;

    const now = this.#now();
    const prepared = this.#prepareDiscussion(principal, inputs.message, inputs.subscriber_ids ?? [], inputs.send_notifications_to_everyone ?? false, now);
    if (!prepared.ok) return prepared;

    project.stored_status = 'active';
    project.next_check_in_scheduled_at = nextWeeklyCheckIn(project.next_check_in_scheduled_at, now);
    project.updated_at = isoSeconds(now);
    const activity: ActivityRow = {
      id: this.#newId(),
      action: 'project_resuming',
      author_uuid: principal.personUuid,
      project_uuid: project.uuid,
      goal_uuid: null,
      content: { company_id: this.state.company.uuid, space_id: project.space_uuid, project_id: project.uuid },
      comment_thread_id: prepared.value.threadId,
      inserted_at: isoSeconds(now),
    };
    // Recipients: subscribers who can see the project, never the author; "everyone" adds nobody for resume.
    const recipients = this.#visibleSubscribers(prepared.value.subscriptions, principal.personUuid, (uuid) => this.accessLevel(uuid, project.access, project.space_uuid) >= ACCESS.view);
    const event = this.#commit(prepared.value, activity, recipients, { project_uuid: project.uuid, goal_uuid: null });
    return { ok: true, value: { project: this.serializeProject(project, principal.personUuid, { nestGoal: true }), event } };
  }

  /** GoalClosing: no state precondition; records the outcome and the closer, overwriting an earlier close. */
  closeGoal(principal: Principal, inputs: CloseInputs): Outcome<{ goal: Goal; event: WriteEvent }> {
    const found = this.#editable(this.state.goals, inputs.goal_id, principal, 'goal');
    if (!found.ok) return found;
    const goal = found.value;
    // The activity content requires `success`; Ecto treats a blank string as missing, so the insert fails.
    if (inputs.success.trim() === '') return fail('failed', 'success is blank');

    const now = this.#now();
    const everyone = inputs.send_notifications_to_everyone ?? false;
    const prepared = this.#prepareDiscussion(principal, inputs.retrospective, inputs.subscriber_ids ?? [], everyone, now);
    if (!prepared.ok) return prepared;

    goal.closed_at = isoSeconds(now);
    goal.closed_by_uuid = principal.personUuid;
    goal.success = inputs.success;
    goal.success_status = inputs.success_status;
    goal.updated_at = isoSeconds(now);
    const activity: ActivityRow = {
      id: this.#newId(),
      action: 'goal_closing',
      author_uuid: principal.personUuid,
      project_uuid: null,
      goal_uuid: goal.uuid,
      content: { company_id: this.state.company.uuid, space_id: goal.space_uuid, goal_id: goal.uuid, success: inputs.success, success_status: inputs.success_status },
      comment_thread_id: prepared.value.threadId,
      inserted_at: isoSeconds(now),
    };
    // Recipients: with "everyone", every member of the goal's space, plus subscribers who can see the goal; never
    // the author. The real job inner-joins the space members, so a space without members notifies nobody.
    const space = this.state.spaces.find((s) => s.uuid === goal.space_uuid);
    const members = space?.member_uuids ?? [];
    const canSee = (uuid: string): boolean => this.accessLevel(uuid, goal.access, goal.space_uuid) >= ACCESS.view;
    let recipients: string[] = [];
    if (members.length > 0) {
      const fromSubscribers = this.#visibleSubscribers(prepared.value.subscriptions, principal.personUuid, canSee);
      const fromSpace = everyone ? members.filter((uuid) => uuid !== principal.personUuid && this.#person(uuid)?.suspended === false) : [];
      recipients = [...new Set([...fromSpace, ...fromSubscribers])];
    }
    const event = this.#commit(prepared.value, activity, recipients, { project_uuid: null, goal_uuid: goal.uuid });
    return { ok: true, value: { goal: this.serializeGoal(goal, principal.personUuid, { nestProjects: true }), event } };
  }

  // ── shared parts of a write ────────────────────────────────────────────────────────────────────────────────────

  /**
   * Checks and builds the discussion of a write before anything is stored, so a failure leaves the state as it was:
   * the document must be a JSON object (the thread's map column), every mention must decode, and every subscriber
   * and mentioned person must exist (the subscriptions' foreign key). Subscribers: mentioned ∪ caller ∪
   * subscriber_ids, each once; `invited` for the caller and subscriber_ids, `mentioned` for the others.
   */
  #prepareDiscussion(principal: Principal, message: unknown, subscriberIds: ReadonlyArray<string | null>, sendToEveryone: boolean, now: Date): Outcome<Discussion> {
    if (!isObject(message)) return fail('failed', 'the rich-text value is not a JSON object');
    // The mock stores and re-serializes the document; one nested past MAX_DOCUMENT_DEPTH is refused as a failed
    // operation before anything is stored (the real service's database also fails on absurdly deep JSON).
    if (nestingDepth(message) > MAX_DOCUMENT_DEPTH) return fail('failed', `the rich-text document nests deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    const mentioned: string[] = [];
    for (const id of mentionedIds(message)) {
      const decoded = decodeId(id);
      if (decoded.kind !== 'uuid') return fail('failed', 'a mention id cannot be decoded');
      mentioned.push(decoded.uuid);
    }
    const invited: string[] = [principal.personUuid];
    for (const id of subscriberIds) {
      if (id === null) return fail('failed', 'subscriber_ids holds null');
      invited.push(id);
    }
    for (const uuid of [...mentioned, ...invited]) {
      if (!this.#person(uuid)) return fail('failed', `no person ${uuid} (subscriptions_person_id_fkey)`);
    }
    const threadId = this.#newId();
    const listId = this.#newId();
    const subscriptions: SubscriptionRow[] = [];
    for (const uuid of new Set([...mentioned, ...invited])) {
      subscriptions.push({ id: this.#newId(), subscription_list_id: listId, person_uuid: uuid, type: invited.includes(uuid) ? 'invited' : 'mentioned', canceled: false });
    }
    return { ok: true, value: { threadId, listId, subscriptions, message, sendToEveryone, at: isoSeconds(now) } };
  }

  #visibleSubscribers(subscriptions: ReadonlyArray<SubscriptionRow>, author: string, canSee: (uuid: string) => boolean): string[] {
    return subscriptions
      .filter((s) => !s.canceled && s.person_uuid !== author && this.#person(s.person_uuid)?.suspended === false && canSee(s.person_uuid))
      .map((s) => s.person_uuid);
  }

  #commit(discussion: Discussion, activity: ActivityRow, recipients: ReadonlyArray<string>, about: { project_uuid: string | null; goal_uuid: string | null }): WriteEvent {
    const s = this.state;
    s.subscription_lists.push({ id: discussion.listId, parent_type: 'comment_thread', parent_id: discussion.threadId, send_to_everyone: discussion.sendToEveryone });
    s.subscriptions.push(...discussion.subscriptions);
    s.activities.push(activity);
    s.comment_threads.push({ id: discussion.threadId, parent_type: 'activity', parent_id: activity.id, message: discussion.message, subscription_list_id: discussion.listId, inserted_at: discussion.at });
    const notifications: NotificationRow[] = recipients.map((uuid) => ({ id: this.#newId(), person_uuid: uuid, activity_id: activity.id, action: activity.action, ...about, read: false, inserted_at: discussion.at }));
    s.notifications.push(...notifications);
    const event: WriteEvent = { seq: ++this.#seq, at: discussion.at, activity, subscriptions: discussion.subscriptions, recipients: [...recipients], send_to_everyone: discussion.sendToEveryone };
    this.events.push(event);
    if (this.events.length > EVENT_JOURNAL_LIMIT) this.events.splice(0, this.events.length - EVENT_JOURNAL_LIMIT);
    // Trimmed in batches of a tenth of the limit, so a busy store does not move its arrays on every write.
    const slack = Math.ceil(this.#historyLimit / 10);
    for (const table of [s.activities, s.comment_threads, s.subscription_lists, s.subscriptions, s.notifications]) {
      if (table.length > this.#historyLimit + slack) table.splice(0, table.length - this.#historyLimit);
    }
    return event;
  }

  // ── serialization: rows and templates to the spec's objects ────────────────────────────────────────────────────

  person(uuid: string | null): Person | null {
    const row = uuid ? this.#person(uuid) : undefined;
    if (!row) return null;
    return { __typename: 'person', id: slugId(row.full_name, row.uuid), full_name: row.full_name, title: row.title, avatar_url: row.avatar_url, email: row.email, type: row.type };
  }

  #space(uuid: string): Project['space'] {
    const space = this.state.spaces.find((s) => s.uuid === uuid);
    return space ? { __typename: 'space', id: slugId(space.name, space.uuid), name: space.name } : null;
  }

  #url(kind: 'projects' | 'goals', id: string): string {
    return `${this.state.company.app_origin}/${this.state.company.id}/${kind}/${id}`;
  }

  #projectFacts(p: ProjectRow): ProjectFacts {
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

  #goalFacts(g: GoalRow): GoalFacts {
    return {
      closed_at: g.closed_at,
      success: g.success,
      success_status: g.success_status,
      next_update_scheduled_at: g.next_update_scheduled_at,
      deleted_at: g.deleted_at,
      last_check_in_status: g.template.last_check_in?.status ?? null,
    };
  }

  #unread(personUuid: string, about: { project_uuid?: string; goal_uuid?: string }): NonNullable<Project['notifications']> {
    return this.state.notifications
      .filter((n) => n.person_uuid === personUuid && !n.read && (about.project_uuid ? n.project_uuid === about.project_uuid : n.goal_uuid === about.goal_uuid))
      .filter((n) => about.project_uuid !== undefined || GOAL_NOTIFICATION_ACTIONS.has(n.action))
      .map((n) => ({ __typename: 'notification', id: n.id, read: false, read_at: null, inserted_at: n.inserted_at }));
  }

  /** A project as the caller sees it: every field of the contract, computed fields by the real rules. */
  serializeProject(p: ProjectRow, callerUuid: string, options: { nestGoal: boolean }): Project {
    const now = this.#now();
    const facts = this.#projectFacts(p);
    const goal = options.nestGoal && p.goal_uuid ? this.state.goals.find((g) => g.uuid === p.goal_uuid && !g.deleted_at) : undefined;
    const id = slugId(p.name, p.uuid);
    // Templates are never mutated after the seed, and responses are only serialized: share them, do not copy them.
    return {
      ...p.template,
      __typename: 'project',
      id,
      name: p.name,
      space_id: shortId(p.space_uuid),
      space: this.#space(p.space_uuid),
      goal_id: p.goal_uuid ? shortId(p.goal_uuid) : null,
      goal: goal ? this.#essentialGoal(goal) : null,
      state: projectState(facts),
      status: projectStatus(facts, now),
      success_status: p.success_status ?? 'nil',
      closed_at: p.closed_at,
      next_check_in_scheduled_at: p.next_check_in_scheduled_at,
      is_outdated: projectOutdated(facts, now),
      is_archived: p.deleted_at !== null,
      inserted_at: p.inserted_at,
      updated_at: p.updated_at,
      champion: this.person(p.champion_uuid),
      reviewer: this.person(p.reviewer_uuid),
      access_levels: { __typename: 'access_levels', public: p.access.public, company: p.access.company, space: p.access.space },
      privacy: privacyOf(p.access),
      permissions: { __typename: 'project_permissions', ...permissionsFor(this.accessLevel(callerUuid, p.access, p.space_uuid), this.state.company.billing_read_only) },
      notifications: this.#unread(callerUuid, { project_uuid: p.uuid }),
      url: this.#url('projects', id),
    };
  }

  /** The goal as the real close response writes it (essential level), used where a project nests its goal. */
  #essentialGoal(g: GoalRow): Goal {
    const facts = this.#goalFacts(g);
    const now = this.#now();
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
  serializeGoal(g: GoalRow, callerUuid: string, options: { nestProjects: boolean }): Goal {
    const closing = this.state.activities.findLast((a) => a.action === 'goal_closing' && a.goal_uuid === g.uuid);
    const thread = closing ? this.state.comment_threads.findLast((t) => t.id === closing.comment_thread_id) : undefined;
    const author = closing ? this.person(closing.author_uuid) : null;
    const id = slugId(g.name, g.uuid);
    return {
      ...g.template,
      ...this.#essentialGoal(g),
      closed_by: this.person(g.closed_by_uuid),
      champion: this.person(g.champion_uuid),
      reviewer: this.person(g.reviewer_uuid),
      space: this.#space(g.space_uuid),
      targets: g.template.targets,
      access_levels: { __typename: 'access_levels', public: g.access.public, company: g.access.company, space: g.access.space },
      privacy: privacyOf(g.access),
      permissions: { __typename: 'goal_permissions', ...permissionsFor(this.accessLevel(callerUuid, g.access, g.space_uuid), this.state.company.billing_read_only) },
      notifications: this.#unread(callerUuid, { goal_uuid: g.uuid }),
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
      projects: options.nestProjects ? this.state.projects.filter((p) => p.goal_uuid === g.uuid && !p.deleted_at).map((p) => this.serializeProject(p, callerUuid, { nestGoal: false })) : [],
      url: this.#url('goals', id),
    };
  }
}

type Discussion = {
  threadId: string;
  listId: string;
  subscriptions: SubscriptionRow[];
  message: Record<string, unknown>;
  sendToEveryone: boolean;
  at: string;
};

/** A goal lists unread notifications of these actions only; closing is not one (UnreadNotificationsLoader). */
const GOAL_NOTIFICATION_ACTIONS = new Set(['goal_created', 'goal_editing', 'goal_archived']);
