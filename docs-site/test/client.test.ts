// The typed client against a fake fetch (no server): what it sends, and how it types what comes back. The request
// bodies are the spec's named examples, so the client is exercised with the data the docs show.
import { describe, expect, it } from 'vitest';
import { dereference, isObject, loadDocument, pointerTo, resolvePointer } from '../../spec/lib/openapi.ts';
import { createSchemaValidator, formatErrors } from '../../spec/lib/ajv.ts';
import { createClient, parseBody, UnexpectedResponseError, type OperationId, type RequestBody } from '../client/index.ts';

const document = loadDocument();
const validator = createSchemaValidator(document);
const BASE_URL = 'https://api.test.example';
const TOKEN = 'opk_test-token-0123456789abcdefghijklmnopqrstuvwxyzABCDEF';
const RESUME_PATH = '/api/external/v1/projects/resume';
const CLOSE_PATH = '/api/external/v1/goals/close';

/** The request schema of an operation, as the spec's request body names it. */
function requestSchema(path: string): string {
  const schema = resolvePointer(document, `${pointerTo('paths', path, 'post', 'requestBody', 'content', 'application/json')}/schema`);
  if (!isObject(schema) || typeof schema['$ref'] !== 'string') throw new Error(`${path} has no request schema $ref`);
  return schema['$ref'];
}

/** A body that satisfies the operation's request schema (Ajv), so it can be typed as that operation's body. */
function isRequestBody<K extends OperationId>(path: string, value: unknown): value is RequestBody<K> {
  const errors = validator.validate(requestSchema(path), value);
  if (errors.length > 0) throw new Error(`not a valid request for ${path}: ${formatErrors(errors)}`);
  return true;
}

/** The value of a named request example in components/examples, validated against the operation's schema. */
function requestExample<K extends OperationId>(path: string, name: string): RequestBody<K> {
  const { value } = dereference(document, pointerTo('components', 'examples', name));
  const body = isObject(value) ? value['value'] : undefined;
  if (!isRequestBody<K>(path, body)) throw new Error('unreachable');
  return body;
}

/** A documented response example's value (`examples.<key>` or `example`) for one status and media type. */
function responseExample(operationPath: string, status: string, media: string): unknown {
  const response = dereference(document, pointerTo('paths', operationPath, 'post', 'responses', status));
  const content = resolvePointer(document, `${response.pointer}/content/${media.replace('/', '~1')}`);
  if (!isObject(content)) throw new Error(`${operationPath} ${status} has no ${media} content`);
  if ('example' in content) return content['example'];
  const first = isObject(content['examples']) ? Object.keys(content['examples'])[0] : undefined;
  if (first === undefined) throw new Error(`${operationPath} ${status} ${media} has no example`);
  const { value } = dereference(document, `${response.pointer}/content/${media.replace('/', '~1')}/examples/${first}`);
  return isObject(value) ? value['value'] : undefined;
}

type Sent = { url: string; method: string; headers: Headers; body: string };

/** A fetch that records each request and answers with the next canned response. */
function fakeFetch(...responses: Array<() => Response>): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const queue = [...responses];
  const fetchImpl: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    sent.push({ url: request.url, method: request.method, headers: request.headers, body: await request.text() });
    const next = queue.shift();
    if (!next) throw new Error('the fake fetch got more requests than the test expected');
    return next();
  };
  return { fetch: fetchImpl, sent };
}

/** A response the way production sends the text errors: no Content-Type header at all (a stream body has none). */
function bare(status: number, text: string): Response {
  return new Response(new Blob([text]).stream(), { status });
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

const resumeBody = requestExample<'resumeProject'>(RESUME_PATH, 'ResumeProjectRequest');
const closeBody = requestExample<'closeGoal'>(CLOSE_PATH, 'CloseGoalRequest');

describe('createClient sends the documented request', () => {
  it('posts resumeProject as JSON to projects/resume with the bearer token', async () => {
    const fake = fakeFetch(() => json(200, responseExample(RESUME_PATH, '200', 'application/json')));
    const api = createClient({ baseUrl: `${BASE_URL}/`, token: TOKEN, fetch: fake.fetch });
    await api.resumeProject(resumeBody);
    expect(fake.sent).toHaveLength(1);
    const [request] = fake.sent;
    expect(request?.url).toBe(`${BASE_URL}${RESUME_PATH}`);
    expect(request?.method).toBe('POST');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual(resumeBody);
  });

  it('posts closeGoal as JSON to goals/close, keeping extra headers but never letting them replace the token', async () => {
    const fake = fakeFetch(() => json(200, responseExample(CLOSE_PATH, '200', 'application/json')));
    const api = createClient({
      baseUrl: BASE_URL,
      token: TOKEN,
      fetch: fake.fetch,
      headers: { 'X-Request-Source': 'docs-test', Authorization: 'Bearer someone-else' },
    });
    await api.closeGoal(closeBody);
    const [request] = fake.sent;
    expect(request?.url).toBe(`${BASE_URL}${CLOSE_PATH}`);
    expect(request?.method).toBe('POST');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(request?.headers.get('x-request-source')).toBe('docs-test');
    expect(JSON.parse(request?.body ?? '')).toEqual(closeBody);
  });

  it('passes an abort signal through to fetch', async () => {
    let seen: AbortSignal | undefined;
    const api = createClient({
      baseUrl: BASE_URL,
      token: TOKEN,
      fetch: async (input, init) => {
        seen = new Request(input, init).signal;
        return json(200, responseExample(CLOSE_PATH, '200', 'application/json'));
      },
    });
    await api.closeGoal(closeBody, { signal: AbortSignal.abort() });
    expect(seen?.aborted).toBe(true);
  });

  it('keeps the raw openapi-fetch client, with the same base URL and token', async () => {
    const closed = responseExample(CLOSE_PATH, '200', 'application/json');
    const fake = fakeFetch(() => json(200, closed));
    const api = createClient({ baseUrl: BASE_URL, token: TOKEN, fetch: fake.fetch });
    const { data } = await api.raw.POST(CLOSE_PATH, { body: closeBody });
    expect(fake.sent[0]?.url).toBe(`${BASE_URL}${CLOSE_PATH}`);
    expect(fake.sent[0]?.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(data).toEqual(closed);
  });
});

describe('createClient types each answer by its status', () => {
  it('returns a 200 as { ok: true, status: 200 } with the parsed record', async () => {
    const expected = responseExample(RESUME_PATH, '200', 'application/json');
    const api = createClient({ baseUrl: BASE_URL, token: TOKEN, fetch: fakeFetch(() => json(200, expected)).fetch });
    const result = await api.resumeProject(resumeBody);
    expect(result.ok).toBe(true);
    expect(result.status).toBe(200);
    expect(result.body).toEqual(expected);
    if (result.status !== 200) throw new Error('narrowing failed');
    expect(result.body.project.id).toMatch(/-[A-Za-z0-9]{1,22}$/);
    expect(result.response.headers.get('content-type')).toContain('application/json');
  });

  it("returns the plain-text 401, sent without a Content-Type, as the spec's text", async () => {
    const text = responseExample(CLOSE_PATH, '401', 'text/plain');
    expect(text).toBeTypeOf('string');
    const api = createClient({ baseUrl: BASE_URL, token: TOKEN, fetch: fakeFetch(() => bare(401, String(text))).fetch });
    const result = await api.closeGoal(closeBody);
    expect(result.response.headers.get('content-type')).toBeNull();
    expect(result).toMatchObject({ ok: false, status: 401, body: text });
  });

  it('returns the read-only 403, plain text without a Content-Type, as text', async () => {
    const text = String(responseExample(RESUME_PATH, '403', 'text/plain'));
    const api = createClient({ baseUrl: BASE_URL, token: TOKEN, fetch: fakeFetch(() => bare(403, text)).fetch });
    const result = await api.resumeProject(resumeBody);
    expect(result).toMatchObject({ ok: false, status: 403, body: text });
  });

  it('returns a JSON 404 as the parsed error body, with or without a Content-Type', async () => {
    const expected = responseExample(CLOSE_PATH, '404', 'application/json');
    const api = createClient({
      baseUrl: BASE_URL,
      token: TOKEN,
      fetch: fakeFetch(
        () => json(404, expected),
        () => bare(404, JSON.stringify(expected)),
      ).fetch,
    });
    for (const label of ['with a JSON Content-Type', 'before the token check, without a Content-Type']) {
      const result = await api.closeGoal(closeBody);
      expect(result, label).toMatchObject({ ok: false, status: 404, body: expected });
      if (result.status !== 404) throw new Error('narrowing failed');
      expect(result.body.error).toBe(isObject(expected) ? expected['error'] : undefined);
    }
  });

  it('throws UnexpectedResponseError for a status the spec does not document, keeping the body', async () => {
    const api = createClient({ baseUrl: BASE_URL, token: TOKEN, fetch: fakeFetch(() => bare(502, 'Bad Gateway')).fetch });
    const failure = await api.closeGoal(closeBody).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnexpectedResponseError);
    expect(failure).toMatchObject({ status: 502, body: 'Bad Gateway', operationId: 'closeGoal' });
    expect(String(failure)).toContain('status 502 is not documented (documented: 200, 400, 401, 403, 404, 405, 406, 413, 415, 500)');
  });

  it('throws UnexpectedResponseError for a 200 whose body is not a JSON object', async () => {
    const api = createClient({ baseUrl: BASE_URL, token: TOKEN, fetch: fakeFetch(() => bare(200, 'OK')).fetch });
    await expect(api.resumeProject(resumeBody)).rejects.toThrow(/resumeProject: status 200 came with a body that is not a JSON object/);
  });
});

describe('parseBody', () => {
  it('parses what looks like JSON and keeps everything else as text', () => {
    expect(parseBody('{"error":"Not found"}')).toEqual({ error: 'Not found' });
    expect(parseBody(' [1] ')).toEqual([1]);
    expect(parseBody('Unauthorized')).toBe('Unauthorized');
    expect(parseBody('{not json')).toBe('{not json');
    expect(parseBody('123')).toBe('123');
    expect(parseBody('')).toBe('');
  });
});
