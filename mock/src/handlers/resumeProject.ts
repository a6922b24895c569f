// POST /api/external/v1/projects/resume (RULES.md#decision-3; RULES.md#state-resume).
import { resumeProject as write } from '../writes.ts';
import { outcomeReply } from './outcome.ts';
import type { Handler, SuccessBody } from './types.ts';

export const resumeProject: Handler<'resumeProject'> = ({ principal, inputs, store }) =>
  outcomeReply(store.apply(write(principal, inputs)), (value): SuccessBody<'resumeProject'> => ({ project: value.project }));
