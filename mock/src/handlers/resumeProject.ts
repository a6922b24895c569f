// POST /api/external/v1/projects/resume (RULES.md#decision-3; RULES.md#state-resume).
import * as errors from '../errors.ts';
import type { Handler, SuccessBody } from './types.ts';
import { outcomeReply, idList, optionalBoolean, requiredString } from './inputs.ts';

export const resumeProject: Handler = ({ principal, inputs, store }) => {
  const projectId = requiredString(inputs, 'project_id');
  if (projectId === undefined) return errors.MOCK_RESPONSE_INVALID(['project_id was not decoded']);
  const outcome = store.resumeProject(principal, {
    project_id: projectId,
    message: inputs['message'],
    send_notifications_to_everyone: optionalBoolean(inputs, 'send_notifications_to_everyone'),
    subscriber_ids: idList(inputs, 'subscriber_ids'),
  });
  return outcomeReply(outcome, (value): SuccessBody<'resumeProject'> => ({ project: value.project }));
};
