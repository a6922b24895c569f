// POST /api/external/v1/goals/close (RULES.md#decision-3; RULES.md#state-close).
import * as errors from '../errors.ts';
import type { Handler, SuccessBody } from './types.ts';
import { outcomeReply, idList, optionalBoolean, requiredString } from './inputs.ts';

export const closeGoal: Handler = ({ principal, inputs, store }) => {
  const goalId = requiredString(inputs, 'goal_id');
  const success = requiredString(inputs, 'success');
  const successStatus = inputs['success_status'];
  if (goalId === undefined || success === undefined || (successStatus !== 'achieved' && successStatus !== 'missed')) {
    return errors.MOCK_RESPONSE_INVALID(['goal_id, success or success_status was not decoded']);
  }
  const outcome = store.closeGoal(principal, {
    goal_id: goalId,
    success,
    retrospective: inputs['retrospective'],
    success_status: successStatus,
    send_notifications_to_everyone: optionalBoolean(inputs, 'send_notifications_to_everyone'),
    subscriber_ids: idList(inputs, 'subscriber_ids'),
  });
  return outcomeReply(outcome, (value): SuccessBody<'closeGoal'> => ({ goal: value.goal }));
};
