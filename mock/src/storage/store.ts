// One session's data: its state (plain JSON rows) and its event journal. It knows nothing of HTTP, of where it is kept
// (sessions.ts keeps stores) or of any one operation: a write (built by its operation's module under operations/) is
// applied through the one entry point `apply`, and hands its rows to the store's commit. Writes answer with a value or
// a reason (not_found, forbidden, failed) and change nothing when they fail.
import { personRow } from '../domain/access.ts';
import { newUuid } from '../domain/ids.ts';
import { measureDocument } from '../domain/rules.ts';
import { DEFAULT_SESSION_BYTES } from '../limits.ts';
import { mark } from '../stages.ts';
import { findToken, tokenRecords, type Principal, type TokenRecord } from '../domain/security.ts';
import type { ActivityRow, NotificationRow, State, SubscriptionRow } from '../domain/state.ts';
import type { Discussion, Write } from '../domain/writes.ts';

/** One write's side effects, as the event journal reports them. */
export type WriteEvent = { seq: number; at: string; activity: ActivityRow; subscriptions: SubscriptionRow[]; recipients: string[]; send_to_everyone: boolean };

/**
 * The event journal keeps this many writes per store; older ones are dropped first. Each session also keeps this many
 * rows per history table (the same writes the event journal holds), so a session's memory is bounded by design: about
 * 2–3 KB per write, at most about 3 MB per session at the limit (mock/docs/state.md, "Memory"). An answer reads the history
 * only for the caller's unread notifications (the most recent ones) and the write's own rows.
 */
export const EVENT_JOURNAL_LIMIT = 1000;

/** The append-only tables a write adds rows to, oldest row first; nothing ever changes or deletes a row but the trim. */
export const HISTORY_TABLES = ['activities', 'comment_threads', 'subscription_lists', 'subscriptions', 'notifications'] as const satisfies ReadonlyArray<
  keyof State
>;
export type HistoryTable = (typeof HISTORY_TABLES)[number];

export { DEFAULT_SESSION_BYTES };

/** What one history row or journal event keeps besides a rich-text document, at most (mock/docs/state.md, "Memory"). */
const ROW_BYTES = 200;

/** A comment thread's cost: its row, plus its document as measured. */
export function threadBytes(message: unknown): number {
  return ROW_BYTES + measureDocument(message).bytes;
}

export type StoreOptions = {
  now: () => Date;
  newId?: () => string;
  /** Rows kept per history table (activities, threads, lists, subscriptions, notifications), give or take a tenth; the oldest go first. */
  historyLimit?: number;
  /** Bytes of comment threads (their rich-text documents) kept, DEFAULT_SESSION_BYTES by default; the oldest go first. */
  maxBytes?: number;
};

/** What a store holds besides its state, for a store kept outside this process: the journal and its counter. */
export type Journal = { events: WriteEvent[]; seq: number };

export class Store {
  readonly state: State;
  /** The event journal, trimmed to EVENT_JOURNAL_LIMIT in batches of a tenth (see `events`). */
  readonly #events: WriteEvent[];
  #seq: number;
  readonly #now: () => Date;
  readonly #newId: () => string;
  readonly #historyLimit: number;
  readonly #maxBytes: number;
  /** Each comment thread's cost (threadBytes), in the order of `state.comment_threads`, and their sum; made on first need. */
  #threads: { bytes: number[]; total: number } | undefined;
  /** The token hashes as bytes, rebuilt only when the token table is replaced. */
  #tokens: { source: State['tokens']; length: number; records: TokenRecord[] } | undefined;

  constructor(state: State, options: StoreOptions, journal: Journal = { events: [], seq: 0 }) {
    this.state = state;
    this.#events = journal.events;
    this.#seq = journal.seq;
    this.#now = options.now;
    this.#newId = options.newId ?? newUuid;
    this.#historyLimit = options.historyLimit ?? EVENT_JOURNAL_LIMIT;
    this.#maxBytes = options.maxBytes ?? DEFAULT_SESSION_BYTES;
  }

  /**
   * What this session keeps, in bytes, estimated: its comment threads as measured (their documents are the only
   * rows whose size a caller chooses) and ROW_BYTES for every other history row and event. The seed's own records
   * are not counted (every session has the same).
   */
  get retainedBytes(): number {
    const s = this.state;
    let rows = this.#events.length;
    for (const name of HISTORY_TABLES) if (name !== 'comment_threads') rows += s[name].length;
    return this.#threadCosts().total + rows * ROW_BYTES;
  }

  /** Each comment thread's cost in bytes (threadBytes), in the order of `state.comment_threads`. */
  threadCosts(): ReadonlyArray<number> {
    return this.#threadCosts().bytes;
  }

  /** The threads' costs, rebuilt when the table no longer matches them (a test may edit the state in place). */
  #threadCosts(): { bytes: number[]; total: number } {
    const rows = this.state.comment_threads;
    if (this.#threads?.bytes.length === rows.length) return this.#threads;
    const bytes = rows.map((row) => threadBytes(row.message));
    this.#threads = { bytes, total: bytes.reduce((sum, b) => sum + b, 0) };
    return this.#threads;
  }

  /** The writes since this store was created from the seed, oldest first, at most EVENT_JOURNAL_LIMIT. */
  get events(): ReadonlyArray<WriteEvent> {
    const all = this.#events;
    return all.length > EVENT_JOURNAL_LIMIT ? all.slice(-EVENT_JOURNAL_LIMIT) : all;
  }

  /** The number of writes so far (the last event's seq): a write that failed leaves it as it was. */
  get seq(): number {
    return this.#seq;
  }

  /** The token's person, if the token exists and its person may act (not suspended; People.authenticate_api_token). */
  authenticate(rawToken: string): Principal | undefined {
    const rows = this.state.tokens;
    if (this.#tokens?.source !== rows || this.#tokens.length !== rows.length) this.#tokens = { source: rows, length: rows.length, records: tokenRecords(rows) };
    const record = findToken(this.#tokens.records, rawToken);
    if (!record) return undefined;
    const person = personRow(this.state, record.personUuid);
    if (!person || person.suspended) return undefined;
    return { personUuid: record.personUuid, readOnly: record.readOnly };
  }

  /**
   * The one way a write reaches the store: runs it (e.g. `store.apply(resumeProjectWrite(principal, inputs))` in
   * operations/resumeProject.ts) with the state, the clock, new ids and the commit that keeps its rows and journals it.
   */
  apply<T>(write: Write<WriteEvent, T>): T {
    return write({
      state: this.state,
      now: this.#now(),
      newId: this.#newId,
      maxDocumentBytes: this.#maxBytes - ROW_BYTES,
      commit: (discussion, activity, recipients, about) => this.#commit(discussion, activity, recipients, about),
    });
  }

  /** Keeps a write's rows, journals it, and trims the history tables. */
  #commit(
    discussion: Discussion,
    activity: ActivityRow,
    recipients: ReadonlyArray<string>,
    about: { project_uuid: string | null; goal_uuid: string | null },
  ): WriteEvent {
    mark('rules');
    const s = this.state;
    const threads = this.#threadCosts();
    s.subscription_lists.push({
      id: discussion.listId,
      parent_type: 'comment_thread',
      parent_id: discussion.threadId,
      send_to_everyone: discussion.sendToEveryone,
    });
    s.subscriptions.push(...discussion.subscriptions);
    s.activities.push(activity);
    s.comment_threads.push({
      id: discussion.threadId,
      parent_type: 'activity',
      parent_id: activity.id,
      message: discussion.message,
      subscription_list_id: discussion.listId,
      inserted_at: discussion.at,
    });
    threads.bytes.push(ROW_BYTES + discussion.documentBytes);
    threads.total += ROW_BYTES + discussion.documentBytes;
    const notifications: NotificationRow[] = recipients.map((uuid) => ({
      id: this.#newId(),
      person_uuid: uuid,
      activity_id: activity.id,
      action: activity.action,
      ...about,
      read: false,
      inserted_at: discussion.at,
    }));
    s.notifications.push(...notifications);
    const event: WriteEvent = {
      seq: ++this.#seq,
      at: discussion.at,
      activity,
      subscriptions: discussion.subscriptions,
      recipients: recipients.slice(),
      send_to_everyone: discussion.sendToEveryone,
    };
    // The journal and the history tables are trimmed in batches of a tenth of their limit: moving a full array on
    // every write would cost more than the write.
    const events = this.#events;
    events.push(event);
    if (events.length > EVENT_JOURNAL_LIMIT + EVENT_JOURNAL_LIMIT / 10) events.splice(0, events.length - EVENT_JOURNAL_LIMIT);
    const slack = Math.ceil(this.#historyLimit / 10);
    for (const name of HISTORY_TABLES) {
      const table = s[name];
      if (table.length > this.#historyLimit + slack) this.#dropOldest(name, table.length - this.#historyLimit);
    }
    // Then the threads by bytes: the newest is always kept (a document larger than the budget was refused before).
    let over = threads.total - this.#maxBytes;
    if (over > 0) {
      let count = 0;
      while (over > 0 && count < threads.bytes.length - 1) over -= threads.bytes[count++] ?? 0;
      this.#dropOldest('comment_threads', count);
    }
    mark('store');
    return event;
  }

  /** Drops a history table's oldest rows, keeping the threads' costs in step. */
  #dropOldest(name: HistoryTable, count: number): void {
    this.state[name].splice(0, count);
    if (name !== 'comment_threads' || !this.#threads) return;
    for (const bytes of this.#threads.bytes.splice(0, count)) this.#threads.total -= bytes;
  }
}
