// The pure parts, table by table: ids, the check-in rule, content negotiation, the input decoder.
import { describe, expect, it } from 'vitest';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import { loadDocument } from '../../spec/lib/openapi.ts';
import { decodeId, shortId, slug, slugId } from '../src/domain/ids.ts';
import { decodeInputs, inputSpecFrom } from '../src/core/decode.ts';
import { nextWeeklyCheckIn, privacyOf, projectStatus, goalStatus } from '../src/domain/rules.ts';
import { bodyKind, decodeQuery, errorViewIsJson, negotiate } from '../src/core/transport.ts';
import { tokenFromAuthorization } from '../src/domain/security.ts';

describe('ids (RULES.md#response-ids)', () => {
  it.each([
    ['b6f5a3c2-4d1e-4f7a-9c3b-2e8d1f0a6b5c', 'FjO1YSsAoCpZz3SMRvlSvK'],
    ['0b9c2a4e-7f31-4c6d-8e25-91a0d3f4b7c8', 'V4RjFJZs8maeQNnqeHzFe'],
    ['6f1c2a9e-3b4d-4c5e-8f70-1a2b3c4d5e6f', 'DXpBQcmcjaie7pCnCtXvIr'],
    ['ffffffff-ffff-ffff-ffff-ffffffffffff', 'HxECNQWFdpvuJxIw3HPrmH'],
  ])('encodes %s as the reference computed, and decodes it back', (uuid, short) => {
    expect(shortId(uuid)).toBe(short);
    expect(decodeId(`any-slug-${short}`)).toEqual({ kind: 'uuid', uuid });
  });

  it.each([
    ['Localize onboarding for EU launch', 'localize-onboarding-for'],
    ['Website Redesign', 'website-redesign'],
    ['Migrate billing to Stripe', 'migrate-billing-to-stripe'],
    ['Supercalifragilisticexpialidocious plan', 'supercalifragilisticexpialidocious'],
    ['New setting: goals, listing & a very long tail', 'new-setting-goals-listing'],
    ['Ünïcödé — 2025!', 'n-c-d-2025'],
    ['日本語', ''],
  ])('slugs %j as %j', (name, expected) => {
    expect(slug(name)).toBe(expected);
  });

  it('writes an empty slug as a leading dash', () => {
    expect(slugId('日本語', 'b6f5a3c2-4d1e-4f7a-9c3b-2e8d1f0a6b5c')).toBe('-FjO1YSsAoCpZz3SMRvlSvK');
  });

  it.each([
    [null, { kind: 'null' }],
    ['', { kind: 'null' }],
    ['B6F5A3C2-4D1E-4F7A-9C3B-2E8D1F0A6B5C', { kind: 'uuid', uuid: 'b6f5a3c2-4d1e-4f7a-9c3b-2e8d1f0a6b5c' }],
    ['nonexistent', { kind: 'uuid', uuid: expect.any(String) }],
    ['abc_def', { kind: 'invalid' }],
    ['has space', { kind: 'invalid' }],
    ['A'.repeat(23), { kind: 'invalid' }],
    ['ends-with-', { kind: 'crash' }],
    ['HxECNQWFdpvuJxIw3HPrmI', { kind: 'crash' }],
    [42, { kind: 'crash' }],
    [['x'], { kind: 'crash' }],
  ])('decodes %j as %j', (input, expected) => {
    expect(decodeId(input)).toEqual(expected);
  });
});

describe('the next weekly check-in after a resume (Time.calculate_next_weekly_check_in)', () => {
  it.each([
    ['overdue, resumed on a Wednesday: that Friday', '2025-06-06T00:00:00Z', '2025-06-18T10:00:00Z', '2025-06-20T00:00:00Z'],
    ['overdue, resumed on a Friday: a week later', '2025-06-06T00:00:00Z', '2025-06-13T15:42:07Z', '2025-06-20T00:00:00Z'],
    ['overdue, resumed on a Saturday: +6', '2025-06-06T00:00:00Z', '2025-06-14T12:00:00Z', '2025-06-20T00:00:00Z'],
    ['overdue, resumed on a Sunday: +5', '2025-06-06T00:00:00Z', '2025-06-15T12:00:00Z', '2025-06-20T00:00:00Z'],
    ['due today (Monday): that Friday', '2025-06-16T00:00:00Z', '2025-06-16T20:00:00Z', '2025-06-20T00:00:00Z'],
    ['due tomorrow (a Friday): the Friday after it', '2025-06-20T00:00:00Z', '2025-06-19T09:00:00Z', '2025-06-27T00:00:00Z'],
    ['due in two days: kept', '2025-06-20T00:00:00Z', '2025-06-18T09:00:00Z', '2025-06-20T00:00:00Z'],
    ['due in two days at noon: kept, at midnight', '2025-06-20T12:00:00Z', '2025-06-18T09:00:00Z', '2025-06-20T00:00:00Z'],
    ['never scheduled: from today', null, '2025-06-17T09:00:00Z', '2025-06-20T00:00:00Z'],
  ])('%s', (_name, due, now, expected) => {
    expect(nextWeeklyCheckIn(due, new Date(now))).toBe(expected);
  });
});

describe('computed status (Project.status/1, Goal.status/1)', () => {
  const project = {
    stored_status: 'active' as const,
    closed_at: null,
    success_status: null,
    next_check_in_scheduled_at: '2025-06-20T00:00:00Z',
    deleted_at: null,
    start_date: '2025-04-01',
    last_check_in_status: 'caution' as const,
  };
  const now = new Date('2025-06-18T00:00:00Z');
  it('orders success_status, paused, outdated, last check-in, pending', () => {
    expect(projectStatus({ ...project, success_status: 'missed', stored_status: 'paused' }, now)).toBe('missed');
    expect(projectStatus({ ...project, stored_status: 'paused' }, now)).toBe('paused');
    expect(projectStatus({ ...project, next_check_in_scheduled_at: '2025-06-14T00:00:00Z' }, now)).toBe('outdated');
    expect(projectStatus({ ...project, next_check_in_scheduled_at: '2025-06-15T00:00:00Z' }, now)).toBe('caution');
    expect(projectStatus({ ...project, next_check_in_scheduled_at: null }, now)).toBe('outdated');
    expect(projectStatus({ ...project, last_check_in_status: null }, now)).toBe('pending');
    expect(projectStatus({ ...project, next_check_in_scheduled_at: '2025-01-01T00:00:00Z', start_date: '2025-07-01' }, now)).toBe('caution');
  });
  it('gives a goal achieved for success "yes" when success_status is unset, and missed for "no"', () => {
    const goal = {
      closed_at: null,
      success: null,
      success_status: null,
      next_update_scheduled_at: '2025-07-01T00:00:00Z',
      deleted_at: null,
      last_check_in_status: 'on_track' as const,
    };
    expect(goalStatus({ ...goal, success: 'yes' }, now)).toBe('achieved');
    expect(goalStatus({ ...goal, success: 'no' }, now)).toBe('missed');
    expect(goalStatus({ ...goal, success: 'no', success_status: 'achieved' }, now)).toBe('achieved');
    expect(goalStatus(goal, now)).toBe('on_track');
    expect(goalStatus({ ...goal, next_update_scheduled_at: null }, now)).toBe('outdated');
  });
  it('derives privacy from the bindings', () => {
    expect(privacyOf({ public: 10, company: 10, space: 70 })).toBe('public');
    expect(privacyOf({ public: 0, company: 10, space: 70 })).toBe('internal');
    expect(privacyOf({ public: 0, company: 0, space: 70 })).toBe('confidential');
    expect(privacyOf({ public: 0, company: 0, space: 0 })).toBe('secret');
  });
});

describe('transport', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/json;q=0.1', 'json'],
    ['text/html', undefined],
    ['text/plain, text/html', undefined],
    ['garbage', undefined],
    ['text/html;q=0.9, */*;q=0.1', 'json'],
  ])('Accept %j negotiates %j against [json]', (accept, expected) => {
    expect(negotiate(accept, ['json'])).toBe(expected);
  });

  it('renders error views as JSON only when Accept picks json over html', () => {
    expect(errorViewIsJson('application/json')).toBe(true);
    expect(errorViewIsJson('application/json, */*')).toBe(true);
    expect(errorViewIsJson('*/*')).toBe(false);
    expect(errorViewIsJson(undefined)).toBe(false);
    expect(errorViewIsJson('text/plain')).toBe(false);
  });

  it.each([
    ['application/json', 'json'],
    ['application/json; charset=utf-8', 'json'],
    ['Application/JSON', 'json'],
    ['application/merge-patch+json', 'json'],
    ['application/x-www-form-urlencoded', 'form'],
    ['multipart/form-data; boundary=x', 'multipart'],
    [undefined, 'none'],
    ['text/plain', 'unsupported'],
    ['foo', 'unsupported'],
  ])('Content-Type %j is %s', (contentType, kind) => {
    expect(bodyKind(contentType)).toBe(kind);
  });

  it('decodes queries like Plug: lists, maps, and __proto__ as a plain key', () => {
    const decoded = decodeQuery('a=1&a=2&b[]=x&b[]=y&c[d]=3&__proto__=evil');
    expect(decoded).toEqual({ a: '2', b: ['x', 'y'], c: { d: '3' }, ['__proto__']: 'evil' });
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['evil']).toBeUndefined();
  });

  it.each([
    [undefined, undefined],
    ['Bearer abc', 'abc'],
    ['  Bearer    abc  ', 'abc'],
    ['abc', 'abc'],
    ['bearer abc', undefined],
    ['Basic abc', undefined],
    ['Bearer', 'Bearer'],
    ['Bearer ', 'Bearer'],
    ['', undefined],
  ])('reads the token of Authorization %j as %j', (header, token) => {
    expect(tokenFromAuthorization(header)).toBe(token);
  });
});

describe('the input decoder, driven by the spec', () => {
  const document = loadDocument();
  const close = inputSpecFrom(document, '#/paths/~1api~1external~1v1~1goals~1close/post/requestBody/content/application~1json/schema');

  it('reads the fields, kinds, required and nullable flags from the request schema', () => {
    expect(close.map((f) => [f.name, f.kind, f.required, f.nullable])).toEqual([
      ['goal_id', 'id', true, false],
      ['success', 'string', true, false],
      ['retrospective', 'rich-text', true, false],
      ['success_status', 'enum', true, false],
      ['send_notifications_to_everyone', 'boolean', false, true],
      ['subscriber_ids', 'id-list', false, true],
    ]);
  });

  it('visits keys in sorted order, so the first bad key in that order answers', () => {
    const result = decodeInputs(close, { zeta: 1, goal_id: 'bad id!' });
    expect(result.ok ? undefined : result.error.code).toBe('UNDECODABLE_ID');
  });

  it('prints an array success_status as chardata, and crashes on an object', () => {
    const chardata = decodeInputs(close, { success_status: ['ach', [105]] });
    expect(JSON.stringify(chardata.ok ? undefined : chardata.error.body)).toBe(
      production.badRequest(production.messages.invalidEnum('success_status', 'achi', ['achieved', 'missed'])),
    );
    const object = decodeInputs(close, { success_status: { a: 1 } });
    expect(object.ok ? undefined : object.error.code).toBe('DECODING_CRASH');
  });

  it('turns null subscriber_ids into [] and keeps null elements for the operation to fail on', () => {
    expect(decodeInputs(close, { subscriber_ids: null })).toMatchObject({ ok: true, inputs: { subscriber_ids: [] } });
    expect(decodeInputs(close, { subscriber_ids: [null] })).toMatchObject({ ok: true, inputs: { subscriber_ids: [null] } });
  });

  it('lists missing required fields in declaration order (request validation, after decoding)', async () => {
    const { missingFields, readOperations } = await import('../src/core/pipeline.ts');
    const operation = readOperations().byPath.get('/api/external/v1/goals/close');
    if (!operation) throw new Error('goals/close is not routed');
    expect(decodeInputs(close, { success_status: 'missed' })).toMatchObject({ ok: true });
    expect(missingFields(operation, { success_status: 'missed' })).toEqual(['goal_id', 'success', 'retrospective']);
  });
});

describe('new ids (ids.ts newUuid)', () => {
  it('are version 4 UUIDs, lower-case, all distinct', async () => {
    const { newUuid } = await import('../src/domain/ids.ts');
    const ids = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const id = newUuid();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(5000);
  });
});

describe('bounded history (a shared mock runs for weeks)', () => {
  it('keeps at most historyLimit rows per history table and the last events, dropping the oldest', async () => {
    const { Store } = await import('../src/storage/store.ts');
    const { defaultSeed } = await import('../src/domain/seed.ts');
    const { resumeProjectWrite } = await import('../src/operations/resumeProject.ts');
    const seed = defaultSeed();
    const store = new Store(structuredClone(seed.state), { now: () => new Date('2025-06-18T10:00:00Z'), historyLimit: 10 });
    const principal = { personUuid: seed.fixtures.people['full_access'] ?? '', readOnly: false };
    const projectId = seed.fixtures.projects['paused'] ?? '';
    for (let i = 0; i < 25; i++) {
      const outcome = store.apply(
        resumeProjectWrite(principal, {
          project_id: projectId,
          message: { type: 'doc', content: [] },
          subscriber_ids: [seed.fixtures.people['reviewer'] ?? null],
        }),
      );
      expect(outcome.ok).toBe(true);
    }
    // The limit, give or take a tenth (trimmed in batches).
    for (const table of ['activities', 'comment_threads', 'subscription_lists', 'subscriptions', 'notifications'] as const)
      expect(store.state[table].length, table).toBeLessThanOrEqual(11);
    expect(store.events.at(-1)?.seq).toBe(25);
    expect(store.state.activities.at(-1)?.id).toBe(store.events.at(-1)?.activity.id);
  });
});

describe('seed files', () => {
  it('round-trips the default seed through JSON and parseSeed, and a mock started from it works', async () => {
    const { parseSeed } = await import('../src/domain/seedFile.ts');
    const { defaultSeed, createMockApp } = await import('../src/index.ts');
    const parsed = parseSeed(JSON.stringify(defaultSeed()));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const app = createMockApp({ seed: parsed.seed });
    expect(app.mock.store().state.projects.map((p) => p.stored_status)).toEqual(['paused', 'active', 'closed']);
  });

  it.each([
    ['not JSON', 'nope', /^not JSON/],
    ['no state', '{"fixtures":{}}', /^\$\.state must be an object$/],
    ['a list missing', JSON.stringify({ state: { company: {} }, fixtures: {} }), /^\$\.state\.people must be an array$/],
  ])('names what is wrong: %s', async (_name, text, message) => {
    const { parseSeed } = await import('../src/domain/seedFile.ts');
    const parsed = parseSeed(text);
    expect(parsed.ok ? '' : parsed.error).toMatch(message);
  });
});

describe('the default seed', () => {
  it('holds templates that validate against the spec (the mock trusts them at start-up instead of validating)', async () => {
    const { defaultSeed } = await import('../src/domain/seed.ts');
    const { schemaViolations } = await import('../../spec/lib/schemas.ts');
    const { state } = defaultSeed();
    for (const row of state.projects) expect(schemaViolations('Project', row.template), row.name).toBe('');
    for (const row of state.goals) expect(schemaViolations('Goal', row.template), row.name).toBe('');
  });
});

describe('views share their small parts between answers, never stale ones (views.ts)', () => {
  it('a person, space or access binding changed in place shows in the next answer', async () => {
    const { createMockCore } = await import('../src/core/core.ts');
    const { MemorySessions } = await import('../src/storage/sessions.ts');
    const core = createMockCore();
    const { fixtures } = core.seed;
    const headers: Record<string, string> = { authorization: `Bearer ${fixtures.tokens['full_access'] ?? ''}`, 'content-type': 'application/json' };
    const body = new TextEncoder().encode(JSON.stringify({ project_id: fixtures.projects['paused'], message: JSON.stringify({ type: 'doc', content: [] }) }));
    const resume = async (): Promise<Record<string, Record<string, unknown>>> => {
      const framed = await core.answer({ method: 'POST', target: '/api/external/v1/projects/resume', header: (name) => headers[name], body });
      expect(framed.status).toBe(200);
      return JSON.parse(framed.body) as Record<string, Record<string, unknown>>;
    };
    const before = (await resume())['project'] ?? {};
    if (!(core.sessions instanceof MemorySessions)) throw new Error('in-memory sessions expected');
    const state = core.sessions.get().store.state;
    const project = state.projects.find((p) => p.uuid === fixtures.projects['paused']);
    const champion = state.people.find((p) => p.uuid === project?.champion_uuid);
    const space = state.spaces.find((s) => s.uuid === project?.space_uuid);
    if (!project || !champion || !space) throw new Error('the paused project has no champion or space');
    champion.full_name = 'Renamed Champion';
    champion.title = 'Head of Renaming';
    space.name = 'Renamed Space';
    project.access.company = project.access.company === 70 ? 40 : 70;
    const after = (await resume())['project'] ?? {};
    expect(after['champion']).toMatchObject({ full_name: 'Renamed Champion', title: 'Head of Renaming' });
    expect((after['champion'] as Record<string, string>)['id']).toMatch(/^renamed-champion-/);
    expect(after['space']).toMatchObject({ name: 'Renamed Space' });
    expect((after['space'] as Record<string, string>)['id']).toMatch(/^renamed-space-/);
    expect((after['access_levels'] as Record<string, number>)['company']).toBe(project.access.company);
    expect(after['access_levels']).not.toEqual(before['access_levels']);
  });
});

describe('the bounded memo (memo.ts)', () => {
  it('computes a key once, starts over when full, and never keeps a key longer than the limit', async () => {
    const { memoized } = await import('../src/domain/memo.ts');
    const calls: string[] = [];
    const upper = memoized(
      (key: string) => {
        calls.push(key);
        return key.toUpperCase();
      },
      { entries: 2, keyLength: 3 },
    );
    expect([upper('ab'), upper('ab'), upper('cd'), upper('cd')]).toEqual(['AB', 'AB', 'CD', 'CD']);
    expect(calls).toEqual(['ab', 'cd']);
    upper('ef'); // full: the cache starts over with this key
    upper('ab');
    expect(calls).toEqual(['ab', 'cd', 'ef', 'ab']);
    expect([upper('long'), upper('long')]).toEqual(['LONG', 'LONG']);
    expect(calls.slice(-2)).toEqual(['long', 'long']);
  });
});
