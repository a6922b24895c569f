// The controls production lacks (issue: mock controls): sessions, reset, journals, Prefer, delays, CORS, seeds and
// in-process use, each proved over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import { createMockApp, defaultSeed, MemorySessions } from '../src/index.ts';
import { CLOSE, RESUME, doc, startMock, type RunningMock } from './http.ts';

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());

const token = (persona: string): string => mock.fixtures.tokens[persona] ?? '';
const resumeBody = (story = 'paused') => ({ project_id: mock.fixtures.projects[story], message: doc('Go on.') });
const get = async (path: string, headers: Record<string, string> = {}) => mock.send({ method: 'GET', path, headers });

function projectOf(body: unknown): Record<string, unknown> {
  if (!isObject(body) || !isObject(body['project'])) throw new Error('not a project response');
  return body['project'];
}
async function stateOf(session?: string): Promise<unknown> {
  return (await get('/__mock/state', session ? { 'x-mock-session': session } : {})).json();
}

describe('sessions (X-Mock-Session)', () => {
  it('gives two sessions their own state: both resume the same paused project, each sees its own first resume', async () => {
    const a = await mock.post(RESUME, resumeBody(), token('full_access'), { 'x-mock-session': 'alice-tests' });
    const b = await mock.post(RESUME, resumeBody(), token('full_access'), { 'x-mock-session': 'bob-tests' });
    expect([a.status, b.status]).toEqual([200, 200]);
    const events = async (session: string) => ((await get('/__mock/events', { 'x-mock-session': session })).json() as { events: unknown[] }).events;
    expect(await events('alice-tests')).toHaveLength(1);
    expect(await events('bob-tests')).toHaveLength(1);
    expect(await events('untouched')).toHaveLength(0);
    const paused = (await get('/__mock/state', { 'x-mock-session': 'untouched' })).json() as { projects: Array<{ stored_status: string }> };
    expect(paused.projects[0]?.stored_status).toBe('paused');
  });

  it('rejects a malformed session name with a clear mock error', async () => {
    const response = await mock.post(RESUME, resumeBody(), token('full_access'), { 'x-mock-session': 'no spaces please' });
    expect(response.status).toBe(400);
    expect(response.json()).toEqual({ error: 'Mock control error', message: 'X-Mock-Session must be 1 to 64 of A-Z a-z 0-9 . _ : -, got "no spaces please"' });
  });

  it('keeps at most maxSessions named sessions, dropping the least recently used', async () => {
    const sessions = new MemorySessions(defaultSeed(), { now: () => new Date('2025-06-18T10:30:00Z') }, 2);
    const first = sessions.get('one').store.state.projects[0];
    if (!first) throw new Error('the seed has no project');
    first.name = 'changed in one';
    sessions.get('two');
    sessions.get('one');
    sessions.get('three');
    expect(
      sessions
        .list()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['one', 'three']);
    expect(sessions.get('one').store.state.projects[0]?.name).toBe('changed in one');
  });
});

describe('POST /__mock/reset', () => {
  it('restores the seed for the session, and ?all=true for every session', async () => {
    const seedState = await stateOf('reset-me');
    await mock.post(RESUME, resumeBody(), token('full_access'), { 'x-mock-session': 'reset-me' });
    expect(await stateOf('reset-me')).not.toEqual(seedState);
    expect((await mock.send({ path: '/__mock/reset', headers: { 'x-mock-session': 'reset-me' } })).json()).toEqual({ reset: 'reset-me' });
    expect(await stateOf('reset-me')).toEqual(seedState);
    await mock.post(RESUME, resumeBody(), token('full_access'), { 'x-mock-session': 'reset-me' });
    expect((await mock.send({ path: '/__mock/reset?all=true' })).json()).toEqual({ reset: 'all' });
    expect(await stateOf('reset-me')).toEqual(seedState);
  });
});

describe('GET /__mock/requests', () => {
  it('lists the last requests with method, path, status and time, and never the token', async () => {
    const session = { 'x-mock-session': 'journal' };
    await mock.post(`${RESUME}?x=1`, resumeBody(), token('full_access'), session);
    await mock.post(CLOSE, {}, undefined, session);
    const body = (await get('/__mock/requests?limit=10', session)).json() as { requests: Array<Record<string, unknown>> };
    expect(body.requests.map((r) => [r['method'], r['path'], r['status'], r['operation']])).toEqual([
      ['POST', RESUME, 400, 'resumeProject'], // the query's x is an unknown input field; the path is kept without the query
      ['POST', CLOSE, 401, 'closeGoal'],
    ]);
    expect(typeof body.requests[0]?.['at']).toBe('string');
    expect(JSON.stringify(body)).not.toContain(token('full_access'));
    expect(JSON.stringify(body)).not.toContain('opk_');
  });

  it('rejects a limit out of range', async () => {
    expect((await get('/__mock/requests?limit=0')).status).toBe(400);
  });
});

describe('GET /__mock/events', () => {
  it('lists the recipients of a close with send_notifications_to_everyone: the space members but the author, and visible subscribers', async () => {
    const session = { 'x-mock-session': 'events' };
    const closed = await mock.post(
      CLOSE,
      {
        goal_id: mock.fixtures.goals['open'],
        success: 'yes',
        retrospective: doc('Done.'),
        success_status: 'achieved',
        send_notifications_to_everyone: true,
        subscriber_ids: [mock.fixtures.people['comment_only']],
      },
      token('full_access'),
      session,
    );
    expect(closed.status).toBe(200);
    const { events } = (await get('/__mock/events', session)).json() as { events: Array<Record<string, unknown>> };
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      seq: 1,
      activity: 'goal_closing',
      record: { type: 'goal', id: mock.fixtures.goals['open'] },
      author: { id: mock.fixtures.people['full_access'], full_name: 'Alice Johnson' },
      send_to_everyone: true,
      subscriptions: [
        { id: mock.fixtures.people['full_access'], full_name: 'Alice Johnson', type: 'invited' },
        { id: mock.fixtures.people['comment_only'], full_name: 'Carol Davis', type: 'invited' },
      ],
    });
    const notified = ((events[0]?.['notified'] ?? []) as Array<{ full_name: string }>).map((p) => p.full_name).sort();
    // Space members but the author: Bob, Grace (the editor); Erin is suspended. Carol: a subscriber who can see it.
    expect(notified).toEqual(['Bob Williams', 'Carol Davis', 'Grace Kim']);
  });

  it('filters by ?since= (a seq number)', async () => {
    const session = { 'x-mock-session': 'since' };
    await mock.post(RESUME, resumeBody(), token('full_access'), session);
    await mock.post(RESUME, resumeBody('active'), token('full_access'), session);
    const { events } = (await get('/__mock/events?since=1', session)).json() as { events: Array<{ seq: number }> };
    expect(events.map((e) => e.seq)).toEqual([2]);
    expect((await get('/__mock/events?since=yesterday', session)).status).toBe(400);
  });
});

describe('Prefer', () => {
  it('code=404 answers the documented 404 body and leaves the state unchanged', async () => {
    const session = { 'x-mock-session': 'prefer-404' };
    const before = await stateOf('prefer-404');
    const response = await mock.post(RESUME, resumeBody(), token('full_access'), { ...session, prefer: 'code=404' });
    expect(response.status).toBe(404);
    expect(response.text).toBe(production.notFound);
    expect(await stateOf('prefer-404')).toEqual(before);
  });

  it('code=401 answers the plain-text body with no Content-Type, without a token', async () => {
    const response = await mock.post(CLOSE, {}, undefined, { prefer: 'code=401' });
    expect([response.status, response.text, response.headers['content-type']]).toEqual([401, production.unauthorized, undefined]);
  });

  it('an undocumented code is a clear 400 naming the documented ones', async () => {
    const response = await mock.post(CLOSE, {}, undefined, { prefer: 'code=418' });
    expect(response.status).toBe(400);
    expect(response.json()).toEqual({
      error: 'Mock control error',
      message: 'Prefer: code=418 is not documented for closeGoal; documented: 200, 400, 401, 403, 404, 405, 406, 413, 415, 500',
    });
  });

  it('example=NAME picks a named example, with or without a code', async () => {
    const closed = await mock.post(RESUME, resumeBody(), token('full_access'), { prefer: 'example=closed_project' });
    expect(projectOf(closed.json())['state']).toBe('closed');
    const missing = await mock.post(CLOSE, {}, undefined, { prefer: 'code=400, example=missing_required_fields' });
    expect(missing.text).toBe(production.badRequest(production.messages.missingFields(['goal_id', 'success', 'retrospective', 'success_status'])));
    const unknown = await mock.post(CLOSE, {}, undefined, { prefer: 'example=nope' });
    expect(unknown.status).toBe(400);
    expect((unknown.json() as { message: string }).message).toContain('examples: achieved_goal, missed_goal');
  });

  it('delay=MS waits at least that long', async () => {
    const started = performance.now();
    const response = await mock.post(RESUME, resumeBody(), token('full_access'), { prefer: 'delay=300', 'x-mock-session': 'delay' });
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
  });

  it('rejects a delay above the bound', async () => {
    const response = await mock.post(RESUME, resumeBody(), token('full_access'), { prefer: 'delay=999999' });
    expect(response.status).toBe(400);
  });
});

describe('global delay', () => {
  it('waits a time within --delay MIN-MAX before every API answer', async () => {
    const slow = await startMock({ delay: { min: 150, max: 200 } });
    try {
      const started = performance.now();
      await slow.post(CLOSE, {});
      expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    } finally {
      await slow.close();
    }
  });
});

describe('CORS', () => {
  it('answers a preflight from another origin, reflecting it with credentials allowed', async () => {
    const response = await mock.send({
      method: 'OPTIONS',
      path: RESUME,
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(response.headers['access-control-allow-credentials']).toBe('true');
    expect(response.headers['access-control-allow-headers']).toBe('authorization, content-type');
    const actual = await mock.post(RESUME, resumeBody(), token('full_access'), { origin: 'http://localhost:5173', 'x-mock-session': 'cors' });
    expect(actual.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('is off with --no-cors: an OPTIONS is production’s 405', async () => {
    const plain = await startMock({ cors: { enabled: false } });
    try {
      const response = await plain.send({
        method: 'OPTIONS',
        path: RESUME,
        headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
      });
      expect([response.status, response.text, response.headers['access-control-allow-origin']]).toEqual([405, production.methodNotAllowed, undefined]);
    } finally {
      await plain.close();
    }
  });

  it('allows only the listed origins with --cors-origin', async () => {
    const strict = await startMock({ cors: { enabled: true, origins: ['https://app.example.com'] } });
    try {
      const other = await strict.send({
        method: 'OPTIONS',
        path: RESUME,
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
      const listed = await strict.send({
        method: 'OPTIONS',
        path: RESUME,
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      });
      expect(listed.status).toBe(204);
    } finally {
      await strict.close();
    }
  });
});

describe('--no-control and in-process use', () => {
  it('serves no /__mock/ endpoint when control is off', async () => {
    const shared = await startMock({ control: false });
    try {
      const response = await shared.send({ method: 'GET', path: '/__mock/state' });
      expect(response.status).toBe(404);
      expect(response.text).toBe(production.routeNotFound);
    } finally {
      await shared.close();
    }
  });

  it('runs two apps in one process without sharing state', () => {
    const one = createMockApp();
    const two = createMockApp({ seed: defaultSeed() });
    const project = one.mock.store().state.projects[0];
    if (!project) throw new Error('the seed has no project');
    project.stored_status = 'closed';
    expect(two.mock.store().state.projects[0]?.stored_status).toBe('paused');
    expect(createMockApp().mock.store().state.projects[0]?.stored_status).toBe('paused');
  });
});

/** One close of the open goal and one resume of the paused project in a session, so that every kind of row exists. */
async function closeAndResume(session: Record<string, string>): Promise<void> {
  await mock.post(
    CLOSE,
    { goal_id: mock.fixtures.goals['open'], success: 'yes', retrospective: doc('Done.'), success_status: 'achieved' },
    token('full_access'),
    session,
  );
  await mock.post(RESUME, resumeBody(), token('full_access'), session);
}

describe('the control endpoints keep their own OpenAPI document (mock/openapi.yaml)', () => {
  it('answers every documented control endpoint with a body that validates against it', async () => {
    const { readFileSync } = await import('node:fs');
    const { listOperations, responseSchemaPointer } = await import('../../spec/lib/openapi.ts');
    const { createSchemaValidator, formatErrors } = await import('../../spec/lib/ajv.ts');
    const document: unknown = JSON.parse(readFileSync(new URL('../../generated/mock-control.json', import.meta.url), 'utf8'));
    if (!isObject(document)) throw new Error('generated/mock-control.json is not a document');
    const validator = createSchemaValidator(document);
    const session = { 'x-mock-session': 'documented' };
    await closeAndResume(session);
    // The Service operations (probes, metrics) are the CLI server's, not the app's: service.test.ts checks them.
    const operations = listOperations(document).filter((o) => !(Array.isArray(o.operation['tags']) && o.operation['tags'].includes('Service')));
    expect(operations.map((o) => o.operationId).sort()).toEqual([
      'addScenario',
      'clearScenarios',
      'getFixtures',
      'getRecord',
      'getState',
      'listEvents',
      'listRequests',
      'listScenarios',
      'listSessions',
      'reset',
    ]);
    // The controls that answer other than 200, and what they are sent.
    const other: Record<string, { status: number; body?: string }> = {
      addScenario: { status: 201, body: JSON.stringify({ operation: 'closeGoal', prefer: 'code=500', times: 2 }) },
      clearScenarios: { status: 204 },
    };
    for (const operation of operations) {
      const path = operation.path.replace('{id}', mock.fixtures.goals['open'] ?? '');
      const { status, body } = other[operation.operationId] ?? { status: 200 };
      const response = await mock.send({ method: operation.method.toUpperCase(), path, headers: session, ...(body === undefined ? {} : { body }) });
      expect(response.status, operation.path).toBe(status);
      if (status === 204) {
        expect(response.text).toBe('');
        continue;
      }
      const pointer = responseSchemaPointer(document, operation.pointer, status, 'application/json');
      expect(formatErrors(validator.validate(pointer ?? '', response.json())), operation.path).toBe('');
    }
    const bad = await mock.send({ method: 'GET', path: '/__mock/events?since=nope', headers: session });
    const errorPointer = responseSchemaPointer(document, operations.find((o) => o.operationId === 'listEvents')?.pointer ?? '', 400, 'application/json');
    expect(formatErrors(validator.validate(errorPointer ?? '', bad.json()))).toBe('');
  });
});

describe("mock/openapi.yaml's State schema is the mock's data, field for field", () => {
  it('every row of the state after both writes has exactly the fields its row schema declares, and every declared list is there', async () => {
    const { dereference } = await import('../../spec/lib/openapi.ts');
    const control = (await import('../../generated/mock-control.json', { with: { type: 'json' } })).default as unknown;
    if (!isObject(control)) throw new Error('generated/mock-control.json is not a document');
    const resolved = (schema: unknown): unknown =>
      isObject(schema) && typeof schema['$ref'] === 'string' ? dereference(control, schema['$ref']).value : schema;
    const state = resolved({ $ref: '#/components/schemas/State' });
    const lists = isObject(state) && isObject(state['properties']) ? state['properties'] : {};
    const session = { 'x-mock-session': 'state-contract' };
    await closeAndResume(session);
    const dumped = (await mock.send({ method: 'GET', path: '/__mock/state', headers: session })).json();
    if (!isObject(dumped)) throw new Error('GET /__mock/state is no object');
    expect(Object.keys(dumped).sort()).toEqual(Object.keys(lists).sort());
    const declared = (schema: unknown): string[] => {
      const rows = resolved(isObject(schema) && isObject(schema['items']) ? schema['items'] : schema);
      return isObject(rows) && isObject(rows['properties']) ? Object.keys(rows['properties']).sort() : [];
    };
    for (const [name, schema] of Object.entries(lists)) {
      const rows = Array.isArray(dumped[name]) ? dumped[name] : [dumped[name]];
      expect(rows.length, name).toBeGreaterThan(0);
      for (const written of rows) expect(Object.keys(isObject(written) ? written : {}).sort(), name).toEqual(declared(schema));
    }
  });
});

describe('GET /__mock/records/{id}: a record as its write would answer it, without writing', () => {
  it("answers the operation's 200 body for the record now, for a persona, in any id form; writes nothing", async () => {
    const session = { 'x-mock-session': 'record-view' };
    const goal = mock.fixtures.goals['open'] ?? '';
    const before = await mock.send({ method: 'GET', path: '/__mock/state', headers: session });
    const view = await mock.send({ method: 'GET', path: `/__mock/records/${goal}`, headers: session });
    expect(view.status).toBe(200);
    expect(Object.keys(view.json() as object)).toEqual(['goal']);
    expect((await mock.send({ method: 'GET', path: '/__mock/state', headers: session })).text).toBe(before.text);
    // The close's answer differs from the view before it only in what close changes.
    const closed = await mock.post(
      CLOSE,
      { goal_id: goal, success: 'yes', retrospective: doc('Done.'), success_status: 'achieved' },
      token('full_access'),
      session,
    );
    const after = await mock.send({ method: 'GET', path: `/__mock/records/${goal.slice(goal.lastIndexOf('-') + 1)}`, headers: session });
    expect(after.json()).toEqual(closed.json());
    const asCommenter = await mock.send({ method: 'GET', path: `/__mock/records/${goal}?as=comment_only`, headers: session });
    const permissions = (asCommenter.json() as { goal: { permissions: { can_edit: boolean } } }).goal.permissions;
    expect(permissions.can_edit).toBe(false);
    const project = mock.fixtures.projects['paused'] ?? '';
    expect(Object.keys((await mock.send({ method: 'GET', path: `/__mock/records/${project}`, headers: session })).json() as object)).toEqual(['project']);
  });

  it('refuses an unknown record or persona with the control error', async () => {
    const unknown = await mock.send({ method: 'GET', path: '/__mock/records/no-such-record-DoesNotExist0000000000' });
    expect([unknown.status, unknown.json()]).toEqual([
      400,
      { error: 'Mock control error', message: 'no project or goal of this session has the id "no-such-record-DoesNotExist0000000000"' },
    ]);
    const persona = await mock.send({ method: 'GET', path: `/__mock/records/${mock.fixtures.goals['open'] ?? ''}?as=admin` });
    expect(persona.status).toBe(400);
    const { PERSONAS } = await import('../src/domain/state.ts');
    expect(persona.json()).toMatchObject({ message: `as must be a persona of the fixtures (${PERSONAS.join(', ')}), got "admin"` });
  });
});

describe('the fixture names (state.ts) are the ones mock/openapi.yaml documents for GET /__mock/fixtures', () => {
  it('personas, project stories and goal stories: the schema requires each, and nothing else', async () => {
    const { GOAL_STORIES, PERSONAS, PROJECT_STORIES } = await import('../src/domain/state.ts');
    const control = (await import('../../generated/mock-control.json', { with: { type: 'json' } })).default as unknown;
    const fixtures =
      isObject(control) && isObject(control['components']) && isObject(control['components']['schemas'])
        ? control['components']['schemas']['Fixtures']
        : undefined;
    const required = (key: string): unknown =>
      isObject(fixtures) && isObject(fixtures['properties']) && isObject(fixtures['properties'][key]) ? fixtures['properties'][key]['required'] : undefined;
    expect(required('tokens')).toEqual([...PERSONAS]);
    expect(required('projects')).toEqual([...PROJECT_STORIES]);
    expect(required('goals')).toEqual([...GOAL_STORIES]);
  });

  it('a seed file without one of them is refused, naming it', async () => {
    const { parseSeed } = await import('../src/domain/seedFile.ts');
    const seed: Record<string, unknown> = JSON.parse(JSON.stringify(defaultSeed()));
    const fixtures = seed['fixtures'];
    if (!isObject(fixtures) || !isObject(fixtures['projects'])) throw new Error('no fixtures');
    delete fixtures['projects']['active'];
    expect(parseSeed(JSON.stringify(seed))).toEqual({ ok: false, error: '$.fixtures.projects.active is missing' });
  });
});
