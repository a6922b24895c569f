// POST /api/external/v1/goals/close (RULES.md#decision-3; RULES.md#state-close): its decoded inputs, its write and
// its handler, the one module the operation has in the mock (its entry in index.ts aside).
import type { RequestBody } from '../../../spec/lib/operations.ts';
import { editable, fail, type Outcome } from '../domain/access.ts';
import type { Principal } from '../domain/security.ts';
import type { ActivityRow, Goal } from '../domain/state.ts';
import { goalView } from '../domain/views.ts';
import { prepareDiscussion, recipientsOf, type WriteContext } from '../domain/writes.ts';
import { outcomeReply } from './outcome.ts';
import type { Handler, SuccessBody } from './types.ts';

/** Decoded inputs (decode.ts): ids are UUIDs, rich text is the parsed document (not yet known to be an object). */
export type CloseInputs = Omit<RequestBody<'closeGoal'>, 'retrospective' | 'subscriber_ids'> & {
  retrospective: unknown;
  subscriber_ids?: Array<string | null>;
};

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

/** GoalClosing: no state precondition; records the outcome and the closer, overwriting an earlier close. */
const closeGoalWrite =
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
    // With "everyone", every member of the goal's space is notified too (the goal-closing job covers the space).
    const recipients = recipientsOf(state, prepared.value, principal.personUuid, goal, true);
    const event = ctx.commit(prepared.value, activity, recipients, { project_uuid: null, goal_uuid: goal.uuid });
    return { ok: true, value: { goal: goalView(state, now, goal, principal.personUuid, { nestProjects: true }), event } };
  };

export const closeGoal: Handler<CloseInputs> = ({ principal, inputs, store }) =>
  outcomeReply(store.apply(closeGoalWrite(principal, inputs)), (value): SuccessBody<'closeGoal'> => ({ goal: value.goal }));
