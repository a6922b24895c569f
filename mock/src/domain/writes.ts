// What every write shares (RULES.md#state): the context a write gets from the store, the discussion it opens (its
// thread, subscription list and subscriptions) and who can be notified. Each operation's own write is in its handler
// module (operations/<operationId>.ts), which applies it with `store.apply` (store.ts), the store's one entry point,
// which holds no per-operation code. Everything is checked before anything changes, so a failure leaves the state as
// it was; the rows are then handed to the commit in the write's context, which keeps them and journals the write.
import { isObject } from '../../../spec/lib/openapi.ts';
import type { OperationId } from '../../../spec/lib/operations.ts';
import { accessLevel, fail, personRow, type Outcome } from './access.ts';
import { decodeId } from './ids.ts';
import { ACCESS, isoSeconds, measureDocument, mentionedIds } from './rules.ts';
import type { Principal } from './security.ts';
import type { Access, ActivityRow, State, SubscriptionRow } from './state.ts';

/**
 * A table with exactly one entry per operation of the spec (generated/types.ts): one missing, or one the spec does not
 * have, is a compile error where the table is written (mock/test/writes.test-d.ts).
 */
export type ByOperation<T extends { [K in OperationId]: unknown } & { [K in Exclude<keyof T, OperationId>]: never }> = T;

/** The deepest rich-text document the mock accepts; ProseMirror documents nest a handful of levels. */
const MAX_DOCUMENT_DEPTH = 1000;

/** A write's discussion: its comment thread, subscription list and subscriptions, built before anything is stored. */
export type Discussion = {
  threadId: string;
  listId: string;
  subscriptions: SubscriptionRow[];
  message: Record<string, unknown>;
  documentBytes: number;
  sendToEveryone: boolean;
  at: string;
};

/** What a write needs from the store: the state, the clock, new ids, and the commit that keeps its rows. */
export type WriteContext<E> = {
  state: State;
  now: Date;
  newId: () => string;
  /** The most a write's rich text may keep (the session's byte budget): a larger document is refused, not stored. */
  maxDocumentBytes: number;
  commit(discussion: Discussion, activity: ActivityRow, recipients: ReadonlyArray<string>, about: { project_uuid: string | null; goal_uuid: string | null }): E;
};

/** A write as the store applies it (Store.apply): given the store's context, its outcome. */
export type Write<E, T> = (ctx: WriteContext<E>) => T;

/**
 * Checks and builds the discussion of a write before anything is stored: the document must be a JSON object (the
 * thread's map column), every mention must decode, and every subscriber and mentioned person must exist (the
 * subscriptions' foreign key). Subscribers: mentioned ∪ caller ∪ subscriber_ids, each once; `invited` for the caller
 * and subscriber_ids, `mentioned` for the others.
 */
export function prepareDiscussion(
  ctx: WriteContext<unknown>,
  principal: Principal,
  message: unknown,
  subscriberIds: ReadonlyArray<string | null>,
  sendToEveryone: boolean,
): Outcome<Discussion> {
  if (!isObject(message)) return fail('failed', 'the rich-text value is not a JSON object');
  // The mock stores and re-serializes the document; one nested past MAX_DOCUMENT_DEPTH is refused as a failed
  // operation before anything is stored (the real service's database also fails on absurdly deep JSON).
  const measured = measureDocument(message);
  if (measured.depth > MAX_DOCUMENT_DEPTH) return fail('failed', `the rich-text document nests deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  // The mock's own limit, not production's: a session keeps at most its byte budget, so one document larger than
  // that cannot be kept at all (mock/docs/state.md, "Memory").
  if (measured.bytes > ctx.maxDocumentBytes)
    return fail('too_large', `the rich-text document would keep about ${measured.bytes} bytes; a session keeps at most ${ctx.maxDocumentBytes}`);
  const mentioned: string[] = [];
  for (const id of mentionedIds(message)) {
    const decoded = decodeId(id);
    if (decoded.kind !== 'uuid') return fail('failed', 'a mention id cannot be decoded');
    mentioned.push(decoded.uuid);
  }
  const invited: string[] = [principal.personUuid];
  for (const id of subscriberIds) {
    if (id === null) return fail('failed', 'subscriber_ids holds null');
    invited.push(id);
  }
  for (const uuid of [...mentioned, ...invited]) {
    if (!personRow(ctx.state, uuid)) return fail('failed', `no person ${uuid} (subscriptions_person_id_fkey)`);
  }
  const threadId = ctx.newId();
  const listId = ctx.newId();
  const subscriptions: SubscriptionRow[] = [];
  for (const uuid of new Set([...mentioned, ...invited])) {
    subscriptions.push({
      id: ctx.newId(),
      subscription_list_id: listId,
      person_uuid: uuid,
      type: invited.includes(uuid) ? 'invited' : 'mentioned',
      canceled: false,
    });
  }
  return { ok: true, value: { threadId, listId, subscriptions, message, documentBytes: measured.bytes, sendToEveryone, at: isoSeconds(ctx.now) } };
}

/** The subscribers a write notifies: not the author, not suspended, and able to see the record. */
function visibleSubscribers(state: State, subscriptions: ReadonlyArray<SubscriptionRow>, author: string, canSee: (uuid: string) => boolean): string[] {
  return subscriptions
    .filter((s) => !s.canceled && s.person_uuid !== author && personRow(state, s.person_uuid)?.suspended === false && canSee(s.person_uuid))
    .map((s) => s.person_uuid);
}

/**
 * Who a write's activity notifies, never the author: the discussion's subscribers who can see the record, and, for
 * an operation whose notification job covers the record's space (`notifiesSpace`), every member of that space who is
 * not suspended when the request sends to everyone. That job inner-joins the space's members, so there a space
 * without members notifies nobody. An operation says which kind it is; the rule is written once, here.
 */
export function recipientsOf(
  state: State,
  discussion: Discussion,
  author: string,
  record: { access: Access; space_uuid: string },
  notifiesSpace: boolean,
): string[] {
  const canSee = (uuid: string): boolean => accessLevel(state, uuid, record.access, record.space_uuid) >= ACCESS.view;
  const subscribers = visibleSubscribers(state, discussion.subscriptions, author, canSee);
  if (!notifiesSpace) return subscribers;
  const members = state.spaces.find((s) => s.uuid === record.space_uuid)?.member_uuids ?? [];
  if (members.length === 0) return [];
  const everyone = discussion.sendToEveryone ? members.filter((uuid) => uuid !== author && personRow(state, uuid)?.suspended === false) : [];
  return [...new Set([...everyone, ...subscribers])];
}
