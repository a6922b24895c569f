// What a write leaves alone (RULES.md#left-alone): every answer of a write is compared with the same record's
// previous answer, and every field the operation does not change (state-rules.ts WRITES), nested records included, must be
// as it was. A nested record that was itself written in between (a project's goal closed, a goal's project resumed)
// may differ in what its own write changes. The memory is per scope (the caller and the mock session: a record's
// permissions and notifications are the caller's) and bounded (the oldest record is forgotten first).
import { isDeepStrictEqual } from 'node:util';
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { decodeId } from './id-model.ts';
import type { OperationId } from './profiles.ts';
import { WRITES } from './state-rules.ts';
import { violation, type Violation } from '../../spec/lib/violations.ts';

/**
 * The fields a write of each record type may change, by `__typename`: with several operations on one record type
 * (close and a reopen of a goal, say), what any of them changes, since the nested record's write is not known here.
 */
const CHANGES_OF_TYPE: ReadonlyMap<string, ReadonlySet<string>> = changesOfType();
const NOTHING: ReadonlySet<string> = new Set();

function changesOfType(): Map<string, Set<string>> {
  const types = new Map<string, Set<string>>();
  for (const { record, changes } of Object.values(WRITES)) {
    const fields = types.get(record) ?? new Set<string>();
    for (const field of changes) fields.add(field);
    types.set(record, fields);
  }
  return types;
}

/** At most this many changed fields are reported for one answer (the rest are counted). */
const REPORTED = 8;

type Path = Array<string | number>;
/** A record as an answer showed it, and when that answer was sent by the server's clock (its Date header), if known. */
type Remembered = { seq: number; record: JsonObject; answeredAt?: number };

/**
 * What `observe` found: the violations, or why the rule could not run on this answer; and the record as the previous
 * answer showed it (the state before this write, for the rules that compute from it: write-again.ts).
 */
export type Observed = { violations: Violation[]; skipped?: string; previous?: JsonObject; previousAnsweredAt?: number };

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'absent';
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
};

function uuidOf(record: unknown): string | undefined {
  if (!isObject(record) || typeof record['id'] !== 'string') return undefined;
  const decoded = decodeId(record['id']);
  return decoded.kind === 'uuid' ? decoded.uuid : undefined;
}

export class RecordMemory {
  readonly capacity: number;
  #seq = 0;
  /** scope + record UUID → its last answer. A Map keeps insertion order: the first key is the oldest. */
  readonly #answers = new Map<string, Remembered>();
  /** scope + record UUID → the sequence number of the last write seen to it. */
  readonly #writes = new Map<string, number>();
  /** mock session + notification id → the caller it was first shown to. */
  readonly #notified = new Map<string, string>();

  constructor(capacity = 1000) {
    this.capacity = capacity;
  }

  /** Whether a record (any id form) has an answer remembered in a scope. */
  knows(scope: string, id: string): boolean {
    const decoded = decodeId(id);
    return decoded.kind === 'uuid' && this.#answers.has(`${scope}\u0000${decoded.uuid}`);
  }

  /**
   * Remembers a record as it is before any write seen here (the mock's `GET /__mock/records/{id}`: the answer a write
   * would give, without writing), so that the first write's answer is compared too. Nothing is checked.
   */
  baseline(scope: string, body: unknown): void {
    if (!isObject(body)) return;
    for (const { record: key } of Object.values(WRITES)) {
      const record = body[key];
      const uuid = uuidOf(record);
      if (isObject(record) && uuid !== undefined) this.#remember(this.#answers, `${scope}\u0000${uuid}`, { seq: ++this.#seq, record });
    }
  }

  /**
   * Checks a 200 answer of a write against the previous answer of the same record in the same scope, then remembers
   * it. `body` is the parsed answer (`{"project": …}`); a body without the record is not judged here. `answeredAt`: when
   * the server sent this answer (its Date header, ms), which bounds from below when the next write of the record ran.
   */
  observe(scope: string, operationId: OperationId, body: unknown, answeredAt?: number): Observed {
    const write = WRITES[operationId];
    const record = isObject(body) ? body[write.record] : undefined;
    const uuid = uuidOf(record);
    if (!isObject(record) || uuid === undefined) return { violations: [], skipped: `the answer has no ${write.record} with an id` };
    const key = `${scope}\u0000${uuid}`;
    const seq = ++this.#seq;
    this.#remember(this.#writes, key, seq);
    const previous = this.#answers.get(key);
    this.#remember(this.#answers, key, answeredAt === undefined || Number.isNaN(answeredAt) ? { seq, record } : { seq, record, answeredAt });
    if (!previous) return { violations: [], skipped: `the first answer for this ${write.record} (nothing earlier to compare with)` };

    const found: Array<{ at: Path; before: unknown; after: unknown }> = [];
    const writtenSince = (nested: unknown): boolean => {
      const id = uuidOf(nested);
      return id !== undefined && (this.#writes.get(`${scope}\u0000${id}`) ?? 0) > previous.seq;
    };
    const compare = (before: unknown, after: unknown, at: Path, allowed: ReadonlySet<string>): void => {
      if (isDeepStrictEqual(before, after)) return;
      if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
        for (const [i, item] of before.entries()) compare(item, after[i], [...at, i], NOTHING);
        return;
      }
      if (isObject(before) && isObject(after)) {
        let mayChange = allowed;
        const type = after['__typename'];
        if (at.length > 3 && typeof type === 'string' && uuidOf(before) === uuidOf(after) && writtenSince(after))
          mayChange = CHANGES_OF_TYPE.get(type) ?? NOTHING;
        // A field that appears is the schema rules' to judge (an additive field is a warning there); one that
        // changes or disappears is this rule's.
        for (const field of Object.keys(before)) {
          if (!mayChange.has(field)) compare(before[field], after[field], [...at, field], NOTHING);
        }
        return;
      }
      found.push({ at, before, after });
    };
    compare(previous.record, record, ['response', 'body', write.record], new Set(write.changes));
    const violations = found
      .slice(0, REPORTED)
      .map(({ at, before, after }) =>
        violation(
          at,
          'left-alone',
          `${write.verb} changes only ${write.changes.join(', ')} of the ${write.record} (and, in a nested record written since, what that write changes; RULES.md#left-alone), but this field was ${shown(before)} in the previous answer for the same ${write.record} and is ${shown(after)} now`,
        ),
      );
    if (found.length > REPORTED)
      violations.push(
        violation(
          ['response', 'body', write.record],
          'left-alone',
          `and ${found.length - REPORTED} more fields changed that ${write.verb} leaves alone (RULES.md#left-alone)`,
        ),
      );
    return previous.answeredAt === undefined
      ? { violations, previous: previous.record }
      : { violations, previous: previous.record, previousAnsweredAt: previous.answeredAt };
  }

  /**
   * Forgets what the scopes that start with `prefix` (or all) remember: the records may have changed in a way this
   * memory did not see (a mock reset).
   */
  forget(prefix?: string): void {
    for (const map of [this.#answers, this.#writes, this.#notified]) {
      if (prefix === undefined) map.clear();
      else for (const key of map.keys()) if (key.startsWith(prefix)) map.delete(key);
    }
  }

  /**
   * A notification belongs to one person (notifications.person_id), so a record's `notifications` are its caller's own
   * (RULES.md#caller-fields): within one mock session (the scope's first word), a notification id the answers showed
   * another caller is someone else's. Remembers who was shown each id of `body`'s records; the violations for ids
   * shown to another caller first.
   */
  notifications(scope: string, body: unknown): Violation[] {
    if (!isObject(body)) return [];
    const space = scope.indexOf(' ');
    const [session, caller] = space < 0 ? ['', scope] : [scope.slice(0, space), scope.slice(space + 1)];
    const out: Violation[] = [];
    for (const [key, record] of Object.entries(body)) {
      const list = isObject(record) ? record['notifications'] : undefined;
      if (!Array.isArray(list)) continue;
      for (const [index, notification] of list.entries()) {
        const id = isObject(notification) && typeof notification['id'] === 'string' ? notification['id'] : undefined;
        if (id === undefined) continue;
        const owner = this.#notified.get(`${session} ${id}`);
        if (owner === undefined) this.#remember(this.#notified, `${session} ${id}`, caller);
        else if (owner !== caller)
          out.push(
            violation(
              ['response', 'body', key, 'notifications', index],
              'caller.notifications',
              `a ${key}'s notifications are the caller's own unread ones, and notification ${id} was in another caller's answer before (a notification belongs to one person; RULES.md#caller-fields)`,
            ),
          );
      }
    }
    return out;
  }

  /** How many records are remembered. */
  get size(): number {
    return this.#answers.size;
  }

  #remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > this.capacity) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
  }
}
