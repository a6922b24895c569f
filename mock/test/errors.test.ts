// Every row of the error table in transport-auth-errors.md that applies to these two operations, over real HTTP:
// exact status, exact body bytes, production's content type (none for plain text and input-decoding errors), and
// the state left exactly as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE, RESUME, doc, startMock, type RunningMock, type Sent } from './http.ts';

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock({ bodyLimit: 4096 });
});
afterAll(() => mock.close());

const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';
const NONE = undefined;

const BAD_REQUEST = (message: string): string => JSON.stringify({ error: 'Bad request', message });
const NOT_FOUND = '{"error":"Not found","message":"The requested resource was not found"}';
const FRAMEWORK_500 = '{"errors":{"detail":"Internal Server Error"}}';
const HANDLER_500 = '{"error":"Internal server error","message":"An unexpected error occurred"}';
const FORBIDDEN = `{"error":"Forbidden","message":"You don't have permission to perform this action"}`;

type Case = { name: string; request: () => Sent; status: number; body: string; contentType: string | undefined; requestId?: boolean };

function resumeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { project_id: mock.fixtures.projects['paused'], message: doc('Back on track.'), ...overrides };
}
function closeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { goal_id: mock.fixtures.goals['open'], success: 'yes', retrospective: doc('Done.'), success_status: 'achieved', ...overrides };
}
const json = (path: string, body: unknown, token?: string, headers: Record<string, string> = {}): Sent => ({
  path,
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const token = (persona: string): string => mock.fixtures.tokens[persona] ?? '';

const cases: Case[] = [
  // 1–4: the endpoint and the router
  { name: 'invalid JSON is 400 "Bad Request" as HTML, before anything else (#1)', request: () => json(RESUME, '{"project_id":'), status: 400, body: 'Bad Request', contentType: HTML_TYPE, requestId: false },
  { name: 'invalid JSON is the framework JSON body when Accept asks for JSON only (#1)', request: () => json(RESUME, '{', undefined, { accept: 'application/json' }), status: 400, body: '{"errors":{"detail":"Bad Request"}}', contentType: JSON_TYPE, requestId: false },
  { name: 'a whitespace-only JSON body is invalid JSON (#1)', request: () => json(RESUME, '  '), status: 400, body: 'Bad Request', contentType: HTML_TYPE, requestId: false },
  { name: 'invalid UTF-8 in a JSON body is invalid JSON (#1)', request: () => ({ ...json(RESUME, ''), body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) }), status: 400, body: 'Bad Request', contentType: HTML_TYPE, requestId: false },
  { name: 'a body over the size limit is 413 (#2)', request: () => json(RESUME, { message: 'x'.repeat(5000) }), status: 413, body: 'Request Entity Too Large', contentType: HTML_TYPE, requestId: false },
  { name: 'a body over the size limit is the framework JSON 413 when Accept asks for JSON (#2)', request: () => json(RESUME, { message: 'x'.repeat(5000) }, undefined, { accept: 'application/json' }), status: 413, body: '{"errors":{"detail":"Request Entity Too Large"}}', contentType: JSON_TYPE, requestId: false },
  { name: 'a POST outside /api/external/v1 is 404 "Not Found" (#3)', request: () => json('/api/external/v2/projects/resume', resumeBody()), status: 404, body: 'Not Found', contentType: HTML_TYPE },
  { name: 'an Accept that allows no JSON is 406 (#4)', request: () => json(RESUME, resumeBody(), undefined, { accept: 'text/html' }), status: 406, body: 'Not Acceptable', contentType: HTML_TYPE, requestId: false },
  { name: 'a token sent to the internal API is 401: it takes browser sessions only (auth_test.exs internal_with_token)', request: () => json('/api/v2/projects/resume', resumeBody(), token('read_only')), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: 'a full-access token sent to the internal API is 401 too', request: () => json('/api/v2/goals/close', closeBody(), token('full_access')), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: 'the internal API checks inputs before authentication too', request: () => json('/api/v2/projects/resume', resumeBody({ project_id: 'bad id!' }), token('full_access')), status: 404, body: NOT_FOUND, contentType: NONE },
  { name: 'a percent-escaped operation name is matched raw: no such mutation (TurboConnect reads the raw segments)', request: () => json('/api/external/v1/projects/%72esume', resumeBody(), token('full_access')), status: 404, body: 'Mutation not found', contentType: NONE },
  { name: 'a malformed percent escape in the path crashes the router: 500 (URI.decode raises)', request: () => json('/api/external/v1/projects/res%zzume', resumeBody()), status: 500, body: 'Internal Server Error', contentType: HTML_TYPE },
  { name: 'a prefix that matches only once decoded crashes the forward: 500', request: () => json('/%61pi/external/v1/projects/resume', resumeBody(), undefined, { accept: 'application/json' }), status: 500, body: FRAMEWORK_500, contentType: JSON_TYPE },
  { name: 'a path starting with // is a path (empty segments dropped)', request: () => json('//api/external/v1/projects/resume', resumeBody()), status: 401, body: 'Unauthorized', contentType: NONE },
  // 5–10: TurboConnect's parser and Match
  { name: 'a Content-Type the API cannot parse is 415 before the token (#5)', request: () => ({ path: RESUME, headers: { 'content-type': 'text/plain' }, body: 'hello' }), status: 415, body: '{"errors":{"detail":"Unsupported Media Type"}}', contentType: JSON_TYPE },
  { name: 'an unparseable Content-Type is 415 (#5)', request: () => ({ path: RESUME, headers: { 'content-type': 'foo' }, body: '{}' }), status: 415, body: '{"errors":{"detail":"Unsupported Media Type"}}', contentType: JSON_TYPE },
  { name: 'PUT is 405 in plain text with no Content-Type (#6)', request: () => ({ ...json(RESUME, resumeBody()), method: 'PUT' }), status: 405, body: 'Method Not Allowed', contentType: NONE },
  { name: 'DELETE is 405 (#6)', request: () => ({ method: 'DELETE', path: CLOSE }), status: 405, body: 'Method Not Allowed', contentType: NONE },
  { name: 'a POST with "_method": "PUT" is overridden and 405 (#6)', request: () => json(RESUME, resumeBody({ _method: 'put' })), status: 405, body: 'Method Not Allowed', contentType: NONE },
  { name: 'no operation name is 400 "Missing query name" (#7)', request: () => json('/api/external/v1/', {}), status: 400, body: 'Missing query name', contentType: NONE },
  { name: 'three name segments are 400 "Invalid query name" (#8)', request: () => json('/api/external/v1/projects/resume/now', {}), status: 400, body: 'Invalid query name: projects/resume/now', contentType: NONE },
  { name: 'an unknown mutation is 404 "Mutation not found", even without a token (#9)', request: () => json('/api/external/v1/projects/get', {}), status: 404, body: 'Mutation not found', contentType: NONE },
  { name: 'an internal-only mutation is 404 "Mutation not found" (#9)', request: () => json('/api/external/v1/api_tokens/create', {}), status: 404, body: 'Mutation not found', contentType: NONE },
  { name: 'names are case-sensitive (#9)', request: () => json('/api/external/v1/Projects/Resume', resumeBody()), status: 404, body: 'Mutation not found', contentType: NONE },
  { name: 'GET on a mutation is 404 "Query not found", even without a token (#10)', request: () => ({ method: 'GET', path: RESUME }), status: 404, body: 'Query not found', contentType: NONE },
  // 11–20: input decoding, before the token
  { name: 'an unknown field is 400 before the token is checked (#11)', request: () => json(RESUME, resumeBody({ name: 'x' })), status: 400, body: BAD_REQUEST('Unknown input field: name'), contentType: NONE },
  { name: 'a top-level array is the unknown field _json (#11, decision 2)', request: () => json(CLOSE, '[1,2]'), status: 400, body: BAD_REQUEST('Unknown input field: _json'), contentType: NONE },
  { name: 'null in a required field is 400 (#13)', request: () => json(RESUME, resumeBody({ project_id: null })), status: 400, body: BAD_REQUEST("Field 'project_id' cannot be null"), contentType: NONE },
  { name: 'an empty id counts as null (#13)', request: () => json(CLOSE, closeBody({ goal_id: '' })), status: 400, body: BAD_REQUEST("Field 'goal_id' cannot be null"), contentType: NONE },
  { name: 'the rich-text string "null" counts as null (#13)', request: () => json(RESUME, resumeBody({ message: 'null' })), status: 400, body: BAD_REQUEST("Field 'message' cannot be null"), contentType: NONE },
  { name: 'null success_status is 400 (#13)', request: () => json(CLOSE, closeBody({ success_status: null })), status: 400, body: BAD_REQUEST("Field 'success_status' cannot be null"), contentType: NONE },
  { name: 'a number for success is 400 "Unknown input type: string" (#14)', request: () => json(CLOSE, closeBody({ success: 1 })), status: 400, body: BAD_REQUEST('Unknown input type: string'), contentType: NONE },
  { name: 'the string "true" for send_notifications_to_everyone is 400 (#15)', request: () => json(RESUME, resumeBody({ send_notifications_to_everyone: 'true' })), status: 400, body: BAD_REQUEST('Unknown input type: boolean'), contentType: NONE },
  { name: 'success_status is case-sensitive and printed as sent (#16)', request: () => json(CLOSE, closeBody({ success_status: 'Achieved' })), status: 400, body: BAD_REQUEST('Invalid value for enum success_status: Achieved. Allowed values: achieved, missed'), contentType: NONE },
  { name: 'a number for success_status is printed raw (#16)', request: () => json(CLOSE, closeBody({ success_status: 5 })), status: 400, body: BAD_REQUEST('Invalid value for enum success_status: 5. Allowed values: achieved, missed'), contentType: NONE },
  { name: 'a boolean for success_status is printed raw (#16)', request: () => json(CLOSE, closeBody({ success_status: true })), status: 400, body: BAD_REQUEST('Invalid value for enum success_status: true. Allowed values: achieved, missed'), contentType: NONE },
  { name: 'an id with a character outside base 62 is 404 before the token (#17)', request: () => json(RESUME, resumeBody({ project_id: 'abc_def' })), status: 404, body: NOT_FOUND, contentType: NONE },
  { name: 'an id longer than 22 characters after the last dash is 404 (#17)', request: () => json(CLOSE, closeBody({ goal_id: 'A'.repeat(23) })), status: 404, body: NOT_FOUND, contentType: NONE },
  { name: 'an undecodable id in subscriber_ids is 404 (#17)', request: () => json(RESUME, resumeBody({ subscriber_ids: ['bob williams'] })), status: 404, body: NOT_FOUND, contentType: NONE },
  { name: 'a number for an id crashes the decoder: 500 (#18)', request: () => json(RESUME, resumeBody({ project_id: 42 })), status: 500, body: FRAMEWORK_500, contentType: JSON_TYPE },
  { name: 'an id ending in a dash crashes the decoder: 500 (#18)', request: () => json(CLOSE, closeBody({ goal_id: 'convert-more-' })), status: 500, body: FRAMEWORK_500, contentType: JSON_TYPE },
  { name: 'a 22-character id above 2^128 crashes the decoder: 500 (#18)', request: () => json(CLOSE, closeBody({ goal_id: '9999999999999999999999' })), status: 500, body: FRAMEWORK_500, contentType: JSON_TYPE },
  { name: 'a rich-text object instead of a string is 500 (#19)', request: () => json(RESUME, resumeBody({ message: { type: 'doc', content: [] } })), status: 500, body: FRAMEWORK_500, contentType: JSON_TYPE },
  { name: 'a rich-text string that is not JSON is 500 (#19)', request: () => json(CLOSE, closeBody({ retrospective: 'We did it!' })), status: 500, body: FRAMEWORK_500, contentType: JSON_TYPE },
  { name: 'an empty rich-text string is 500 (#19)', request: () => json(RESUME, resumeBody({ message: '' })), status: 500, body: FRAMEWORK_500, contentType: JSON_TYPE },
  { name: 'subscriber_ids that is not an array is 500 (#20)', request: () => json(RESUME, resumeBody({ subscriber_ids: 'bob' })), status: 500, body: FRAMEWORK_500, contentType: JSON_TYPE },
  // 21–22: the token and the read-only guard
  { name: 'no Authorization header is 401 in plain text (#21)', request: () => json(RESUME, resumeBody()), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: 'a lowercase "bearer" scheme is 401 (#21)', request: () => json(RESUME, resumeBody(), undefined, { authorization: `bearer ${token('full_access')}` }), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: 'another scheme is 401 (#21)', request: () => json(RESUME, resumeBody(), undefined, { authorization: `Token ${token('full_access')}` }), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: '"Bearer" alone is 401 (#21)', request: () => json(RESUME, resumeBody(), undefined, { authorization: 'Bearer' }), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: 'a tab as the separator is 401 (#21)', request: () => json(RESUME, resumeBody(), undefined, { authorization: `Bearer\t${token('full_access')}` }), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: 'an unknown token in production format is 401 (#21)', request: () => json(RESUME, resumeBody(), `opk_${'A'.repeat(43)}`), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: "a suspended person's token is 401 (#21)", request: () => json(RESUME, resumeBody(), token('suspended')), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: 'no Content-Type ignores the body: 401 without a token (#21)', request: () => ({ path: RESUME, body: JSON.stringify({ name: 'x' }) }), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: 'a well-formed unknown id is 401 without a token (the lookup is after auth) (#21)', request: () => json(RESUME, resumeBody({ project_id: 'nonexistent' })), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: 'a read-only token is 403 in plain text (#22)', request: () => json(RESUME, resumeBody(), token('read_only')), status: 403, body: 'Read-only API tokens cannot execute mutations', contentType: NONE },
  { name: 'a read-only token is 403 even with required fields missing (#22 before #23)', request: () => json(CLOSE, {}, token('read_only')), status: 403, body: 'Read-only API tokens cannot execute mutations', contentType: NONE },
  { name: 'a read-only token still gets the input errors first (#22 after #11)', request: () => json(CLOSE, closeBody({ hacker: true }), token('read_only')), status: 400, body: BAD_REQUEST('Unknown input field: hacker'), contentType: NONE },
  { name: 'a read-only token still gets the undecodable-id 404 first (#22 after #17)', request: () => json(RESUME, resumeBody({ project_id: 'no such id!' }), token('read_only')), status: 404, body: NOT_FOUND, contentType: NONE },
  // 23–26: after authentication
  { name: 'an empty resume body lists both missing fields in declaration order (#23)', request: () => json(RESUME, {}, token('full_access')), status: 400, body: BAD_REQUEST('Missing required fields: project_id, message'), contentType: JSON_TYPE },
  { name: 'an empty close body lists all four missing fields (#23)', request: () => json(CLOSE, {}, token('full_access')), status: 400, body: BAD_REQUEST('Missing required fields: goal_id, success, retrospective, success_status'), contentType: JSON_TYPE },
  { name: 'only the missing fields are listed (#23)', request: () => json(CLOSE, { goal_id: mock.fixtures.goals['open'], success: 'yes' }, token('full_access')), status: 400, body: BAD_REQUEST('Missing required fields: retrospective, success_status'), contentType: JSON_TYPE },
  { name: 'no Content-Type with a valid token is 400 missing fields (#23)', request: () => ({ path: RESUME, headers: { authorization: `Bearer ${token('full_access')}` }, body: JSON.stringify(resumeBody()) }), status: 400, body: BAD_REQUEST('Missing required fields: project_id, message'), contentType: JSON_TYPE },
  { name: 'an empty body without a token is 401 before the missing fields (#21 before #23)', request: () => json(RESUME, {}), status: 401, body: 'Unauthorized', contentType: NONE },
  { name: 'a well-formed id of nothing is the JSON 404 after auth (#24)', request: () => json(RESUME, resumeBody({ project_id: 'nonexistent' }), token('full_access')), status: 404, body: NOT_FOUND, contentType: JSON_TYPE },
  { name: 'a goal the caller cannot see is 404, not 403 (#24)', request: () => json(CLOSE, closeBody(), token('no_access')), status: 404, body: NOT_FOUND, contentType: JSON_TYPE },
  { name: 'a project the caller cannot see is 404, not 403 (#24)', request: () => json(RESUME, resumeBody(), token('no_access')), status: 404, body: NOT_FOUND, contentType: JSON_TYPE },
  { name: 'a project the caller can only comment on is 403 JSON (#25)', request: () => json(RESUME, resumeBody(), token('comment_only')), status: 403, body: FORBIDDEN, contentType: JSON_TYPE },
  { name: 'a goal the caller can only comment on is 403 JSON (#25)', request: () => json(CLOSE, closeBody(), token('comment_only')), status: 403, body: FORBIDDEN, contentType: JSON_TYPE },
  { name: 'a rich-text value that is JSON but not an object fails the operation: 500 (#26)', request: () => json(RESUME, resumeBody({ message: '[]' }), token('full_access')), status: 500, body: HANDLER_500, contentType: JSON_TYPE },
  { name: 'a null in subscriber_ids fails the operation: 500 (#26)', request: () => json(RESUME, resumeBody({ subscriber_ids: [null] }), token('full_access')), status: 500, body: HANDLER_500, contentType: JSON_TYPE },
  { name: 'a subscriber id of nobody fails the operation: 500 (#26)', request: () => json(CLOSE, closeBody({ subscriber_ids: ['nobody-FjO1YSsAoCpZz3SMRvlSvA'] }), token('full_access')), status: 500, body: HANDLER_500, contentType: JSON_TYPE },
  { name: 'a blank success fails the operation: 500 (#26)', request: () => json(CLOSE, closeBody({ success: '   ' }), token('full_access')), status: 500, body: HANDLER_500, contentType: JSON_TYPE },
  { name: 'a mention whose id cannot be decoded fails the operation: 500 (#26)', request: () => json(CLOSE, closeBody({ retrospective: doc('Thanks ', { id: 'carol davis!', label: 'Carol' }) }), token('full_access')), status: 500, body: HANDLER_500, contentType: JSON_TYPE },
  { name: 'a mention of nobody fails the operation: 500 (#26)', request: () => json(RESUME, resumeBody({ message: doc('Thanks ', { id: 'ghost-FjO1YSsAoCpZz3SMRvlSvA', label: 'Ghost' }) }), token('full_access')), status: 500, body: HANDLER_500, contentType: JSON_TYPE },
];

describe('the error table, byte for byte', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const before = await mock.state();
    const response = await mock.send(c.request());
    expect({ status: response.status, body: response.text, contentType: response.headers['content-type'] }).toEqual({ status: c.status, body: c.body, contentType: c.contentType });
    expect(response.headers['cache-control']).toBe('max-age=0, private, must-revalidate');
    expect(response.headers['x-request-id'] !== undefined).toBe(c.requestId ?? true);
    expect(await mock.state()).toEqual(before);
  });
});

describe('id and token forms that production accepts', () => {
  it('accepts a bare token without the Bearer scheme (RequireApiToken: no space, the whole value)', async () => {
    const response = await mock.send(json(RESUME, resumeBody(), undefined, { authorization: token('full_access') }));
    expect(response.status).toBe(200);
  });

  it('tolerates extra spaces after Bearer (the token part is trimmed)', async () => {
    const response = await mock.send(json(RESUME, resumeBody(), undefined, { authorization: `  Bearer    ${token('full_access')}  ` }));
    expect(response.status).toBe(200);
  });

  it.each([
    ['the slug id', (id: string) => id],
    ['the bare short id', (id: string) => id.slice(id.lastIndexOf('-') + 1)],
    ['a wrong slug before the short id', (id: string) => `anything-at-all-${id.slice(id.lastIndexOf('-') + 1)}`],
  ])('finds the goal by %s', async (_form, form) => {
    const response = await mock.post(CLOSE, closeBody({ goal_id: form(mock.fixtures.goals['open'] ?? '') }), token('full_access'));
    expect(response.status).toBe(200);
    expect((response.json() as { goal: { id: string } }).goal.id).toBe(mock.fixtures.goals['open']);
  });

  it('finds the goal by its UUID, in any case', async () => {
    const response = await mock.post(CLOSE, closeBody({ goal_id: 'A66B0D38-9D95-447E-BD29-9753A7677796' }), token('full_access'));
    expect(response.status).toBe(200);
  });

  it('reads inputs from the query string too, the body winning', async () => {
    const id = mock.fixtures.projects['active'] ?? '';
    const response = await mock.send({ ...json(`${RESUME}?project_id=${id}`, { message: doc('From the query.') }, token('full_access')) });
    expect(response.status).toBe(200);
    expect((response.json() as { project: { id: string } }).project.id).toBe(id);
  });

  it('drops empty path segments: //projects//resume/ is projects/resume', async () => {
    const response = await mock.send(json('/api/external/v1//projects//resume/', resumeBody(), token('full_access')));
    expect(response.status).toBe(200);
  });

  it('treats application/*+json as JSON', async () => {
    const response = await mock.send(json(RESUME, resumeBody(), token('full_access'), { 'content-type': 'application/vnd.api+json' }));
    expect(response.status).toBe(200);
  });

  it('reads URL-encoded forms, where every value is a string (so a boolean field is a type error)', async () => {
    const body = new URLSearchParams({ project_id: mock.fixtures.projects['paused'] ?? '', message: doc('Form.'), send_notifications_to_everyone: 'false' }).toString();
    const response = await mock.send({ path: RESUME, headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token('full_access')}` }, body });
    expect(response.status).toBe(400);
    expect(response.text).toBe(BAD_REQUEST('Unknown input type: boolean'));
  });

  it('accepts Accept headers that allow JSON: */*, application/*, and browser lists', async () => {
    for (const accept of ['*/*', 'application/*', 'application/json', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']) {
      const response = await mock.send(json(RESUME, resumeBody(), token('full_access'), { accept }));
      expect(response.status, accept).toBe(200);
    }
  });
});
