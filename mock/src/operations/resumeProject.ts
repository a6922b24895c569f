// POST /api/external/v1/projects/resume (RULES.md#decision-3; RULES.md#state-resume): its decoded inputs, its write
// and its handler, the one module the operation has in the mock (its entry in index.ts aside).
import type { RequestBody } from '../../../spec/lib/operations.ts';
import { editable, type Outcome } from '../domain/access.ts';
import { nextWeeklyCheckIn } from '../domain/rules.ts';
import type { Principal } from '../domain/security.ts';
import type { ActivityRow, Project } from '../domain/state.ts';
import { projectView } from '../domain/views.ts';
import { prepareDiscussion, recipientsOf, type WriteContext } from '../domain/writes.ts';
import { outcomeReply } from './outcome.ts';
import type { Handler, SuccessBody } from './types.ts';

/** Decoded inputs (decode.ts): ids are UUIDs, rich text is the parsed document (not yet known to be an object). */
export type ResumeInputs = Omit<RequestBody<'resumeProject'>, 'message' | 'subscriber_ids'> & { message: unknown; subscriber_ids?: Array<string | null> };

/** ProjectResuming: no state precondition; status becomes active and the next check-in moves to the coming Friday. */
export const resumeProjectWrite =
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
    // Subscribers only: "everyone" adds nobody for resume (the project-resuming job notifies the subscribers).
    const recipients = recipientsOf(state, prepared.value, principal.personUuid, project, false);
    const event = ctx.commit(prepared.value, activity, recipients, { project_uuid: project.uuid, goal_uuid: null });
    return { ok: true, value: { project: projectView(state, now, project, principal.personUuid, { nestGoal: true }), event } };
  };

export const resumeProject: Handler<ResumeInputs> = ({ principal, inputs, store }) =>
  outcomeReply(store.apply(resumeProjectWrite(principal, inputs)), (value): SuccessBody<'resumeProject'> => ({ project: value.project }));
