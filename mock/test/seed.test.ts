// The default seed is production-true for every record it holds, so that a record or persona added later cannot break
// it unseen: each record owns its nested rows (contributors, subscription list and subscriptions, resource hub, task
// statuses, milestones, check-ins, targets: §4.3, §5 project_contributor), nothing is acknowledged before it was
// written, lists come in production's order (contributors: champion, reviewer, contributor, then by full name;
// targets and checklists by index), integer fields hold integers, and every answer writes its numbers as Jason does
// (spec/lib/number-form.ts), checked on the bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { numberFormViolations, numberTable } from '../../spec/lib/number-form.ts';
import { defaultSeed } from '../src/index.ts';
import { CLOSE, RESUME, doc, startMock, type RunningMock } from './http.ts';

const seed = defaultSeed();
const records: Array<{ name: string; template: JsonObject }> = [...seed.state.projects, ...seed.state.goals].map((r) => ({
  name: r.name,
  template: r.template as JsonObject,
}));

/** Every object at any depth of `value`, with its path. */
function* objects(value: unknown, path: string[] = []): Generator<{ object: JsonObject; path: string[] }> {
  if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* objects(item, [...path, String(i)]);
  else if (isObject(value)) {
    yield { object: value, path };
    for (const [key, child] of Object.entries(value)) yield* objects(child, [...path, key]);
  }
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const idOf = (value: unknown): string | undefined => (isObject(value) && typeof value['id'] === 'string' ? value['id'] : undefined);

/** The ids of the rows a record owns (never another record's, a person's or a space's). */
function ownedIds(template: JsonObject): string[] {
  const list_ = isObject(template['subscription_list']) ? template['subscription_list'] : {};
  const rows = [
    ...list(template['contributors']),
    template['subscription_list'],
    ...list(list_['subscriptions']),
    template['resource_hub'],
    ...list(template['task_statuses']),
    ...list(template['milestones']),
    template['last_check_in'],
    template['retrospective'],
    ...list(template['targets']),
    ...list(template['checklist']),
  ];
  return rows.flatMap((row) => idOf(row) ?? []);
}

const ROLE_RANK: Readonly<Record<string, number>> = { champion: 0, reviewer: 1, contributor: 2 };

describe('the default seed is production-true for every record', () => {
  it('has records to check: the three projects and two goals of the stories', () => {
    expect(records.map((r) => r.name)).toHaveLength(5);
  });

  it('gives each record its own nested rows: no id of a contributor, subscription list or subscription, resource hub, task status, milestone, check-in, target or checklist item is another record’s', () => {
    const owner = new Map<string, string>();
    const shared: string[] = [];
    for (const { name, template } of records) {
      const ids = ownedIds(template);
      expect(new Set(ids).size, `${name} repeats an id of its own rows`).toBe(ids.length);
      for (const id of ids) {
        const first = owner.get(id);
        if (first !== undefined && first !== name) shared.push(`${id}: ${first} and ${name}`);
        owner.set(id, name);
      }
    }
    expect(shared).toEqual([]);
  });

  it('acknowledges nothing before it was written or published', () => {
    const early: string[] = [];
    for (const { name, template } of records)
      for (const { object, path } of objects(template)) {
        const acknowledged = object['acknowledged_at'];
        if (typeof acknowledged !== 'string') continue;
        for (const field of ['inserted_at', 'published_at']) {
          const written = object[field];
          if (typeof written === 'string' && Date.parse(acknowledged) < Date.parse(written))
            early.push(`${name} ${path.join('.')}: acknowledged ${acknowledged}, ${field} ${written}`);
        }
      }
    expect(early).toEqual([]);
  });

  it('lists contributors champion, reviewer, contributor, then by full name, and targets and checklist items by index', () => {
    const wrong: string[] = [];
    for (const { name, template } of records) {
      const key = (c: unknown): string => {
        const role = isObject(c) && typeof c['role'] === 'string' ? c['role'] : '';
        const person = isObject(c) && isObject(c['person']) && typeof c['person']['full_name'] === 'string' ? c['person']['full_name'] : '';
        return `${ROLE_RANK[role] ?? 3} ${person}`;
      };
      const contributors = list(template['contributors']).map(key);
      if (contributors.join('|') !== [...contributors].sort().join('|')) wrong.push(`${name} contributors ${contributors.join(', ')}`);
      for (const field of ['targets', 'checklist']) {
        const indexes = list(template[field]).map((t) => (isObject(t) ? t['index'] : undefined));
        if (indexes.some((index, i) => index !== i)) wrong.push(`${name} ${field} ${JSON.stringify(indexes)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('holds integers in every integer field (access levels, indexes, counts)', () => {
    const { typed } = numberTable();
    const wrong: string[] = [];
    for (const { name, template } of records)
      for (const { object, path } of objects(template)) {
        const typename = object['__typename'];
        const kinds = typeof typename === 'string' ? typed.get(typename) : undefined;
        for (const [field, kind] of kinds ?? []) {
          const value = object[field];
          if (kind === 'integer' && typeof value === 'number' && !Number.isInteger(value)) wrong.push(`${name} ${[...path, field].join('.')} = ${value}`);
        }
      }
    expect(wrong).toEqual([]);
  });
});

describe('the seed’s records as the mock answers them', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ now: () => new Date('2025-06-13T15:42:07Z') });
  });
  afterAll(() => mock.close());

  it('writes every number of every record’s answer as production does (integers as digits, floats as Jason writes them)', async () => {
    const token = mock.fixtures.tokens['full_access'] ?? '';
    const answers = [
      ...Object.values(mock.fixtures.projects).map((id) => mock.post(RESUME, { project_id: id, message: doc('On.') }, token)),
      ...Object.values(mock.fixtures.goals).map((id) =>
        mock.post(CLOSE, { goal_id: id, success: 'yes', success_status: 'achieved', retrospective: doc('Done.') }, token),
      ),
    ];
    const received = await Promise.all(answers);
    expect(received.map((r) => r.status)).toEqual(Array(received.length).fill(200));
    expect(received.flatMap((r) => numberFormViolations(r.text, r.json()).map((v) => v.message))).toEqual([]);
    // The bytes production writes, not JSON.stringify's: a whole float keeps its fraction, 1200.0 is 1.2e3.
    const goal = received.find((r) => r.text.includes('"progress_percentage"'))?.text ?? '';
    expect(goal).toMatch(/"progress_percentage":\d+\.\d/);
  });
});
