// The subscriptions and notifications a write leaves (RULES.md#subscriptions; RULES.md#side-effects; §4.1–4.2), as the
// state a target shows them before and after the write (this package's mock: GET /__mock/state, the rows of
// mock/openapi.yaml's State). The write opens one subscription list with one subscription per person in caller ∪
// subscriber_ids ∪ people mentioned, each once, `invited` for the caller and the listed people and `mentioned` for the
// people only mentioned (operations/notifications/subscription.ex); it notifies the subscribers who can see the record,
// never the author (activities/notifications/*.ex, notifications/subscribers_loader.ex). The suite's own reading of
// those rules, written apart from the mock's on purpose.
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { violation, type Violation } from '../../spec/lib/violations.ts';

/** What the write sent, by person UUID: the caller, the subscriber_ids as sent (repeats kept), the people mentioned. */
export type SentSubscribers = { caller: string; listed: ReadonlyArray<string>; mentioned: ReadonlyArray<string> };

/** A person's name for messages, by UUID. */
type Names = (uuid: string) => string;

const rows = (state: unknown, table: string): JsonObject[] => {
  const value = isObject(state) ? state[table] : undefined;
  return Array.isArray(value) ? value.filter(isObject) : [];
};
const text = (row: JsonObject, key: string): string | undefined => (typeof row[key] === 'string' ? row[key] : undefined);

/** The subscription rows the write should leave: each person once, with its type. */
export function expectedSubscriptions(sent: SentSubscribers): Map<string, 'invited' | 'mentioned'> {
  const out = new Map<string, 'invited' | 'mentioned'>();
  for (const uuid of [sent.caller, ...sent.listed]) out.set(uuid, 'invited');
  for (const uuid of sent.mentioned) if (!out.has(uuid)) out.set(uuid, 'mentioned');
  return out;
}

const at = (table: string): string[] => ['state', table];

/**
 * The subscription and notification rules on the state before and after one write; `canSee` says who can see the
 * record (a subscriber who cannot is subscribed but never notified).
 */
export function subscriptionRules(before: unknown, after: unknown, sent: SentSubscribers, canSee: (uuid: string) => boolean, name: Names): Violation[] {
  const out: Violation[] = [];
  const known = new Set(rows(before, 'subscription_lists').map((r) => text(r, 'id')));
  const lists = rows(after, 'subscription_lists').filter((r) => !known.has(text(r, 'id')));
  if (lists.length !== 1)
    return [
      violation(
        at('subscription_lists'),
        'subscriptions.list',
        `a write opens exactly one subscription list (its comment thread's; RULES.md#side-effects); the state shows ${lists.length} new`,
      ),
    ];
  const listId = text(lists[0] ?? {}, 'id');
  const subscriptions = rows(after, 'subscriptions').filter((r) => text(r, 'subscription_list_id') === listId);
  const expected = expectedSubscriptions(sent);
  const seen = new Map<string, number>();
  for (const row of subscriptions) {
    const person = text(row, 'person_uuid') ?? '';
    seen.set(person, (seen.get(person) ?? 0) + 1);
    const type = expected.get(person);
    if (type === undefined)
      out.push(
        violation(
          at('subscriptions'),
          'subscriptions.rows',
          `the write subscribes only the caller, the subscriber_ids and the people mentioned (RULES.md#subscriptions); it subscribed ${name(person)}`,
        ),
      );
    else if (row['type'] !== type)
      out.push(
        violation(
          at('subscriptions'),
          'subscriptions.type',
          `${name(person)} is subscribed as "${type}" (${type === 'invited' ? 'the caller or a subscriber_id' : 'only mentioned'}; RULES.md#subscriptions); got ${JSON.stringify(row['type'])}`,
        ),
      );
  }
  for (const [person, count] of seen)
    if (count > 1)
      out.push(
        violation(
          at('subscriptions'),
          'subscriptions.duplicate',
          `each person is subscribed once, however often they are listed or mentioned (RULES.md#subscriptions); ${name(person)} has ${count} subscriptions`,
        ),
      );
  for (const [person, type] of expected)
    if (!seen.has(person))
      out.push(
        violation(
          at('subscriptions'),
          'subscriptions.rows',
          `${name(person)} ${type === 'invited' ? 'is the caller or in subscriber_ids' : 'is mentioned'}, so the write subscribes them (RULES.md#subscriptions); no subscription`,
        ),
      );
  const noted = new Set(rows(before, 'notifications').map((r) => text(r, 'id')));
  const recipients = rows(after, 'notifications')
    .filter((r) => !noted.has(text(r, 'id')))
    .map((r) => text(r, 'person_uuid') ?? '');
  for (const person of recipients) {
    if (person === sent.caller)
      out.push(
        violation(at('notifications'), 'notifications.author', `the author of a write is never notified of it (RULES.md#side-effects); ${name(person)} was`),
      );
    else if (!canSee(person))
      out.push(
        violation(
          at('notifications'),
          'notifications.access',
          `only subscribers who can see the record are notified (a subscriber without access is subscribed, never notified; RULES.md#subscriptions); ${name(person)} was notified`,
        ),
      );
  }
  for (const [person] of expected)
    if (person !== sent.caller && canSee(person) && !recipients.includes(person))
      out.push(
        violation(
          at('notifications'),
          'notifications.recipients',
          `every subscriber who can see the record but the author is notified (RULES.md#side-effects); ${name(person)} was not`,
        ),
      );
  return out;
}

/** A rich-text document (a JSON string) with a mention node per person after its text: `{type: mention, attrs: {id, label}}`. */
export function withMentions(document: string, people: ReadonlyArray<{ id: string; label: string }>): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(document);
  } catch {
    parsed = undefined;
  }
  const content = isObject(parsed) && Array.isArray(parsed['content']) ? parsed['content'] : [];
  const mentions = people.map((p) => ({ type: 'mention', attrs: { id: p.id, label: p.label } }));
  return JSON.stringify({ type: 'doc', content: [...content, { type: 'paragraph', content: [{ type: 'text', text: 'cc ' }, ...mentions] }] });
}
