// Reliability: the mock under property-based fuzzing, at its limits, and under concurrent writes, all over
// real HTTP. The fuzzing here is the bounded form (a few hundred requests per operation); `npm run fuzz`
// (mock/test/fuzz/run.ts) runs the same properties over 10,000+ requests per operation, and
// `node mock/test/fuzz/soak.ts` is the 60-second memory run.
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { DEFAULT_BODY_LIMIT, defaultSeed } from '../src/index.ts';
import { nextWeeklyCheckIn } from '../src/domain/rules.ts';
import { REQUEST_JOURNAL_LIMIT } from '../src/storage/sessions.ts';
import { EVENT_JOURNAL_LIMIT } from '../src/storage/store.ts';
import { ALL_KNOWN_ISSUES } from './fuzz/arbitraries.ts';
import { fuzzOperations, type FuzzOperation } from './fuzz/operations.ts';
import { assertFuzz, createResponseChecker } from './fuzz/properties.ts';
import { list, obj, readEvents, readState, str, strOrNull, type StateView } from './fuzz/state.ts';
import { CLOSE, RESUME, doc, startMock, type Received, type RunningMock, type Sent } from './http.ts';

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());

const OPERATIONS = fuzzOperations();
function operation(operationId: string): FuzzOperation {
  const found = OPERATIONS.find((o) => o.operationId === operationId);
  if (!found) throw new Error(`${operationId} is not in the spec`);
  return found;
}
const token = (persona: string): string => mock.fixtures.tokens[persona] ?? '';
const json = (path: string, body: string, session: string, headers: Record<string, string> = {}): Sent => ({
  path,
  headers: { 'content-type': 'application/json', 'x-mock-session': session, ...headers },
  body,
});
const get = (path: string, session: string): Promise<Received> => mock.send({ method: 'GET', path, headers: { 'x-mock-session': session } });
const stateText = async (session: string): Promise<string> => (await get('/__mock/state', session)).text;
function bodyOf(response: Received): JsonObject {
  const body = response.json();
  if (!isObject(body)) throw new Error(`not a JSON object: ${response.text.slice(0, 200)}`);
  return body;
}
const resumeBody = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ project_id: mock.fixtures.projects['paused'], message: doc('Back on track.'), ...extra });

describe('property-based fuzzing over HTTP (bounded: npm run fuzz sends 10,000+ per operation)', () => {
  const RUNS = 250;
  it.each(OPERATIONS.map((o) => [o.operationId, o] as const))(
    `%s: ${RUNS} random requests get a documented status and a spec-valid body, never a token, and change nothing unless accepted`,
    async (_id, op) => {
      // Every hostile input family (fuzz/arbitraries.ts KNOWN_ISSUES, each once a bug) is generated too.
      const tally = await assertFuzz(mock, op, { numRuns: RUNS, hugeLength: 50_000, include: ALL_KNOWN_ISSUES });
      expect(tally.requests).toBe(RUNS);
      // The generators reach every stage of the pipeline, from content negotiation to the write.
      expect([...tally.statuses.keys()]).toEqual(expect.arrayContaining([200, 400, 401, 404, 406, 415, 500]));
    },
    30_000,
  );
});

/** Finds what the fuzzer finds when the known issues are included; each is a finding against mock/src or spec/. */
describe('issues the fuzzer found, fixed and pinned', () => {
  const check = createResponseChecker();
  const problemsOf = (operationId: string, sent: Sent, response: Received): string[] =>
    check(operation(operationId), { operationId, method: 'POST', path: sent.path, headers: {}, body: undefined, forced: false, bodyKind: 'pinned' }, response);
  const nested = (depth: number): string => `${'{"type":"paragraph","content":['.repeat(depth)}{"type":"text","text":"deep"}${']}'.repeat(depth)}`;

  it("a rich-text document nested 20,000 levels deep gets a documented answer, not the mock's stack overflow (rules.ts mentionedIds)", async () => {
    const session = 'known-deep-resume';
    const sent = json(RESUME, resumeBody({ message: `{"type":"doc","content":[${nested(20_000)}]}` }), session, {
      authorization: `Bearer ${token('full_access')}`,
    });
    const response = await mock.send(sent);
    expect(problemsOf('resumeProject', sent, response)).toEqual([]);
  });

  it('a document too deep to serialize is either refused without a trace or stored so that GET /__mock/state still works (store.ts, controls.ts)', async () => {
    // Nested under a key that mentionedIds does not walk, so only serializing overflows: closeGoal commits the write
    // and then fails to build its answer (500, state changed); resumeProject answers 200 and its session's
    // GET /__mock/state is a 500 from then on.
    const document = `{"type":"doc","content":[],"attrs":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    const violations: string[] = [];
    for (const [path, operationId, body] of [
      [CLOSE, 'closeGoal', { goal_id: mock.fixtures.goals['open'], success: 'yes', success_status: 'achieved', retrospective: document }],
      [RESUME, 'resumeProject', { project_id: mock.fixtures.projects['paused'], message: document }],
    ] as const) {
      const session = `known-deep-${operationId}`;
      const before = await stateText(session);
      const sent = json(path, JSON.stringify(body), session, { authorization: `Bearer ${token('full_access')}` });
      const response = await mock.send(sent);
      violations.push(...problemsOf(operationId, sent, response).map((p) => `${operationId}: ${p}`));
      const after = await get('/__mock/state', session);
      if (after.status !== 200) violations.push(`${operationId} (${response.status}): GET /__mock/state then answers ${after.status}`);
      // The event journal does not hold the document, so it can tell whether the write was committed.
      const events = readEvents((await get('/__mock/events', session)).json());
      if (response.status !== 200 && (events.length > 0 || (after.status === 200 && after.text !== before)))
        violations.push(`${operationId}: ${response.status}, but the write was committed`);
    }
    expect(violations).toEqual([]);
  });

  it('an enum value of lists nested 20,000 deep is production\'s 400 (chardata prints ""), before the token (decode.ts elixirToString)', async () => {
    const response = await mock.send(json(CLOSE, `{"success_status":${'['.repeat(20_000)}${']'.repeat(20_000)}}`, 'known-deep-enum'));
    expect({ status: response.status, body: response.text }).toEqual({
      status: 400,
      body: production.badRequest(production.messages.invalidEnum('success_status', '', ['achieved', 'missed'])),
    });
  });

  it('a path that starts with "//" reaches the operation: Plug drops empty segments (pipeline.ts reads it as a protocol-relative URL)', async () => {
    const session = 'known-double-slash';
    const response = await mock.send(json(`//api/external/v1/projects/resume`, resumeBody(), session, { authorization: `Bearer ${token('full_access')}` }));
    expect(response.status).toBe(200);
  });

  it('answers a POST with "_method": "PUT" with production\'s 405 (RULES.md#method-rules)', async () => {
    const response = await mock.send(json(RESUME, resumeBody({ _method: 'PUT' }), 'known-override'));
    expect({ status: response.status, body: response.text }).toEqual({ status: 405, body: production.methodNotAllowed });
  });

  it('the spec documents that 405 for both operations (spec/paths: add a 405 response)', () => {
    expect(OPERATIONS.filter((o) => !o.responses.has('405')).map((o) => o.operationId)).toEqual([]);
  });

  it("an empty field name, and a line break in a field name or enum value, get production's 400 (the spec's message pattern refuses them)", async () => {
    const answers: Array<{ status: number; body: string }> = [];
    for (const body of ['{"":1}', '{"a\\nb":1}', '{"success_status":"x\\ny"}']) {
      const response = await mock.send(json(CLOSE, body, 'known-pattern'));
      answers.push({ status: response.status, body: response.text });
    }
    expect(answers).toEqual([
      { status: 400, body: production.badRequest(production.messages.unknownField('')) },
      { status: 400, body: production.badRequest(production.messages.unknownField('a\nb')) },
      { status: 400, body: production.badRequest(production.messages.invalidEnum('success_status', 'x\ny', ['achieved', 'missed'])) },
    ]);
  });
});

// ── limits ───────────────────────────────────────────────────────────────────────────────────────────────────────

function sendChunked(port: number, path: string, headers: Record<string, string>, chunks: Buffer[]): Promise<Received> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers: { ...headers, 'transfer-encoding': 'chunked' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** Writes a raw request and returns whatever the server sends before it closes the connection. */
function rawExchange(port: number, head: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', () => resolve(data)); // the server resets a connection it stopped reading; the answer came first
    socket.on('close', () => resolve(data));
    socket.write(head);
  });
}

describe('limits with clear answers', () => {
  const TOO_LARGE = { status: 413, body: production.payloadTooLargeHtml, contentType: 'text/html; charset=utf-8' };
  const answer = (r: Received) => ({ status: r.status, body: r.text, contentType: r.headers['content-type'] });

  it('a body one byte over the default limit is 413 "Request Entity Too Large" as text/html, and nothing changes', async () => {
    const session = 'limit-default';
    const before = await stateText(session);
    const response = await mock.send(
      json(RESUME, `{"message":"${'x'.repeat(DEFAULT_BODY_LIMIT - 13)}"}`, session, { authorization: `Bearer ${token('full_access')}` }),
    );
    expect(Buffer.byteLength(`{"message":"${'x'.repeat(DEFAULT_BODY_LIMIT - 13)}"}`)).toBe(DEFAULT_BODY_LIMIT + 1);
    expect(answer(response)).toEqual(TOO_LARGE);
    expect(await stateText(session)).toBe(before);
  });

  it('a body of exactly the limit is read and decoded (here: an unknown field)', async () => {
    const body = `{"x":"${'a'.repeat(DEFAULT_BODY_LIMIT - 8)}"}`;
    expect(Buffer.byteLength(body)).toBe(DEFAULT_BODY_LIMIT);
    const response = await mock.send(json(RESUME, body, 'limit-exact'));
    expect({ status: response.status, body: response.text }).toEqual({ status: 400, body: production.badRequest(production.messages.unknownField('x')) });
  });

  it('with --body-limit, a chunked body that grows past it is cut off with the same 413, as JSON when Accept asks for it, and the server keeps answering', async () => {
    const small = await startMock({ bodyLimit: 1024 });
    try {
      const chunks = Array.from({ length: 8 }, () => Buffer.alloc(256, 0x20));
      expect(answer(await sendChunked(small.port, RESUME, { 'content-type': 'application/json' }, chunks))).toEqual(TOO_LARGE);
      expect(answer(await sendChunked(small.port, CLOSE, { 'content-type': 'application/json', accept: 'application/json' }, chunks))).toEqual({
        status: 413,
        body: production.payloadTooLargeJson,
        contentType: 'application/json; charset=utf-8',
      });
      const ok = await small.post(RESUME, { project_id: small.fixtures.projects['paused'], message: doc('Still here.') }, small.fixtures.tokens['full_access']);
      expect(ok.status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it('a 100 KB header gets a clean 431 before the mock runs, and the server keeps answering', async () => {
    const session = 'limit-header';
    const before = await stateText(session);
    for (const header of [`X-Big: ${'a'.repeat(100_000)}`, `Authorization: Bearer opk_${'A'.repeat(100_000)}`, `X-Mock-Session: ${'s'.repeat(100_000)}`]) {
      const raw = await rawExchange(
        mock.port,
        `POST ${RESUME} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Mock-Session: ${session}\r\n${header}\r\nContent-Length: 2\r\n\r\n{}`,
      );
      expect(raw).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    }
    expect(await stateText(session)).toBe(before);
    const ok = await mock.send(json(RESUME, resumeBody(), session, { authorization: `Bearer ${token('full_access')}` }));
    expect(ok.status).toBe(200);
  });

  it(`the request journal keeps the last ${REQUEST_JOURNAL_LIMIT} requests of a session`, async () => {
    const session = 'limit-requests';
    const total = REQUEST_JOURNAL_LIMIT + 100;
    for (let start = 0; start < total; start += 50) {
      await Promise.all(Array.from({ length: Math.min(50, total - start) }, (_, k) => mock.send(json(`/api/external/v1/n${start + k}/x`, '{}', session))));
    }
    const journal = (await get(`/__mock/requests?limit=${REQUEST_JOURNAL_LIMIT}`, session)).json();
    if (!isObject(journal)) throw new Error('no journal');
    const requests = list(journal, 'requests');
    expect(requests).toHaveLength(REQUEST_JOURNAL_LIMIT);
    const names = new Set(requests.map((r) => str(r, 'path')));
    expect(names.has('/api/external/v1/n99/x')).toBe(false); // the first 100 were dropped
    expect(names.has(`/api/external/v1/n${total - 1}/x`)).toBe(true);
    const sessions = (await mock.send({ method: 'GET', path: '/__mock/sessions' })).json();
    if (!isObject(sessions)) throw new Error('no sessions');
    expect(list(sessions, 'sessions').find((s) => s['name'] === session)?.['requests']).toBe(REQUEST_JOURNAL_LIMIT);
    expect((await get(`/__mock/requests?limit=${REQUEST_JOURNAL_LIMIT + 1}`, session)).status).toBe(400);
  });

  it(`the event journal keeps the last ${EVENT_JOURNAL_LIMIT} writes of a session`, async () => {
    const session = 'limit-events';
    const total = EVENT_JOURNAL_LIMIT + 100;
    for (let start = 0; start < total; start += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, total - start) }, () =>
          mock.send(json(RESUME, resumeBody(), session, { authorization: `Bearer ${token('full_access')}` })),
        ),
      );
      expect(batch.every((r) => r.status === 200)).toBe(true);
    }
    const events = readEvents((await get('/__mock/events', session)).json());
    expect(events).toHaveLength(EVENT_JOURNAL_LIMIT);
    expect(events.map((e) => e['seq'])).toEqual(Array.from({ length: EVENT_JOURNAL_LIMIT }, (_, i) => total - EVENT_JOURNAL_LIMIT + 1 + i));
  }, 30_000);

  it('sessions stay bounded: past maxSessions the least recently used is dropped, and comes back as the seed', async () => {
    const bounded = await startMock({ maxSessions: 5 });
    try {
      const write = (session: string) =>
        bounded.post(RESUME, { project_id: bounded.fixtures.projects['paused'], message: doc('Mine.') }, bounded.fixtures.tokens['full_access'], {
          'x-mock-session': session,
        });
      for (let i = 0; i < 40; i++) expect((await write(`s${i}`)).status).toBe(200);
      const listed = (await bounded.send({ method: 'GET', path: '/__mock/sessions' })).json();
      if (!isObject(listed)) throw new Error('no sessions');
      const names = list(listed, 'sessions').map((s) => str(s, 'name'));
      expect(names.filter((n) => n !== 'default').sort()).toEqual(['s35', 's36', 's37', 's38', 's39']);
      const evicted = readState((await bounded.send({ method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': 's0' } })).json());
      const seed = readState((await bounded.send({ method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': 'never-used' } })).json());
      expect(evicted).toEqual(seed);
    } finally {
      await bounded.close();
    }
  });
});

// ── concurrency ──────────────────────────────────────────────────────────────────────────────────────────────────

describe('concurrent writes to one record', () => {
  /**
   * The mock's clock for these writes: a Thursday, the day on which each resume moves a check-in due tomorrow to the
   * Friday after (rules.ts nextWeeklyCheckIn), so the writes' order shows in their answers. Fixed, so the test means
   * the same on every day it runs.
   */
  const THURSDAY = '2026-11-26T12:00:00Z';
  let shared: RunningMock;
  /** Seed UUIDs by story and persona; a second editor (the reviewer, full access) gets a token of its own. */
  const seed = defaultSeed();
  const reviewerToken = `opk_${randomBytes(32).toString('base64url')}`;
  const uuid = (map: Record<string, string>, key: string): string => {
    const value = map[key];
    if (!value) throw new Error(`no ${key} in the seed fixtures`);
    return value;
  };
  beforeAll(async () => {
    seed.state.tokens.push({
      persona: 'reviewer',
      sha256: createHash('sha256').update(reviewerToken).digest('hex'),
      person_uuid: uuid(seed.fixtures.people, 'reviewer'),
      read_only: false,
    });
    seed.fixtures.tokens['reviewer'] = reviewerToken;
    shared = await startMock({ seed, now: () => new Date(THURSDAY) });
  });
  afterAll(() => shared.close());

  type Write = { i: number; persona: string; caller: string; subscribers: string[]; mentions: string[]; extra: Record<string, unknown> };
  const PEOPLE = ['full_access', 'reviewer', 'comment_only', 'no_access', 'suspended'];
  const WRITERS = ['full_access', 'full_access', 'full_access', 'reviewer', 'reviewer', 'full_access', 'comment_only', 'read_only', 'no_access', 'suspended'];

  function plan(n: number, extra: (i: number) => Record<string, unknown>): Write[] {
    return Array.from({ length: n }, (_, i) => {
      const persona = WRITERS[i % WRITERS.length] ?? 'full_access';
      const subscribers = PEOPLE.filter((_, k) => (i >> k) & 1).map((p) => uuid(seed.fixtures.people, p));
      const mentions = i % 3 === 0 ? [uuid(seed.fixtures.people, PEOPLE[i % PEOPLE.length] ?? 'comment_only')] : [];
      return { i, persona, caller: uuid(seed.fixtures.people, persona === 'read_only' ? 'full_access' : persona), subscribers, mentions, extra: extra(i) };
    });
  }
  const message = (w: Write): string => doc(`write #${w.i}.`, ...w.mentions.map((id) => ({ id, label: 'someone' })));
  /** The subscriptions a write must create: mentioned ∪ caller ∪ subscriber_ids, each once; invited unless only mentioned. */
  function expected(w: Write): string[] {
    const invited = new Set([w.caller, ...w.subscribers]);
    return [...new Set([...w.mentions, ...invited])].map((p) => `${p}:${invited.has(p) ? 'invited' : 'mentioned'}`).sort();
  }

  /** The rows of `state` that the seed does not have. */
  function added(state: StateView, before: StateView): StateView {
    const out = { ...state };
    for (const table of ['activities', 'comment_threads', 'subscription_lists', 'subscriptions', 'notifications'] as const) {
      const old = new Set(before[table].map((row) => row['id']));
      out[table] = state[table].filter((row) => !old.has(row['id']));
    }
    return out;
  }

  /**
   * Every accepted write is exactly one new activity with one thread, one list and its subscriptions (and nothing
   * else was added); returns the activities by write.
   */
  function audit(all: StateView, seedState: StateView, events: JsonObject[], writes: Write[], accepted: Set<number>, action: string): Map<number, JsonObject> {
    const state = added(all, seedState);
    const activities = state.activities.filter((a) => a['action'] === action);
    expect(state.activities).toHaveLength(activities.length);
    expect(activities).toHaveLength(accepted.size);
    const byWrite = new Map<number, JsonObject>();
    for (const activity of activities) {
      const threads = state.comment_threads.filter((t) => t['parent_id'] === activity['id']);
      expect(threads).toHaveLength(1);
      const thread = threads[0] ?? {};
      expect(thread['id']).toBe(activity['comment_thread_id']);
      const written = /write #(\d+)\./.exec(JSON.stringify(thread['message']))?.[1];
      const i = Number(written);
      expect(accepted.has(i), `activity for write #${written}`).toBe(true);
      expect(byWrite.has(i), `write #${i} recorded twice`).toBe(false);
      byWrite.set(i, activity);
      const lists = state.subscription_lists.filter((l) => l['parent_id'] === thread['id']);
      expect(lists).toHaveLength(1);
      expect(lists[0]?.['id']).toBe(thread['subscription_list_id']);
      const subscriptions = state.subscriptions.filter((s) => s['subscription_list_id'] === thread['subscription_list_id']);
      const write = writes[i];
      if (!write) throw new Error(`no write #${i}`);
      expect(subscriptions.map((s) => `${str(s, 'person_uuid')}:${str(s, 'type')}`).sort(), `subscriptions of write #${i}`).toEqual(expected(write));
    }
    // No subscription is lost or orphaned: the rows are exactly the sum of what each write subscribed.
    const lists = new Set(all.subscription_lists.map((l) => l['id']));
    expect(all.subscriptions.every((s) => lists.has(s['subscription_list_id']))).toBe(true);
    expect(state.comment_threads).toHaveLength(accepted.size);
    expect(state.subscription_lists).toHaveLength(accepted.size);
    expect(state.subscriptions).toHaveLength(writes.filter((w) => accepted.has(w.i)).reduce((n, w) => n + expected(w).length, 0));
    // The event journal tells the same story, in commit order.
    expect(events).toHaveLength(accepted.size);
    expect(events.map((e) => e['seq'])).toEqual(Array.from({ length: accepted.size }, (_, k) => k + 1));
    expect(events.map((e) => e['activity_id'])).toEqual(activities.map((a) => a['id']));
    for (const event of events) {
      const thread = state.comment_threads.find((t) => t['parent_id'] === event['activity_id']);
      const rows = state.subscriptions.filter((s) => s['subscription_list_id'] === thread?.['subscription_list_id']);
      expect(list(event, 'subscriptions')).toHaveLength(rows.length);
      expect(state.notifications.filter((n) => n['activity_id'] === event['activity_id'])).toHaveLength(list(event, 'notified').length);
    }
    return byWrite;
  }

  const seedState = async (): Promise<StateView> =>
    readState((await shared.send({ method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': 'untouched-seed' } })).json());
  const tokenOf = (persona: string): string => shared.fixtures.tokens[persona] ?? '';
  const statusFor: Record<string, number> = { full_access: 200, reviewer: 200, comment_only: 403, read_only: 403, no_access: 404, suspended: 401 };

  it('100 concurrent resumes of one project: one activity, thread and subscription list per accepted write, no lost subscription', async () => {
    const session = 'concurrent-resume';
    const writes = plan(100, (i) => ({ send_notifications_to_everyone: i % 2 === 0 }));
    const responses = await Promise.all(
      writes.map((w) =>
        shared.post(
          RESUME,
          { project_id: shared.fixtures.projects['paused'], message: message(w), subscriber_ids: w.subscribers, ...w.extra },
          tokenOf(w.persona),
          { 'x-mock-session': session },
        ),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(writes.map((w) => statusFor[w.persona]));
    const accepted = new Set(writes.filter((_, k) => responses[k]?.status === 200).map((w) => w.i));
    const state = readState((await shared.send({ method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': session } })).json());
    const events = readEvents((await shared.send({ method: 'GET', path: '/__mock/events', headers: { 'x-mock-session': session } })).json());
    audit(state, await seedState(), events, writes, accepted, 'project_resuming');
    const project = state.projects.find((p) => p['uuid'] === uuid(seed.fixtures.projects, 'paused'));
    expect(project?.['stored_status']).toBe('active');
    // The writes were applied one at a time: the k-th accepted answer saw the rule applied k times to the seed's
    // check-in (on a Thursday a resume moves a check-in due tomorrow a week further), and the state holds the last.
    const seeded = (await seedState()).projects.find((p) => p['uuid'] === uuid(seed.fixtures.projects, 'paused'));
    const sequence: string[] = [];
    let due = strOrNull(seeded ?? {}, 'next_check_in_scheduled_at');
    for (let k = 0; k < accepted.size; k++) {
      due = nextWeeklyCheckIn(due, new Date(THURSDAY));
      sequence.push(due);
    }
    expect(new Set(sequence).size).toBeGreaterThan(1);
    const checkIns = responses.filter((r) => r.status === 200).map((r) => str(obj(bodyOf(r), 'project'), 'next_check_in_scheduled_at'));
    expect(checkIns.toSorted()).toEqual(sequence.toSorted());
    expect(project?.['next_check_in_scheduled_at']).toBe(sequence.at(-1));
  });

  it('100 concurrent closes of one goal: consistent rows, and the goal ends as the last accepted write left it', async () => {
    const session = 'concurrent-close';
    const outcomes = [
      { success: 'yes', success_status: 'achieved' },
      { success: 'no', success_status: 'missed' },
      { success: 'partly', success_status: 'missed' },
      { success: 'yes', success_status: 'missed' },
    ];
    const writes = plan(100, (i) => ({ ...outcomes[i % outcomes.length], send_notifications_to_everyone: i % 5 === 0 }));
    const responses = await Promise.all(
      writes.map((w) =>
        shared.post(
          CLOSE,
          { goal_id: shared.fixtures.goals['open'], retrospective: message(w), subscriber_ids: w.subscribers, ...w.extra },
          tokenOf(w.persona),
          { 'x-mock-session': session },
        ),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(writes.map((w) => statusFor[w.persona]));
    const accepted = new Set(writes.filter((_, k) => responses[k]?.status === 200).map((w) => w.i));
    const state = readState((await shared.send({ method: 'GET', path: '/__mock/state', headers: { 'x-mock-session': session } })).json());
    const events = readEvents((await shared.send({ method: 'GET', path: '/__mock/events', headers: { 'x-mock-session': session } })).json());
    const byWrite = audit(state, await seedState(), events, writes, accepted, 'goal_closing');

    const lastActivity = events.at(-1)?.['activity_id'];
    const last = [...byWrite.entries()].find(([, a]) => a['id'] === lastActivity);
    if (!last) throw new Error('the last event has no activity');
    const write = writes[last[0]];
    if (!write) throw new Error('no last write');
    const goal = state.goals.find((g) => g['uuid'] === uuid(seed.fixtures.goals, 'open'));
    if (!goal) throw new Error('the open goal is gone');
    expect({ success: goal['success'], success_status: goal['success_status'], closed_by: strOrNull(goal, 'closed_by_uuid') }).toEqual({
      success: write.extra['success'],
      success_status: write.extra['success_status'],
      closed_by: write.caller,
    });
    expect(strOrNull(goal, 'closed_at')).not.toBeNull();
    // The answer to that write shows the same goal fields.
    const response = responses[write.i];
    if (!response) throw new Error('no answer to the last write');
    const answer = obj(bodyOf(response), 'goal');
    expect({ status: answer['status'], success: answer['success'] }).toEqual({
      status: write.extra['success_status'],
      success: write.extra['success'] === 'yes',
    });
    expect(JSON.parse(str(obj(answer, 'retrospective'), 'content'))).toEqual(JSON.parse(message(write)));
  });

  it('concurrent writes in different sessions never see each other', async () => {
    const sessions = Array.from({ length: 20 }, (_, i) => `isolated-${i}`);
    const responses = await Promise.all(
      sessions.map((s) =>
        shared.post(RESUME, { project_id: shared.fixtures.projects['paused'], message: doc(s) }, tokenOf('full_access'), { 'x-mock-session': s }),
      ),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    for (const s of sessions) {
      const events = readEvents((await shared.send({ method: 'GET', path: '/__mock/events', headers: { 'x-mock-session': s } })).json());
      expect(events).toHaveLength(1);
    }
  });
});
