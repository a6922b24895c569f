// The operations, keyed and typed by operationId: each one's decoded inputs and its handler (operations/<operationId>.ts
// holds both, with its write). Both tables are complete by construction: a missing or misspelt operation does not
// compile.
import { closeGoal, type CloseInputs } from './closeGoal.ts';
import { resumeProject, type ResumeInputs } from './resumeProject.ts';
import type { Handler } from './types.ts';
import type { ByOperation } from '../domain/writes.ts';

/** Each operation's decoded inputs (decode.ts gives them; its handler takes them). */
export type OperationInputs = ByOperation<{ resumeProject: ResumeInputs; closeGoal: CloseInputs }>;

/** Each operation's handler, given its inputs: a handler typed with another operation's inputs does not compile. */
export type HandlerMap = { [K in keyof OperationInputs]: Handler<OperationInputs[K]> };

export const handlers: HandlerMap = { resumeProject, closeGoal };
