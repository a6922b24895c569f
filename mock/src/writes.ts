// The two write operations with the real service's rules (RULES.md#state): what changes on the record,
// who is subscribed and who would be notified. A handler builds its write here and applies it with `store.apply`
// (store.ts), the store's one entry point, which holds no per-operation code. Everything is checked before anything
// changes, so a failure leaves the state as it was; the rows are then handed to the commit in the write's context,
// which keeps them and journals the write.
import { isObject } from '../../spec/lib/openapi.ts';
import type { OperationId, RequestBody } from '../../spec/lib/operations.ts';
import { accessLevel, editable, fail, personRow, type Outcome } from './access.ts';
import { decodeId } from './ids.ts';
import { ACCESS, isoSeconds, measureDocument, mentionedIds, nextWeeklyCheckIn } from './rules.ts';
import type { Principal } from './security.ts';
import type { ActivityRow, Goal, Project, State, SubscriptionRow } from './state.ts';
import { goalView, projectView } from './views.ts';

/** Decoded inputs (decode.ts): ids are UUIDs, rich text is the parsed document (not yet known to be an object). */
export type ResumeInputs = Omit<RequestBody<'resumeProject'>, 'message' | 'subscriber_ids'> & { message: unknown; subscriber_ids?: Array<string | null> };
export type CloseInputs = Omit<RequestBody<'closeGoal'>, 'retrospective' | 'subscriber_ids'> & {
  retrospective: unknown;
  subscriber_ids?: Array<string | null>;
};
/**
 * A table with exactly one entry per operation of the spec (generated/types.ts): one missing, or one the spec does not
 * have, is a compile error where the table is written (mock/test/writes.test-d.ts).
 */
export type ByOperation<T extends { [K in OperationId]: unknown } & { [K in Exclude<keyof T, OperationId>]: never }> = T;
/** Each operation's decoded inputs, keyed by operationId: complete by construction, so a new operation must add its own. */
export type OperationInputs = ByOperation<{ resumeProject: ResumeInputs; closeGoal: CloseInputs }>;

/** The deepest rich-text document the mock accepts; ProseMirror documents nest a handful of levels. */
const MAX_DOCUMENT_DEPTH = 1000;

/**
 * The longest `success` the real service stores: goals.success is an Ecto `:string` column, which Postgres keeps as
 * `varchar(255)` (app/priv/repo/migrations/20240509115125_add_success_to_goals.exs), counted in characters. A longer
 * one makes the goal update raise inside the operation's transaction, which Dispatch answers with its 500.
 */
export const MAX_SUCCESS_LENGTH = 255;

/** Characters as Postgres counts them (code points, not UTF-16 units), stopping once past `limit`. */
function longerThan(text: string, limit: number): boolean {
  if (text.length <= limit) return false;
  let count = 0;
  for (const _ of text) if (++count > limit) return true;
  return false;
}

/** A write's discussion: its comment thread, subscription list and subscriptions, built before anything is stored. */
export type Discussion = {
  threadId: string;
  listId: string;
  subscriptions: SubscriptionRow[];
  message: Record<string, unknown>;
  documentBytes: number;
  sendToEveryone: boolean;
  at: string;
};

/** What a write needs from the store: the state, the clock, new ids, and the commit that keeps its rows. */
export type WriteContext<E> = {
  state: State;
  now: Date;
  newId: () => string;
  /** The most a write's rich text may keep (the session's byte budget): a larger document is refused, not stored. */
  maxDocumentBytes: number;
  commit(discussion: Discussion, activity: ActivityRow, recipients: ReadonlyArray<string>, about: { project_uuid: string | null; goal_uuid: string | null }): E;
};

/** A write as the store applies it (Store.apply): given the store's context, its outcome. */
export type Write<E, T> = (ctx: WriteContext<E>) => T;

/**
 * Checks and builds the discussion of a write before anything is stored: the document must be a JSON object (the
 * thread's map column), every mention must decode, and every subscriber and mentioned person must exist (the
 * subscriptions' foreign key). Subscribers: mentioned ∪ caller ∪ subscriber_ids, each once; `invited` for the caller
 * and subscriber_ids, `mentioned` for the others.
 */
function prepareDiscussion(
  ctx: WriteContext<unknown>,
  principal: Principal,
  message: unknown,
  subscriberIds: ReadonlyArray<string | null>,
  sendToEveryone: boolean,
): Outcome<Discussion> {
  if (!isObject(message)) return fail('failed', 'the rich-text value is not a JSON object');
  // The mock stores and re-serializes the document; one nested past MAX_DOCUMENT_DEPTH is refused as a failed
  // operation before anything is stored (the real service's database also fails on absurdly deep JSON).
  const measured = measureDocument(message);
  if (measured.depth > MAX_DOCUMENT_DEPTH) return fail('failed', `the rich-text document nests deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  // The mock's own limit, not production's: a session keeps at most its byte budget, so one document larger than
  // that cannot be kept at all (mock/README.md, "Memory").
  if (measured.bytes > ctx.maxDocumentBytes)
    return fail('too_large', `the rich-text document would keep about ${measured.bytes} bytes; a session keeps at most ${ctx.maxDocumentBytes}`);
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
    if (!personRow(ctx.state, uuid)) return fail('failed', `no person ${uuid} (subscriptions_person_id_fkey)`);
  }
  const threadId = ctx.newId();
  const listId = ctx.newId();
  const subscriptions: SubscriptionRow[] = [];
  for (const uuid of new Set([...mentioned, ...invited])) {
    subscriptions.push({
      id: ctx.newId(),
      subscription_list_id: listId,
      person_uuid: uuid,
      type: invited.includes(uuid) ? 'invited' : 'mentioned',
      canceled: false,
    });
  }
  return { ok: true, value: { threadId, listId, subscriptions, message, documentBytes: measured.bytes, sendToEveryone, at: isoSeconds(ctx.now) } };
}

function visibleSubscribers(state: State, subscriptions: ReadonlyArray<SubscriptionRow>, author: string, canSee: (uuid: string) => boolean): string[] {
  return subscriptions
    .filter((s) => !s.canceled && s.person_uuid !== author && personRow(state, s.person_uuid)?.suspended === false && canSee(s.person_uuid))
    .map((s) => s.person_uuid);
}

/** ProjectResuming: no state precondition; status becomes active and the next check-in moves to the coming Friday. */
export const resumeProject =
  (principal: Principal, inputs: ResumeInputs) =>
  <E>(ctx: WriteContext<E>): Outcome<{ project: Project; event: E }> => {
    const { state, now } = ctx;
    const found = editable(state, state.projects, inputs.project_id, principal, 'project');
    if (!found.ok) return found;
    const project = found.value;
    const prepared = prepareDiscussion(ctx, principal, inputs.message, inputs.subscriber_ids ?? [], inputs.send_notifications_to_everyone ?? false);
    if (!prepared.ok) return prepared;

    project.stored_status = 'active';
    project.next_check_in_scheduled_at = nextWeeklyCheckIn(project.next_check_in_scheduled_at, now);
    // One timestamp string for every column the write sets (the history keeps it alive once, not three times).
    const at = prepared.value.at;
    project.updated_at = at;
    const activity: ActivityRow = {
      id: ctx.newId(),
      action: 'project_resuming',
      author_uuid: principal.personUuid,
      project_uuid: project.uuid,
      goal_uuid: null,
      content: { company_id: state.company.uuid, space_id: project.space_uuid, project_id: project.uuid },
      comment_thread_id: prepared.value.threadId,
      inserted_at: at,
    };
    // Recipients: subscribers who can see the project, never the author; "everyone" adds nobody for resume.
    const recipients = visibleSubscribers(
      state,
      prepared.value.subscriptions,
      principal.personUuid,
      (uuid) => accessLevel(state, uuid, project.access, project.space_uuid) >= ACCESS.view,
    );
    const event = ctx.commit(prepared.value, activity, recipients, { project_uuid: project.uuid, goal_uuid: null });
    return { ok: true, value: { project: projectView(state, now, project, principal.personUuid, { nestGoal: true }), event } };
  };

/** GoalClosing: no state precondition; records the outcome and the closer, overwriting an earlier close. */
export const closeGoal =
  (principal: Principal, inputs: CloseInputs) =>
  <E>(ctx: WriteContext<E>): Outcome<{ goal: Goal; event: E }> => {
    const { state, now } = ctx;
    const found = editable(state, state.goals, inputs.goal_id, principal, 'goal');
    if (!found.ok) return found;
    const goal = found.value;
    // The activity content requires `success`; Ecto treats a blank string as missing, so the insert fails.
    if (inputs.success.trim() === '') return fail('failed', 'success is blank');
    if (longerThan(inputs.success, MAX_SUCCESS_LENGTH))
      return fail('failed', `success is longer than ${MAX_SUCCESS_LENGTH} characters (goals.success is varchar(255))`);
    const everyone = inputs.send_notifications_to_everyone ?? false;
    const prepared = prepareDiscussion(ctx, principal, inputs.retrospective, inputs.subscriber_ids ?? [], everyone);
    if (!prepared.ok) return prepared;

    const at = prepared.value.at;
    goal.closed_at = at;
    goal.closed_by_uuid = principal.personUuid;
    goal.success = inputs.success;
    goal.success_status = inputs.success_status;
    goal.updated_at = at;
    const activity: ActivityRow = {
      id: ctx.newId(),
      action: 'goal_closing',
      author_uuid: principal.personUuid,
      project_uuid: null,
      goal_uuid: goal.uuid,
      content: {
        company_id: state.company.uuid,
        space_id: goal.space_uuid,
        goal_id: goal.uuid,
        success: inputs.success,
        success_status: inputs.success_status,
      },
      comment_thread_id: prepared.value.threadId,
      inserted_at: at,
    };
    // Recipients: with "everyone", every member of the goal's space, plus subscribers who can see the goal; never
    // the author. The real job inner-joins the space members, so a space without members notifies nobody.
    const space = state.spaces.find((s) => s.uuid === goal.space_uuid);
    const members = space?.member_uuids ?? [];
    const canSee = (uuid: string): boolean => accessLevel(state, uuid, goal.access, goal.space_uuid) >= ACCESS.view;
    let recipients: string[] = [];
    if (members.length > 0) {
      const fromSubscribers = visibleSubscribers(state, prepared.value.subscriptions, principal.personUuid, canSee);
      const fromSpace = everyone ? members.filter((uuid) => uuid !== principal.personUuid && personRow(state, uuid)?.suspended === false) : [];
      recipients = [...new Set([...fromSpace, ...fromSubscribers])];
    }
    const event = ctx.commit(prepared.value, activity, recipients, { project_uuid: null, goal_uuid: goal.uuid });
    return { ok: true, value: { goal: goalView(state, now, goal, principal.personUuid, { nestProjects: true }), event } };
  };
