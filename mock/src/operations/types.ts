// What a handler is: the types every operation's module and their map (index.ts) share. It imports neither: a handler
// is typed by the inputs its own module declares, and the map (index.ts) puts each operation's inputs and handler together.
import type { operations } from '../../../generated/types.ts';
import type { Reply } from '../answers/reply.ts';
import type { Principal } from '../domain/security.ts';
import type { Store } from '../storage/store.ts';

/**
 * What a handler gets: who is calling (authenticated, not read-only), the operation's inputs `I` as the decoder gave
 * them (every field of the kind the spec gives it, every required field present), and the session's store.
 */
type HandlerArgs<I> = { principal: Principal; inputs: I; store: Store };
/** The 200 body of an operation, as generated/types.ts types it. */
export type SuccessBody<K extends keyof operations> = operations[K]['responses'][200]['content']['application/json'];
/** An operation's handler, given the inputs its module declares (`Handler<CloseInputs>`). */
export type Handler<I> = (args: HandlerArgs<I>) => Reply;
