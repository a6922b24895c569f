// The behaviour every adapter of the mock must show, as one table: the error table of
// RULES.md#transport byte for byte, the state rules and the controls. Each case is data (requests that any
// transport can send: HTTP, fetch through MSW in Node, fetch in a Chromium page) and a check run in the test process.
// mock/test/errors.test.ts runs the error table over HTTP; mock/test/adapters.test.ts and msw.browser.test.ts run the
// whole table on each adapter.
import { expect } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import { fixturesOf, type Fixtures } from '../src/core/controls.ts';
import { defaultSeed } from '../src/domain/seed.ts';
import { CLOSE, RESUME, doc, type Sent } from './http.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';
const NONE = undefined;

// Production's bodies as the spec documents them (spec/test/spec-answers.ts): the table writes no text of its own.
const { messages } = production;
const BAD_REQUEST = production.badRequest;
const NOT_FOUND = production.notFound;
const FRAMEWORK_500 = production.decodingCrash;
const HANDLER_500 = production.operationFailed;
const FORBIDDEN = production.forbidden;

/** The fixtures of the default seed: what every adapter created without a seed serves. */
export function seedFixtures(): Fixtures {
  const seed = defaultSeed();
  return fixturesOf(seed, seed.state);
}

export type ErrorCase = { name: string; request: () => Sent; status: number; body: string; contentType: string | undefined; requestId?: boolean };

/** The error table (RULES.md#transport), for a mock whose body limit is 4096 bytes. */
export function errorTable(fixtures: Fixtures): ErrorCase[] {
  function resumeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return { project_id: fixtures.projects['paused'], message: doc('Back on track.'), ...overrides };
  }
  function closeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return { goal_id: fixtures.goals['open'], success: 'yes', retrospective: doc('Done.'), success_status: 'achieved', ...overrides };
  }
  const json = (path: string, body: unknown, token?: string, headers: Record<string, string> = {}): Sent => ({
    path,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const token = (persona: string): string => fixtures.tokens[persona] ?? '';

  return [
    // 1–4: the endpoint and the router
    {
      name: 'invalid JSON is 400 "Bad Request" as HTML, before anything else (#1)',
      request: () => json(RESUME, '{"project_id":'),
      status: 400,
      body: production.invalidJsonHtml,
      contentType: HTML_TYPE,
      requestId: false,
    },
    {
      name: 'invalid JSON is the framework JSON body when Accept asks for JSON only (#1)',
      request: () => json(RESUME, '{', undefined, { accept: 'application/json' }),
      status: 400,
      body: production.invalidJsonJson,
      contentType: JSON_TYPE,
      requestId: false,
    },
    {
      name: 'a whitespace-only JSON body is invalid JSON (#1)',
      request: () => json(RESUME, '  '),
      status: 400,
      body: production.invalidJsonHtml,
      contentType: HTML_TYPE,
      requestId: false,
    },
    {
      name: 'invalid UTF-8 in a JSON body is invalid JSON (#1)',
      request: () => ({ ...json(RESUME, ''), body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) }),
      status: 400,
      body: production.invalidJsonHtml,
      contentType: HTML_TYPE,
      requestId: false,
    },
    {
      name: 'a body over the size limit is 413 (#2)',
      request: () => json(RESUME, { message: 'x'.repeat(5000) }),
      status: 413,
      body: production.payloadTooLargeHtml,
      contentType: HTML_TYPE,
      requestId: false,
    },
    {
      name: 'a body over the size limit is the framework JSON 413 when Accept asks for JSON (#2)',
      request: () => json(RESUME, { message: 'x'.repeat(5000) }, undefined, { accept: 'application/json' }),
      status: 413,
      body: production.payloadTooLargeJson,
      contentType: JSON_TYPE,
      requestId: false,
    },
    {
      name: 'a POST outside /api/external/v1 is 404 "Not Found" (#3)',
      request: () => json('/api/external/v2/projects/resume', resumeBody()),
      status: 404,
      body: production.routeNotFound,
      contentType: HTML_TYPE,
    },
    {
      name: 'an Accept that allows no JSON is 406 (#4)',
      request: () => json(RESUME, resumeBody(), undefined, { accept: 'text/html' }),
      status: 406,
      body: production.notAcceptable,
      contentType: HTML_TYPE,
      requestId: false,
    },
    {
      name: 'a token sent to the internal API is 401: it takes browser sessions only (auth_test.exs internal_with_token)',
      request: () => json('/api/v2/projects/resume', resumeBody(), token('read_only')),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: 'a full-access token sent to the internal API is 401 too',
      request: () => json('/api/v2/goals/close', closeBody(), token('full_access')),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: 'the internal API checks inputs before authentication too',
      request: () => json('/api/v2/projects/resume', resumeBody({ project_id: 'bad id!' }), token('full_access')),
      status: 404,
      body: NOT_FOUND,
      contentType: NONE,
    },
    {
      name: 'a percent-escaped operation name is matched raw: no such mutation (TurboConnect reads the raw segments)',
      request: () => json('/api/external/v1/projects/%72esume', resumeBody(), token('full_access')),
      status: 404,
      body: production.mutationNotFound,
      contentType: NONE,
    },
    {
      name: 'a malformed percent escape in the path crashes the router: 500 (URI.decode raises)',
      request: () => json('/api/external/v1/projects/res%zzume', resumeBody()),
      status: 500,
      body: production.decodingCrashHtml,
      contentType: HTML_TYPE,
    },
    {
      name: 'a prefix that matches only once decoded crashes the forward: 500',
      request: () => json('/%61pi/external/v1/projects/resume', resumeBody(), undefined, { accept: 'application/json' }),
      status: 500,
      body: FRAMEWORK_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'a path starting with // is a path (empty segments dropped)',
      request: () => json('//api/external/v1/projects/resume', resumeBody()),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    // 5–10: TurboConnect's parser and Match
    {
      name: 'a Content-Type the API cannot parse is 415 before the token (#5)',
      request: () => ({ path: RESUME, headers: { 'content-type': 'text/plain' }, body: 'hello' }),
      status: 415,
      body: production.unsupportedMediaType,
      contentType: JSON_TYPE,
    },
    {
      name: 'an unparseable Content-Type is 415 (#5)',
      request: () => ({ path: RESUME, headers: { 'content-type': 'foo' }, body: '{}' }),
      status: 415,
      body: production.unsupportedMediaType,
      contentType: JSON_TYPE,
    },
    {
      name: 'PUT is 405 in plain text with no Content-Type (#6)',
      request: () => ({ ...json(RESUME, resumeBody()), method: 'PUT' }),
      status: 405,
      body: production.methodNotAllowed,
      contentType: NONE,
    },
    { name: 'DELETE is 405 (#6)', request: () => ({ method: 'DELETE', path: CLOSE }), status: 405, body: production.methodNotAllowed, contentType: NONE },
    {
      name: 'a POST with "_method": "PUT" is overridden and 405 (#6)',
      request: () => json(RESUME, resumeBody({ _method: 'put' })),
      status: 405,
      body: production.methodNotAllowed,
      contentType: NONE,
    },
    {
      name: 'no operation name is 400 "Missing query name" (#7)',
      request: () => json('/api/external/v1/', {}),
      status: 400,
      body: production.missingQueryName,
      contentType: NONE,
    },
    {
      name: 'three name segments are 400 "Invalid query name" (#8)',
      request: () => json('/api/external/v1/projects/resume/now', {}),
      status: 400,
      body: messages.invalidQueryName(['projects', 'resume', 'now']),
      contentType: NONE,
    },
    {
      name: 'an unknown mutation is 404 "Mutation not found", even without a token (#9)',
      request: () => json('/api/external/v1/projects/get', {}),
      status: 404,
      body: production.mutationNotFound,
      contentType: NONE,
    },
    {
      name: 'an internal-only mutation is 404 "Mutation not found" (#9)',
      request: () => json('/api/external/v1/api_tokens/create', {}),
      status: 404,
      body: production.mutationNotFound,
      contentType: NONE,
    },
    {
      name: 'names are case-sensitive (#9)',
      request: () => json('/api/external/v1/Projects/Resume', resumeBody()),
      status: 404,
      body: production.mutationNotFound,
      contentType: NONE,
    },
    {
      name: 'GET on a mutation is 404 "Query not found", even without a token (#10)',
      request: () => ({ method: 'GET', path: RESUME }),
      status: 404,
      body: production.queryNotFound,
      contentType: NONE,
    },
    // 11–20: input decoding, before the token
    {
      name: 'an unknown field is 400 before the token is checked (#11)',
      request: () => json(RESUME, resumeBody({ name: 'x' })),
      status: 400,
      body: BAD_REQUEST(messages.unknownField('name')),
      contentType: NONE,
    },
    {
      name: 'a top-level array is the unknown field _json (#11, decision 2)',
      request: () => json(CLOSE, '[1,2]'),
      status: 400,
      body: BAD_REQUEST(messages.unknownField('_json')),
      contentType: NONE,
    },
    {
      name: 'null in a required field is 400 (#13)',
      request: () => json(RESUME, resumeBody({ project_id: null })),
      status: 400,
      body: BAD_REQUEST(messages.nullField('project_id')),
      contentType: NONE,
    },
    {
      name: 'an empty id counts as null (#13)',
      request: () => json(CLOSE, closeBody({ goal_id: '' })),
      status: 400,
      body: BAD_REQUEST(messages.nullField('goal_id')),
      contentType: NONE,
    },
    {
      name: 'the rich-text string "null" counts as null (#13)',
      request: () => json(RESUME, resumeBody({ message: 'null' })),
      status: 400,
      body: BAD_REQUEST(messages.nullField('message')),
      contentType: NONE,
    },
    {
      name: 'null success_status is 400 (#13)',
      request: () => json(CLOSE, closeBody({ success_status: null })),
      status: 400,
      body: BAD_REQUEST(messages.nullField('success_status')),
      contentType: NONE,
    },
    {
      name: 'a number for success is 400 "Unknown input type: string" (#14)',
      request: () => json(CLOSE, closeBody({ success: 1 })),
      status: 400,
      body: BAD_REQUEST(messages.unknownType('string')),
      contentType: NONE,
    },
    {
      name: 'the string "true" for send_notifications_to_everyone is 400 (#15)',
      request: () => json(RESUME, resumeBody({ send_notifications_to_everyone: 'true' })),
      status: 400,
      body: BAD_REQUEST(messages.unknownType('boolean')),
      contentType: NONE,
    },
    {
      name: 'success_status is case-sensitive and printed as sent (#16)',
      request: () => json(CLOSE, closeBody({ success_status: 'Achieved' })),
      status: 400,
      body: BAD_REQUEST(messages.invalidEnum('success_status', 'Achieved', ['achieved', 'missed'])),
      contentType: NONE,
    },
    {
      name: 'a number for success_status is printed raw (#16)',
      request: () => json(CLOSE, closeBody({ success_status: 5 })),
      status: 400,
      body: BAD_REQUEST(messages.invalidEnum('success_status', '5', ['achieved', 'missed'])),
      contentType: NONE,
    },
    {
      name: 'a boolean for success_status is printed raw (#16)',
      request: () => json(CLOSE, closeBody({ success_status: true })),
      status: 400,
      body: BAD_REQUEST(messages.invalidEnum('success_status', 'true', ['achieved', 'missed'])),
      contentType: NONE,
    },
    {
      name: 'an id with a character outside base 62 is 404 before the token (#17)',
      request: () => json(RESUME, resumeBody({ project_id: 'abc_def' })),
      status: 404,
      body: NOT_FOUND,
      contentType: NONE,
    },
    {
      name: 'an id longer than 22 characters after the last dash is 404 (#17)',
      request: () => json(CLOSE, closeBody({ goal_id: 'A'.repeat(23) })),
      status: 404,
      body: NOT_FOUND,
      contentType: NONE,
    },
    {
      name: 'an undecodable id in subscriber_ids is 404 (#17)',
      request: () => json(RESUME, resumeBody({ subscriber_ids: ['bob williams'] })),
      status: 404,
      body: NOT_FOUND,
      contentType: NONE,
    },
    {
      name: 'a number for an id crashes the decoder: 500 (#18)',
      request: () => json(RESUME, resumeBody({ project_id: 42 })),
      status: 500,
      body: FRAMEWORK_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'an id ending in a dash crashes the decoder: 500 (#18)',
      request: () => json(CLOSE, closeBody({ goal_id: 'convert-more-' })),
      status: 500,
      body: FRAMEWORK_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'a 22-character id above 2^128 crashes the decoder: 500 (#18)',
      request: () => json(CLOSE, closeBody({ goal_id: '9999999999999999999999' })),
      status: 500,
      body: FRAMEWORK_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'a rich-text object instead of a string is 500 (#19)',
      request: () => json(RESUME, resumeBody({ message: { type: 'doc', content: [] } })),
      status: 500,
      body: FRAMEWORK_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'a rich-text string that is not JSON is 500 (#19)',
      request: () => json(CLOSE, closeBody({ retrospective: 'We did it!' })),
      status: 500,
      body: FRAMEWORK_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'an empty rich-text string is 500 (#19)',
      request: () => json(RESUME, resumeBody({ message: '' })),
      status: 500,
      body: FRAMEWORK_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'subscriber_ids that is not an array is 500 (#20)',
      request: () => json(RESUME, resumeBody({ subscriber_ids: 'bob' })),
      status: 500,
      body: FRAMEWORK_500,
      contentType: JSON_TYPE,
    },
    // 21–22: the token and the read-only guard
    {
      name: 'no Authorization header is 401 in plain text (#21)',
      request: () => json(RESUME, resumeBody()),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: 'a lowercase "bearer" scheme is 401 (#21)',
      request: () => json(RESUME, resumeBody(), undefined, { authorization: `bearer ${token('full_access')}` }),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: 'another scheme is 401 (#21)',
      request: () => json(RESUME, resumeBody(), undefined, { authorization: `Token ${token('full_access')}` }),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: '"Bearer" alone is 401 (#21)',
      request: () => json(RESUME, resumeBody(), undefined, { authorization: 'Bearer' }),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: 'a tab as the separator is 401 (#21)',
      request: () => json(RESUME, resumeBody(), undefined, { authorization: `Bearer\t${token('full_access')}` }),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: 'an unknown token in production format is 401 (#21)',
      request: () => json(RESUME, resumeBody(), `opk_${'A'.repeat(43)}`),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: "a suspended person's token is 401 (#21)",
      request: () => json(RESUME, resumeBody(), token('suspended')),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: 'no Content-Type ignores the body: 401 without a token (#21)',
      request: () => ({ path: RESUME, body: JSON.stringify({ name: 'x' }) }),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: 'a well-formed unknown id is 401 without a token (the lookup is after auth) (#21)',
      request: () => json(RESUME, resumeBody({ project_id: 'nonexistent' })),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: 'a read-only token is 403 in plain text (#22)',
      request: () => json(RESUME, resumeBody(), token('read_only')),
      status: 403,
      body: production.readOnly,
      contentType: NONE,
    },
    {
      name: 'a read-only token is 403 even with required fields missing (#22 before #23)',
      request: () => json(CLOSE, {}, token('read_only')),
      status: 403,
      body: production.readOnly,
      contentType: NONE,
    },
    {
      name: 'a read-only token still gets the input errors first (#22 after #11)',
      request: () => json(CLOSE, closeBody({ hacker: true }), token('read_only')),
      status: 400,
      body: BAD_REQUEST(messages.unknownField('hacker')),
      contentType: NONE,
    },
    {
      name: 'a read-only token still gets the undecodable-id 404 first (#22 after #17)',
      request: () => json(RESUME, resumeBody({ project_id: 'no such id!' }), token('read_only')),
      status: 404,
      body: NOT_FOUND,
      contentType: NONE,
    },
    // 23–26: after authentication
    {
      name: 'an empty resume body lists both missing fields in declaration order (#23)',
      request: () => json(RESUME, {}, token('full_access')),
      status: 400,
      body: BAD_REQUEST(messages.missingFields(['project_id', 'message'])),
      contentType: JSON_TYPE,
    },
    {
      name: 'an empty close body lists all four missing fields (#23)',
      request: () => json(CLOSE, {}, token('full_access')),
      status: 400,
      body: BAD_REQUEST(messages.missingFields(['goal_id', 'success', 'retrospective', 'success_status'])),
      contentType: JSON_TYPE,
    },
    {
      name: 'only the missing fields are listed (#23)',
      request: () => json(CLOSE, { goal_id: fixtures.goals['open'], success: 'yes' }, token('full_access')),
      status: 400,
      body: BAD_REQUEST(messages.missingFields(['retrospective', 'success_status'])),
      contentType: JSON_TYPE,
    },
    {
      name: 'no Content-Type with a valid token is 400 missing fields (#23)',
      request: () => ({ path: RESUME, headers: { authorization: `Bearer ${token('full_access')}` }, body: JSON.stringify(resumeBody()) }),
      status: 400,
      body: BAD_REQUEST(messages.missingFields(['project_id', 'message'])),
      contentType: JSON_TYPE,
    },
    {
      name: 'an empty body without a token is 401 before the missing fields (#21 before #23)',
      request: () => json(RESUME, {}),
      status: 401,
      body: production.unauthorized,
      contentType: NONE,
    },
    {
      name: 'a well-formed id of nothing is the JSON 404 after auth (#24)',
      request: () => json(RESUME, resumeBody({ project_id: 'nonexistent' }), token('full_access')),
      status: 404,
      body: NOT_FOUND,
      contentType: JSON_TYPE,
    },
    {
      name: 'a goal the caller cannot see is 404, not 403 (#24)',
      request: () => json(CLOSE, closeBody(), token('no_access')),
      status: 404,
      body: NOT_FOUND,
      contentType: JSON_TYPE,
    },
    {
      name: 'a project the caller cannot see is 404, not 403 (#24)',
      request: () => json(RESUME, resumeBody(), token('no_access')),
      status: 404,
      body: NOT_FOUND,
      contentType: JSON_TYPE,
    },
    {
      name: 'a project the caller can only comment on is 403 JSON (#25)',
      request: () => json(RESUME, resumeBody(), token('comment_only')),
      status: 403,
      body: FORBIDDEN,
      contentType: JSON_TYPE,
    },
    {
      name: 'a goal the caller can only comment on is 403 JSON (#25)',
      request: () => json(CLOSE, closeBody(), token('comment_only')),
      status: 403,
      body: FORBIDDEN,
      contentType: JSON_TYPE,
    },
    {
      name: 'a rich-text value that is JSON but not an object fails the operation: 500 (#26)',
      request: () => json(RESUME, resumeBody({ message: '[]' }), token('full_access')),
      status: 500,
      body: HANDLER_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'a null in subscriber_ids fails the operation: 500 (#26)',
      request: () => json(RESUME, resumeBody({ subscriber_ids: [null] }), token('full_access')),
      status: 500,
      body: HANDLER_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'a subscriber id of nobody fails the operation: 500 (#26)',
      request: () => json(CLOSE, closeBody({ subscriber_ids: ['nobody-FjO1YSsAoCpZz3SMRvlSvA'] }), token('full_access')),
      status: 500,
      body: HANDLER_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'a blank success fails the operation: 500 (#26)',
      request: () => json(CLOSE, closeBody({ success: '   ' }), token('full_access')),
      status: 500,
      body: HANDLER_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'a mention whose id cannot be decoded fails the operation: 500 (#26)',
      request: () => json(CLOSE, closeBody({ retrospective: doc('Thanks ', { id: 'carol davis!', label: 'Carol' }) }), token('full_access')),
      status: 500,
      body: HANDLER_500,
      contentType: JSON_TYPE,
    },
    {
      name: 'a mention of nobody fails the operation: 500 (#26)',
      request: () => json(RESUME, resumeBody({ message: doc('Thanks ', { id: 'ghost-FjO1YSsAoCpZz3SMRvlSvA', label: 'Ghost' }) }), token('full_access')),
      status: 500,
      body: HANDLER_500,
      contentType: JSON_TYPE,
    },
  ];
}

// ── the shared table: every adapter runs these ────────────────────────────────────────────────────────────────────

/** One answer as any transport sees it: lower-case header names. */
export type Exchange = { status: number; headers: Record<string, string | undefined>; text: string };
/** Sends one request to an adapter (the runner adds the case's X-Mock-Session header). */
export type Transport = (sent: Sent) => Promise<Exchange>;

/** A case: requests sent in order in the case's own session, then a check of every answer. */
export type BehaviourCase = { name: string; requests: Sent[]; check(answers: Exchange[]): void };

const CACHE_CONTROL = 'max-age=0, private, must-revalidate';
const STATE: Sent = { method: 'GET', path: '/__mock/state' };

function parsed(answer: Exchange | undefined): Record<string, unknown> {
  const value: unknown = JSON.parse(answer?.text ?? 'null');
  if (!isObject(value)) throw new Error(`not a JSON object: ${answer?.text.slice(0, 200)}`);
  return value;
}
function member(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const inner = value[key];
  if (!isObject(inner)) throw new Error(`no object at ${key}`);
  return inner;
}
function rows(state: Record<string, unknown>, table: string): Array<Record<string, unknown>> {
  const list = state[table];
  return Array.isArray(list) ? list.filter(isObject) : [];
}

export function behaviourTable(fixtures: Fixtures): BehaviourCase[] {
  const token = (persona: string): string => fixtures.tokens[persona] ?? '';
  const json = (path: string, body: unknown, persona?: string, headers: Record<string, string> = {}): Sent => ({
    path,
    headers: { 'content-type': 'application/json', ...(persona ? { authorization: `Bearer ${token(persona)}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  const resume = (story: string, persona = 'full_access', extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Sent =>
    json(RESUME, { project_id: fixtures.projects[story], message: doc('We can continue.'), ...extra }, persona, headers);
  const close = (story: string, persona = 'full_access', extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Sent =>
    json(CLOSE, { goal_id: fixtures.goals[story], success: 'yes', retrospective: doc('Done.'), success_status: 'achieved', ...extra }, persona, headers);
  // The error table: each row's exact answer, and the state left as it was.
  const errors: BehaviourCase[] = errorTable(fixtures).map((row) => ({
    name: `error table: ${row.name}`,
    requests: [STATE, row.request(), STATE],
    check([before, answer, after]) {
      expect({ status: answer?.status, body: answer?.text, contentType: answer?.headers['content-type'] }).toEqual({
        status: row.status,
        body: row.body,
        contentType: row.contentType,
      });
      expect(answer?.headers['cache-control']).toBe(CACHE_CONTROL);
      expect(answer?.headers['x-request-id'] !== undefined).toBe(row.requestId ?? true);
      expect(after?.text).toBe(before?.text);
    },
  }));

  const state: BehaviourCase[] = [
    {
      name: 'state: resuming a paused project makes it active, and it stays active on the next call (RULES.md#decision-3)',
      requests: [resume('paused'), resume('paused'), STATE],
      check([first, second, after]) {
        expect([first?.status, second?.status]).toEqual([200, 200]);
        expect(first?.headers['content-type']).toBe(JSON_TYPE);
        expect(member(parsed(first), 'project')['state']).toBe('active');
        expect(member(parsed(second), 'project')['state']).toBe('active');
        const stored = rows(parsed(after), 'projects').map((p) => p['stored_status']);
        expect(stored).toEqual(['active', 'active', 'closed']);
        expect(rows(parsed(after), 'activities').filter((a) => a['action'] === 'project_resuming')).toHaveLength(2);
      },
    },
    {
      name: 'state: a read-only token gets the plain-text 403 and the project stays paused',
      requests: [resume('paused', 'read_only'), STATE],
      check([answer, after]) {
        expect([answer?.status, answer?.text, answer?.headers['content-type']]).toEqual([403, production.readOnly, undefined]);
        expect(rows(parsed(after), 'projects')[0]?.['stored_status']).toBe('paused');
      },
    },
    {
      name: 'state: resuming a closed project is 200 and leaves it closed',
      requests: [resume('closed')],
      check([answer]) {
        expect(answer?.status).toBe(200);
        expect(member(parsed(answer), 'project')).toMatchObject({ state: 'closed', success_status: 'achieved' });
      },
    },
    {
      name: 'state: closing an open goal records the closer and the outcome; closing it again is 200 and overwrites them',
      requests: [close('open'), close('open', 'full_access', { success: 'no', success_status: 'missed' }), STATE],
      check([first, second, after]) {
        expect([first?.status, second?.status]).toEqual([200, 200]);
        expect(member(parsed(first), 'goal')).toMatchObject({ is_closed: true, success: true, status: 'achieved' });
        expect(member(member(parsed(first), 'goal'), 'closed_by')['id']).toBe(fixtures.people['full_access']);
        expect(member(parsed(second), 'goal')).toMatchObject({ is_closed: true, success: false, status: 'missed' });
        expect(rows(parsed(after), 'activities').filter((a) => a['action'] === 'goal_closing')).toHaveLength(3);
      },
    },
    {
      name: 'state: a comment-only person gets 403 JSON and a person without access 404 JSON; nothing changes',
      requests: [STATE, close('open', 'comment_only'), resume('paused', 'no_access'), STATE],
      check([before, forbidden, hidden, after]) {
        expect([forbidden?.status, forbidden?.headers['content-type']]).toEqual([403, JSON_TYPE]);
        expect([hidden?.status, hidden?.headers['content-type']]).toEqual([404, JSON_TYPE]);
        expect(after?.text).toBe(before?.text);
      },
    },
    {
      name: 'state: a close with send_notifications_to_everyone notifies the space members but the author, and visible subscribers',
      requests: [
        close('open', 'full_access', { send_notifications_to_everyone: true, subscriber_ids: [fixtures.people['comment_only']] }),
        { method: 'GET', path: '/__mock/events' },
      ],
      check([answer, events]) {
        expect(answer?.status).toBe(200);
        const list = parsed(events)['events'];
        expect(Array.isArray(list) ? list.length : -1).toBe(1);
        const event: unknown = Array.isArray(list) ? list[0] : undefined;
        if (!isObject(event) || !Array.isArray(event['notified'])) throw new Error('no event');
        expect(event['notified'].map((p: unknown) => (isObject(p) ? p['full_name'] : undefined)).sort()).toEqual(['Bob Williams', 'Carol Davis', 'Grace Kim']);
        expect(event).toMatchObject({ seq: 1, activity: 'goal_closing', record: { type: 'goal', id: fixtures.goals['open'] }, send_to_everyone: true });
      },
    },
  ];

  const controls: BehaviourCase[] = [
    {
      name: 'controls: GET /__mock/fixtures gives the tokens and ids the seed serves',
      requests: [{ method: 'GET', path: '/__mock/fixtures' }],
      check([answer]) {
        expect(answer?.status).toBe(200);
        expect(parsed(answer)).toMatchObject({ tokens: fixtures.tokens, projects: fixtures.projects, goals: fixtures.goals, people: fixtures.people });
      },
    },
    {
      name: 'controls: POST /__mock/reset restores the seed after a write',
      requests: [STATE, resume('paused'), STATE, { method: 'POST', path: '/__mock/reset' }, STATE],
      check([seed, write, changed, reset, after]) {
        expect(write?.status).toBe(200);
        expect(changed?.text).not.toBe(seed?.text);
        expect(reset?.status).toBe(200);
        expect(after?.text).toBe(seed?.text);
      },
    },
    {
      name: 'controls: GET /__mock/requests lists the requests with status and operation, never a token',
      requests: [resume('paused'), json(CLOSE, {}), { method: 'GET', path: '/__mock/requests?limit=10' }],
      check([, , journal]) {
        const list = parsed(journal)['requests'];
        if (!Array.isArray(list)) throw new Error('no requests');
        expect(list.filter(isObject).map((r) => [r['method'], r['path'], r['status'], r['operation']])).toEqual([
          ['POST', RESUME, 200, 'resumeProject'],
          ['POST', CLOSE, 401, 'closeGoal'],
        ]);
        expect(journal?.text).not.toContain('opk_');
      },
    },
    {
      name: 'controls: Prefer code=404 answers the documented body and changes nothing',
      requests: [STATE, resume('paused', 'full_access', {}, { prefer: 'code=404' }), STATE],
      check([before, answer, after]) {
        expect([answer?.status, answer?.text]).toEqual([404, production.notFound]);
        expect(after?.text).toBe(before?.text);
      },
    },
    {
      name: 'controls: Prefer code=401 answers the plain-text body with no Content-Type',
      requests: [json(CLOSE, {}, undefined, { prefer: 'code=401' })],
      check([answer]) {
        expect([answer?.status, answer?.text, answer?.headers['content-type']]).toEqual([401, production.unauthorized, undefined]);
      },
    },
    {
      name: 'controls: Prefer code=418 is a mock control error naming the documented statuses',
      requests: [json(CLOSE, {}, undefined, { prefer: 'code=418' })],
      check([answer]) {
        expect(answer?.status).toBe(400);
        expect(parsed(answer)).toEqual({
          error: 'Mock control error',
          message: 'Prefer: code=418 is not documented for closeGoal; documented: 200, 400, 401, 403, 404, 405, 406, 413, 415, 500',
        });
      },
    },
    {
      name: 'controls: Prefer example=closed_project picks the named example',
      requests: [resume('paused', 'full_access', {}, { prefer: 'example=closed_project' })],
      check([answer]) {
        expect(member(parsed(answer), 'project')['state']).toBe('closed');
      },
    },
    {
      name: 'controls: a malformed X-Mock-Session is a mock control error',
      requests: [resume('paused', 'full_access', {}, { 'x-mock-session': 'no spaces please' })],
      check([answer]) {
        expect(answer?.status).toBe(400);
        expect(parsed(answer)).toEqual({
          error: 'Mock control error',
          message: 'X-Mock-Session must be 1 to 64 of A-Z a-z 0-9 . _ : -, got "no spaces please"',
        });
      },
    },
    {
      name: 'controls: GET /__mock/events?since= filters by seq',
      requests: [
        resume('paused'),
        resume('active'),
        { method: 'GET', path: '/__mock/events?since=1' },
        { method: 'GET', path: '/__mock/events?since=yesterday' },
      ],
      check([, , since, bad]) {
        const list = parsed(since)['events'];
        expect(Array.isArray(list) ? list.filter(isObject).map((e) => e['seq']) : []).toEqual([2]);
        expect(bad?.status).toBe(400);
      },
    },
  ];
  return [...errors, ...state, ...controls];
}

/** Runs one case through a transport in its own session, and returns the answers for its check. */
export async function runCase(transport: Transport, behaviour: BehaviourCase, session: string): Promise<Exchange[]> {
  const answers: Exchange[] = [];
  for (const sent of behaviour.requests) {
    const headers = { 'x-mock-session': session, ...(sent.headers ?? {}) };
    answers.push(await transport({ ...sent, headers }));
  }
  return answers;
}
