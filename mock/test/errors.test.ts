// Every row of the error table in RULES.md#transport that applies to these two operations, over real HTTP:
// exact status, exact body bytes, production's content type (none for plain text and input-decoding errors), and
// the state left exactly as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import { errorTable, seedFixtures, type ErrorCase } from './behaviour.ts';
import { CLOSE, RESUME, doc, startMock, type RunningMock, type Sent } from './http.ts';

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock({ bodyLimit: 4096 });
});
afterAll(() => mock.close());

const BAD_REQUEST = production.badRequest;

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
/** The shared table (behaviour.ts); the default seed's fixtures are the ones this mock serves. */
const cases: ErrorCase[] = errorTable(seedFixtures());

describe('the error table, byte for byte', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const before = await mock.state();
    const response = await mock.send(c.request());
    expect({ status: response.status, body: response.text, contentType: response.headers['content-type'] }).toEqual({
      status: c.status,
      body: c.body,
      contentType: c.contentType,
    });
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
    const body = new URLSearchParams({
      project_id: mock.fixtures.projects['paused'] ?? '',
      message: doc('Form.'),
      send_notifications_to_everyone: 'false',
    }).toString();
    const response = await mock.send({
      path: RESUME,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token('full_access')}` },
      body,
    });
    expect(response.status).toBe(400);
    expect(response.text).toBe(BAD_REQUEST(production.messages.unknownType('boolean')));
  });

  it('accepts Accept headers that allow JSON: */*, application/*, and browser lists', async () => {
    for (const accept of ['*/*', 'application/*', 'application/json', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']) {
      const response = await mock.send(json(RESUME, resumeBody(), token('full_access'), { accept }));
      expect(response.status, accept).toBe(200);
    }
  });
});
