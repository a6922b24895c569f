// What a handler is: the types the handlers and their map (index.ts) share, so neither imports the other for them.
import type { operations } from '../../../generated/types.ts';
import type { Reply } from '../reply.ts';
import type { Principal } from '../security.ts';
import type { Store } from '../store.ts';

/** What a handler gets: who is calling (authenticated, not read-only), the decoded inputs, and the session's store. */
type HandlerArgs = { principal: Principal; inputs: Record<string, unknown>; store: Store };
/** The 200 body of an operation, as generated/types.ts types it. */
export type SuccessBody<K extends keyof operations> = operations[K]['responses'][200]['content']['application/json'];
export type Handler = (args: HandlerArgs) => Reply;
export type HandlerMap = { [K in keyof operations]: Handler };
