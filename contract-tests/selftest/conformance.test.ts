// The conformance core on hand-made responses: each rule fires on the mistake it names, with the message QA reads,
// and stays quiet on production's own answers.
import { describe, expect, it } from 'vitest';
import { messages, texts } from '../../spec/lib/messages.ts';
import { isObject, loadDocument, resolvePointer, type JsonObject } from '../../spec/lib/openapi.ts';
import { checkResponse } from '../harness/check-response.ts';
import { formatLocation, type Violation } from '../../spec/lib/violations.ts';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
type Headers = Record<string, string>;
/** The headers production puts on every answer its plugs sent (RULES.md#headers); a test overrides or drops them. */
const EVERY_ANSWER: Headers = { 'cache-control': texts.cacheControl, 'x-request-id': 'F_uAnbzq1dCbYgIAAAJB' };
const response = (status: number, body: unknown, headers: Headers = { 'content-type': JSON_TYPE }) => ({
  status,
  headers: { ...EVERY_ANSWER, ...headers },
  text: typeof body === 'string' ? body : JSON.stringify(body),
});

/** The response example the spec documents for 200 (the mock's and the docs' data): a conforming body to break. */
function example200(operation: 'resumeProject' | 'closeGoal'): JsonObject {
  const name = operation === 'resumeProject' ? 'ResumeProjectResponse' : 'CloseGoalResponse';
  return obj(structuredClone(resolvePointer(loadDocument(), `#/components/examples/${name}/value`)));
}
function obj(value: unknown): JsonObject {
  if (!isObject(value)) throw new Error(`not an object: ${JSON.stringify(value)}`);
  return value;
}
const OK_HEADERS: Headers = { 'content-type': JSON_TYPE, 'cache-control': 'max-age=0, private, must-revalidate', 'x-request-id': 'F_uAnbzq1dCbYgIAAAJB' };

const errors = (vs: Violation[]) => vs.filter((v) => v.severity === 'error');
const warnings = (vs: Violation[]) => vs.filter((v) => v.severity === 'warning');
const at = (vs: Violation[]) => vs.map((v) => `${formatLocation(v.location)} ${v.code}`);

describe('checkResponse', () => {
  it("accepts the spec's own 200 examples with their documented headers, without a warning", () => {
    expect(checkResponse('resumeProject', response(200, example200('resumeProject'), OK_HEADERS))).toEqual([]);
    expect(checkResponse('closeGoal', response(200, example200('closeGoal'), OK_HEADERS))).toEqual([]);
  });

  it('names the documented statuses when the status is not one of them', () => {
    const [v] = checkResponse('closeGoal', response(418, 'I am a teapot', {}));
    expect(v?.message).toBe('status 418 is not documented for closeGoal; documented: 200, 400, 401, 403, 404, 405, 406, 413, 415, 500');
    expect(v).toMatchObject({ code: 'status.undocumented', severity: 'error', location: ['response', 'status'] });
  });

  it('reports every schema error with its JSON path: a missing required field, a wrong type, an enum with its allowed values, a bad format', () => {
    const body = example200('resumeProject');
    const project = obj(body['project']);
    delete project['state'];
    project['name'] = 42;
    project['success_status'] = 'done';
    project['closed_at'] = 'yesterday';
    const found = errors(checkResponse('resumeProject', response(200, body, OK_HEADERS)));
    expect(at(found)).toEqual(
      expect.arrayContaining([
        'response.body.project.state schema.required',
        'response.body.project.name schema.type',
        'response.body.project.success_status schema.enum',
        'response.body.project.closed_at schema.format',
      ]),
    );
    expect(found.find((v) => v.code === 'schema.enum')?.message).toBe('must be one of "nil", "achieved", "missed"; got "done"');
    expect(found).toHaveLength(4);
  });

  it('explains a value under a oneOf by its closest alternative, not by every alternative', () => {
    const body = example200('resumeProject');
    const champion = obj(obj(body['project'])['champion']);
    champion['full_name'] = 7;
    const found = errors(checkResponse('resumeProject', response(200, body, OK_HEADERS)));
    expect(at(found)).toEqual(['response.body.project.champion.full_name schema.type']);
  });

  it('reports a field the schema does not name as a warning, not an error (responses stay open)', () => {
    const body = example200('closeGoal');
    obj(body['goal'])['brand_new'] = true;
    const found = checkResponse('closeGoal', response(200, body, OK_HEADERS));
    expect(errors(found)).toEqual([]);
    expect(warnings(found)).toEqual([
      {
        location: ['response', 'body', 'goal', 'brand_new'],
        code: 'field.unknown',
        severity: 'warning',
        message: 'field "brand_new" is not in the spec (an additive field: reported, not a failure)',
      },
    ]);
  });

  it('treats a non-JSON 200 as a violation, not a crash', () => {
    const found = checkResponse('resumeProject', response(200, '<html>oops</html>', { 'content-type': 'text/html' }));
    expect(at(errors(found))).toEqual(['response.header.content-type content-type.undocumented', 'response.body body.not-json']);
    expect(at(errors(checkResponse('resumeProject', response(200, '{"project":', { 'content-type': JSON_TYPE }))))).toContain('response.body body.not-json');
  });

  it('accepts plain-text 401 and read-only 403 without a Content-Type with a warning (RULES.md#decision-2)', () => {
    const found = checkResponse('resumeProject', response(401, texts.unauthorized, {}));
    expect(errors(found)).toEqual([]);
    expect(at(warnings(found))).toEqual(['response.header.content-type content-type.missing']);
    expect(errors(checkResponse('closeGoal', response(403, texts.readOnly, {})))).toEqual([]);
    expect(checkResponse('closeGoal', response(401, texts.unauthorized, { 'content-type': 'text/plain' }))).toEqual([]);
  });

  it('accepts a JSON error body without a Content-Type where JSON is documented, with a warning', () => {
    const found = checkResponse('closeGoal', response(400, JSON.parse(production.badRequest(messages.nullField('goal_id'))), {}));
    expect(errors(found)).toEqual([]);
    expect(at(warnings(found))).toEqual(['response.header.content-type content-type.missing']);
  });

  it('checks plain-text bodies against their schema', () => {
    const wrong = `${texts.unauthorized}!`;
    const [v] = errors(checkResponse('resumeProject', response(401, wrong, {})));
    expect(v).toMatchObject({
      code: 'schema.const',
      location: ['response', 'body'],
      message: `must be ${JSON.stringify(texts.unauthorized)}; got ${JSON.stringify(wrong)}`,
    });
  });

  it('refuses a media type the status does not document, naming the documented ones', () => {
    const [v] = errors(checkResponse('resumeProject', response(401, { error: 'Unauthorized' })));
    expect(v?.message).toBe('Content-Type application/json is not documented for resumeProject 401; documented: text/plain');
  });

  it('checks documented header values on every status, a missing required header as an error and a missing optional one not at all', () => {
    const found = checkResponse('closeGoal', response(200, example200('closeGoal'), { 'content-type': JSON_TYPE, 'cache-control': 'no-store' }));
    expect(at(errors(found))).toEqual(['response.header.cache-control header.const']);
    const { 'x-request-id': _id, ...withoutId } = EVERY_ANSWER;
    const unauthorized = checkResponse('closeGoal', { status: 401, headers: withoutId, text: texts.unauthorized });
    expect(at(errors(unauthorized))).toEqual(['response.header.x-request-id header.missing']);
    const repeated = checkResponse(
      'closeGoal',
      response(404, JSON.parse(production.notFound), { 'x-request-id': 'a1234567890123456789, a1234567890123456789' }),
    );
    expect(at(errors(repeated))).toEqual(['response.header.x-request-id header.pattern']);
    // The 400 of invalid JSON is rendered before the endpoint's plugs: the spec documents its x-request-id as optional.
    const invalidJson = checkResponse('closeGoal', {
      status: 400,
      headers: { 'cache-control': texts.cacheControl, 'content-type': 'text/html; charset=utf-8' },
      text: production.invalidJsonHtml,
    });
    expect(found.length + invalidJson.length).toBe(1);
  });

  it('reports the alternatives of a oneOf error body by the closest one', () => {
    const found = errors(checkResponse('closeGoal', response(400, JSON.parse(production.badRequest('nope')))));
    expect(at(found)).toEqual(['response.body.message schema.pattern']);
  });
});
