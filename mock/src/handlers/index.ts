// The operations' handlers, keyed and typed by operationId: the map is complete by construction (a missing or
// misspelt operation does not compile).
import { closeGoal } from './closeGoal.ts';
import { resumeProject } from './resumeProject.ts';
import type { HandlerMap } from './types.ts';

export type { HandlerMap } from './types.ts';

export const handlers: HandlerMap = { resumeProject, closeGoal };
