// The rules beyond one caller, on answers built here: the caller's permissions (caller.ts), list orders,
// nested ids, timestamps that agree (agreement.ts), numbers in Jason's bytes (spec/lib/number-form.ts) and the
// subscriptions a write leaves (subscriptions.ts). Each rule passes production's own answer (the spec's examples) and
// names the one field a deviation breaks.
import { describe, expect, it } from 'vitest';
import { elixirFloat, numberFormViolations, productionJson } from '../../spec/lib/number-form.ts';
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { agreementRules } from '../model/agreement.ts';
import { callerRules } from '../model/caller.ts';
import { operationModels, responseExample } from '../model/profiles.ts';
import { expectedSubscriptions, subscriptionRules } from '../model/subscriptions.ts';

const examples = operationModels().flatMap((op) =>
  op.responseExampleNames.flatMap((name) => {
    try {
      const value = responseExample(op, 200, 'application/json', name);
      return isObject(value) ? [{ name, value }] : [];
    } catch {
      return [];
    }
  }),
);
const DAY = Date.parse('2025-06-13T00:00:00Z');
const ALICE = 'alice-johnson-Gp5Ex7foYoYTHB47d4lHkh';
const GRACE = 'grace-kim-G51Nf6WWunru3dDesodr73';
const codes = (violations: ReadonlyArray<{ code: string }>): string[] => violations.map((v) => v.code);
const clone = (value: JsonObject): JsonObject => structuredClone(value);
const recordOf = (body: JsonObject): JsonObject => {
  const record = body['project'] ?? body['goal'];
  if (!isObject(record)) throw new Error('no record');
  return record;
};

describe('production’s answers pass every new rule', () => {
  it('has the spec’s 200 examples to check', () => expect(examples.length).toBeGreaterThanOrEqual(4));
  for (const { name, value } of examples)
    it(`${name}: agreement, numbers as Jason writes them, the champion's permissions`, () => {
      expect(agreementRules(value, DAY)).toEqual([]);
      const text = productionJson(value);
      expect(numberFormViolations(text, JSON.parse(text))).toEqual([]);
      expect(callerRules(value, { person: ALICE, persona: 'full_access', exact: true })).toEqual([]);
    });
});

describe('numbers in production’s bytes (Jason: Integer.to_string, float_to_binary short)', () => {
  it('writes an Elixir float as Jason does: a fraction always, the shorter of decimal and scientific', () => {
    expect([70, 5.2, 100, 2140, 1200, 2000, 0.05, 1e-5, -3, 0].map(elixirFloat)).toEqual([
      '70.0',
      '5.2',
      '100.0',
      '2140.0',
      '1.2e3',
      '2.0e3',
      '0.05',
      '1.0e-5',
      '-3.0',
      '0.0',
    ]);
  });
  const body = {
    goal: {
      __typename: 'goal',
      progress_percentage: 50,
      access_levels: { __typename: 'access_levels', space: 70 },
      targets: [{ __typename: 'target', index: 0, from: 1200, to: 5.2, value: 3 }],
    },
  };
  it('writes float fields in that form and integers as digits', () => {
    expect(productionJson(body)).toBe(
      '{"goal":{"__typename":"goal","progress_percentage":50.0,"access_levels":{"__typename":"access_levels","space":70},"targets":[{"__typename":"target","index":0,"from":1.2e3,"to":5.2,"value":3.0}]}}',
    );
  });
  it('names an integer written 70.0, a float written 50, and lets a goal without targets have the integer 0', () => {
    const text = productionJson(body).replace('"space":70', '"space":70.0').replace('50.0', '50');
    expect(numberFormViolations(text, JSON.parse(text)).map((v) => v.location.join('.'))).toEqual([
      'response.body.goal.progress_percentage',
      'response.body.goal.access_levels.space',
    ]);
    const none = '{"goal":{"__typename":"goal","progress_percentage":0,"targets":[]}}';
    expect(numberFormViolations(none, JSON.parse(none))).toEqual([]);
  });
});

describe('the caller’s own permissions, on the record and nested records', () => {
  const project = examples.find((e) => isObject(e.value['project']));
  /** A goal example that lists a project example as its own (as goals/get with include_projects would). */
  const goal = (() => {
    const found = examples.find((e) => isObject(e.value['goal']));
    if (!found || !project) return undefined;
    const body = clone(found.value);
    const nested = clone(recordOf(project.value));
    const id = recordOf(body)['id'];
    nested['goal_id'] = typeof id === 'string' ? (id.split('-').at(-1) ?? id) : null;
    recordOf(body)['projects'] = [nested];
    return { name: found.name, value: body };
  })();
  it('builds a goal with a nested project from the examples, which passes', () => {
    expect(goal).toBeDefined();
    expect(callerRules(goal?.value, { person: ALICE, persona: 'full_access', exact: true })).toEqual([]);
    expect(agreementRules(goal?.value, DAY)).toEqual([]);
  });
  it('gives the space’s editor at most level 70: full access is a violation, edit is not', () => {
    const body = clone(project?.value ?? {});
    const permissions = recordOf(body)['permissions'];
    if (!isObject(permissions)) throw new Error('no permissions');
    expect(codes(callerRules(body, { person: GRACE, persona: 'editor', exact: true }))).toEqual(['caller.permissions']);
    permissions['has_full_access'] = false;
    expect(callerRules(body, { person: GRACE, persona: 'editor', exact: true })).toEqual([]);
    // A caller whose bindings may not all show (not a persona): only the lower bound holds.
    permissions['has_full_access'] = true;
    expect(callerRules(body, { person: GRACE, exact: false })).toEqual([]);
  });
  it('names a nested project whose permissions are not the champion’s', () => {
    const body = clone(goal?.value ?? {});
    const nested = recordOf(body)['projects'];
    const first: unknown = Array.isArray(nested) ? nested[0] : undefined;
    if (!isObject(first) || !isObject(first['permissions'])) throw new Error('no nested permissions');
    first['permissions']['has_full_access'] = false;
    const found = callerRules(body, { person: ALICE, persona: 'full_access', exact: true });
    expect(found.map((v) => v.location.join('.'))).toEqual(['response.body.goal.projects.0.permissions']);
  });
});

describe('orders, nested ids and timestamps that agree', () => {
  const project = clone(examples.find((e) => isObject(e.value['project']))?.value ?? {});
  const goal = (() => {
    const body = clone(examples.find((e) => isObject(e.value['goal']) && Array.isArray(recordOf(e.value)['targets']))?.value ?? {});
    const nested = clone(recordOf(project));
    const id = recordOf(body)['id'];
    nested['goal_id'] = typeof id === 'string' ? (id.split('-').at(-1) ?? id) : null;
    recordOf(body)['projects'] = [nested];
    return body;
  })();
  it('names contributors out of production’s order', () => {
    const contributors = recordOf(project)['contributors'];
    if (!Array.isArray(contributors)) throw new Error('no contributors');
    contributors.reverse();
    expect(codes(agreementRules(project, DAY))).toContain('agreement.list-order');
    contributors.reverse();
  });
  it('names targets out of index order and a goal’s project naming another goal', () => {
    const g = clone(goal);
    const targets = recordOf(g)['targets'];
    if (Array.isArray(targets) && targets.length > 1) targets.reverse();
    const projects = recordOf(g)['projects'];
    if (Array.isArray(projects) && isObject(projects[0])) projects[0]['goal_id'] = 'EpjNxvOo5Wu02XouQT5ipL';
    const found = agreementRules(g, DAY).map((v) => `${v.code} ${v.location.join('.')}`);
    expect(found).toContain('agreement.list-order response.body.goal.targets');
    expect(found).toContain('agreement.reference response.body.goal.projects.0.goal_id');
  });
  it('names a record updated before it was closed, and a check-in acknowledged before it was written', () => {
    const g = clone(goal);
    const record = recordOf(g);
    record['updated_at'] = '2020-01-01T00:00:00Z';
    const last = record['last_check_in'];
    if (isObject(last)) last['acknowledged_at'] = '2020-01-01T00:00:00Z';
    const found = agreementRules(g, DAY).map((v) => `${v.code} ${v.location.join('.')}`);
    expect(found).toContain('agreement.timestamps response.body.goal.updated_at');
    expect(found).toContain('agreement.timestamps response.body.goal.last_check_in.acknowledged_at');
  });
});

describe('the subscriptions a write leaves', () => {
  const sent = { caller: 'a', listed: ['a', 'a', 'd'], mentioned: ['c', 'a'] };
  it('expects each person once: invited for the caller and the listed, mentioned for the mentioned only', () => {
    expect([...expectedSubscriptions(sent)]).toEqual([
      ['a', 'invited'],
      ['d', 'invited'],
      ['c', 'mentioned'],
    ]);
  });
  const stateBefore = { subscription_lists: [], subscriptions: [], notifications: [] };
  const row = (person: string, type: string, id = person): JsonObject => ({ id, subscription_list_id: 'L', person_uuid: person, type, canceled: false });
  const stateAfter = (subscriptions: JsonObject[], notified: string[]): JsonObject => ({
    subscription_lists: [{ id: 'L' }],
    subscriptions,
    notifications: notified.map((person) => ({ id: `n-${person}`, person_uuid: person })),
  });
  const canSee = (person: string): boolean => person !== 'd';
  const rules = (state: JsonObject): string[] => codes(subscriptionRules(stateBefore, state, sent, canSee, (p) => p));
  it('passes production’s rows: three subscriptions, only c notified', () => {
    expect(rules(stateAfter([row('a', 'invited'), row('d', 'invited'), row('c', 'mentioned')], ['c']))).toEqual([]);
  });
  it('names a wrong type, a missing mention, a duplicate, the author notified and a person without access notified', () => {
    expect(rules(stateAfter([row('a', 'invited'), row('d', 'invited'), row('c', 'invited')], ['c']))).toEqual(['subscriptions.type']);
    expect(rules(stateAfter([row('a', 'invited'), row('d', 'invited')], []))).toEqual(['subscriptions.rows', 'notifications.recipients']);
    expect(rules(stateAfter([row('a', 'invited'), row('a', 'invited', 'a2'), row('d', 'invited'), row('c', 'mentioned')], ['c']))).toEqual([
      'subscriptions.duplicate',
    ]);
    expect(rules(stateAfter([row('a', 'invited'), row('d', 'invited'), row('c', 'mentioned')], ['c', 'a']))).toEqual(['notifications.author']);
    expect(rules(stateAfter([row('a', 'invited'), row('d', 'invited'), row('c', 'mentioned')], ['c', 'd']))).toEqual(['notifications.access']);
  });
});
