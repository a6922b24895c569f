// POST /api/external/v1/goals/close (RULES.md#decision-3; RULES.md#state-close).
import { closeGoal as write } from '../writes.ts';
import { outcomeReply } from './outcome.ts';
import type { Handler, SuccessBody } from './types.ts';

export const closeGoal: Handler<'closeGoal'> = ({ principal, inputs, store }) =>
  outcomeReply(store.apply(write(principal, inputs)), (value): SuccessBody<'closeGoal'> => ({ goal: value.goal }));
