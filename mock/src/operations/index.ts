// The operations, keyed and typed by operationId: each one's decoded inputs and its handler (operations/<operationId>.ts
// holds both, with its write). Both tables are complete by construction: a missing or misspelt operation does not
// compile.
import { closeGoal, type CloseInputs } from './closeGoal.ts';
import { resumeProject, type ResumeInputs } from './resumeProject.ts';
import type { HandlerMap } from './types.ts';
import type { ByOperation } from '../domain/writes.ts';

export type { HandlerMap } from './types.ts';

/** Each operation's decoded inputs (decode.ts gives them; its handler takes them). */
export type OperationInputs = ByOperation<{ resumeProject: ResumeInputs; closeGoal: CloseInputs }>;

export const handlers: HandlerMap = { resumeProject, closeGoal };
