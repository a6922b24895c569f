// What a handler is: the types the handlers and their map (index.ts) share, so neither imports the other for them.
import type { operations } from '../../../generated/types.ts';
import type { Reply } from '../answers/reply.ts';
import type { Principal } from '../domain/security.ts';
import type { Store } from '../storage/store.ts';
import type { OperationInputs } from './index.ts';

/**
 * What a handler gets: who is calling (authenticated, not read-only), the operation's inputs as the decoder gave them
 * (every field of the kind the spec gives it, every required field present), and the session's store.
 */
type HandlerArgs<K extends keyof operations> = { principal: Principal; inputs: OperationInputs[K]; store: Store };
/** The 200 body of an operation, as generated/types.ts types it. */
export type SuccessBody<K extends keyof operations> = operations[K]['responses'][200]['content']['application/json'];
export type Handler<K extends keyof operations> = (args: HandlerArgs<K>) => Reply;
export type HandlerMap = { [K in keyof operations]: Handler<K> };
