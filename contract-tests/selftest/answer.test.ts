// The rules every 200 answer keeps, as units: production's slug, the fields that agree (agreement.ts) on the spec's
// own examples and on each kind of disagreement, what a write leaves alone (memory.ts), and the coverage counts.
import { describe, expect, it } from 'vitest';
import { responseExamples } from '../../spec/lib/operations.ts';
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { agreementRules, serverDay } from '../model/agreement.ts';
import { Coverage, documentedFields } from '../model/coverage.ts';
import { slugOf } from '../model/id-model.ts';
import { RecordMemory } from '../model/memory.ts';
import { operationModel, operationModels, type OperationId } from '../model/profiles.ts';
import { WRITES } from '../model/state-rules.ts';

const TODAY = serverDay({ date: 'Wed, 25 Nov 2026 10:00:00 GMT' });

/** The spec's 200 examples of an operation, each a fresh copy. */
function successExamples(operationId: OperationId): Array<{ name: string; value: JsonObject }> {
  return responseExamples(operationModel(operationId)).flatMap((e) =>
    e.status === 200 && isObject(e.value) ? [{ name: e.name ?? '(example)', value: structuredClone(e.value) }] : [],
  );
}
const record = (body: JsonObject, key: string): JsonObject => {
  const value = body[key];
  if (!isObject(value)) throw new Error(`no ${key}`);
  return value;
};
const codes = (body: unknown): string[] => agreementRules(body, TODAY).map((v) => `${v.code} ${v.location.join('.')}`);

describe("production's slug (helpers.ex id_with_comments)", () => {
  it.each([
    ['Localize onboarding for EU launch', 'localize-onboarding-for'],
    ['Convert more visitors into customers', 'convert-more-visitors'],
    ['Grow annual revenue by 30%', 'grow-annual-revenue-by-30'],
    ['Reduce churn below 3%', 'reduce-churn-below-3'],
    ['aaaaaaaaaa bbbbbbbbbbbbbbbbbbbb cc', 'aaaaaaaaaa-cc'],
    ['  --Hello,   World!! ', 'hello-world'],
    ['Café Über', 'caf-ber'],
    ['2025-05-30', '2025-05-30'],
    ['', ''],
    ['!!!', ''],
    ['Supercalifragilisticexpialidocious words', 'supercalifragilisticexpialidocious'],
  ])('%j → %j', (label, slug) => {
    expect(slugOf(label)).toBe(slug);
  });
});

describe('fields that agree (agreement.ts)', () => {
  it("hold on every 200 example of the spec (the mock's answers are checked the same way by the suite)", () => {
    for (const op of operationModels()) {
      const examples = successExamples(op.operationId);
      expect(examples.length, op.operationId).toBeGreaterThan(0);
      for (const example of examples) {
        // An example is an answer of its day (is_outdated depends on it): the day of the write, its updated_at.
        const written = Object.values(example.value).find(isObject)?.['updated_at'];
        const day = serverDay({ date: new Date(String(written)).toUTCString() });
        expect(agreementRules(example.value, day), `${op.operationId} ${example.name}`).toEqual([]);
      }
    }
  });

  it('name each kind of disagreement where it is, top-level and nested', () => {
    const [resume] = successExamples('resumeProject');
    const [close] = successExamples('closeGoal');
    if (!resume || !close) throw new Error('no examples');
    const project = record(resume.value, 'project');
    project['name'] = `Renamed ${String(project['name'])}`;
    project['space_id'] = 'DoesNotNameTheSpace01';
    const goal = record(close.value, 'goal');
    goal['is_outdated'] = true;
    const champion = goal['champion'];
    if (isObject(champion)) champion['full_name'] = 'Someone Else';
    expect(codes(resume.value)).toEqual(
      expect.arrayContaining(['agreement.id response.body.project.id', 'agreement.reference response.body.project.space_id']),
    );
    expect(codes(close.value)).toEqual(
      expect.arrayContaining(['agreement.outdated response.body.goal.is_outdated', 'agreement.id response.body.goal.champion.id']),
    );
  });

  it('compute state, success_status, is_outdated and status as production does', () => {
    const base = {
      __typename: 'project',
      state: 'active',
      closed_at: null,
      success_status: 'nil',
      is_archived: false,
      timeframe: null,
      last_check_in: null,
      next_check_in_scheduled_at: '2026-11-27T00:00:00Z',
      is_outdated: false,
      status: 'pending',
    };
    const check = (changes: JsonObject): string[] => codes({ project: { ...base, ...changes } }).map((c) => c.split(' ')[0] ?? '');
    expect(check({})).toEqual([]);
    expect(check({ state: 'closed' })).toContain('agreement.state');
    expect(check({ success_status: 'achieved' })).toContain('agreement.success-status');
    expect(check({ closed_at: '2026-11-01T00:00:00Z', state: 'closed', success_status: 'nil' })).toContain('agreement.success-status');
    // Outdated exactly when the next check-in is more than 3 days past; never when paused or not started.
    expect(check({ next_check_in_scheduled_at: '2026-11-22T00:00:00Z' })).toEqual([]);
    expect(check({ next_check_in_scheduled_at: '2026-11-21T00:00:00Z' })).toEqual(['agreement.outdated']);
    expect(check({ next_check_in_scheduled_at: '2026-11-21T00:00:00Z', is_outdated: true, status: 'outdated' })).toEqual([]);
    expect(check({ next_check_in_scheduled_at: null, is_outdated: true, status: 'outdated' })).toEqual([]);
    expect(check({ state: 'paused', next_check_in_scheduled_at: '2026-01-01T00:00:00Z', status: 'paused' })).toEqual([]);
    expect(check({ next_check_in_scheduled_at: '2026-01-01T00:00:00Z', timeframe: { contextual_start_date: { date: '2027-01-01' } } })).toEqual([]);
    // Status: the outcome, paused, outdated, the last check-in, pending.
    expect(check({ last_check_in: { __typename: 'project_check_in', status: 'caution' } })).toEqual(['agreement.status']);
    expect(check({ last_check_in: { __typename: 'project_check_in', status: 'caution' }, status: 'caution' })).toEqual([]);
    expect(check({ state: 'closed', closed_at: '2026-11-01T00:00:00Z', success_status: 'missed', status: 'achieved' })).toEqual(['agreement.status']);
    expect(check({ status: 'paused' })).toEqual(['agreement.status']);
  });

  it('compute a goal the same way: closed exactly with closed_at, a closed goal never outdated, an open one not achieved', () => {
    const base = {
      __typename: 'goal',
      is_closed: false,
      closed_at: null,
      is_archived: false,
      success: false,
      next_update_scheduled_at: '2026-12-01T00:00:00Z',
      is_outdated: false,
      status: 'pending',
      last_check_in: null,
    };
    const check = (changes: JsonObject): string[] => codes({ goal: { ...base, ...changes } }).map((c) => c.split(' ')[0] ?? '');
    expect(check({})).toEqual([]);
    expect(check({ is_closed: true })).toEqual(expect.arrayContaining(['agreement.state']));
    expect(check({ is_closed: true, closed_at: '2026-11-25T09:00:00Z', status: 'achieved' })).toEqual([]);
    expect(check({ is_closed: true, closed_at: '2026-11-25T09:00:00Z', status: 'pending' })).toEqual(['agreement.status']);
    expect(check({ is_closed: true, closed_at: '2026-11-25T09:00:00Z', status: 'missed', is_outdated: true })).toEqual(['agreement.outdated']);
    expect(check({ status: 'achieved' })).toEqual(['agreement.status']);
    expect(check({ success: true, status: 'achieved' })).toEqual([]);
    expect(check({ next_update_scheduled_at: null })).toEqual(expect.arrayContaining(['agreement.outdated']));
    // Without its last update in the answer, an open goal's status cannot be computed, but it is never "achieved".
    const { last_check_in: _, ...withoutUpdate } = base;
    expect(agreementRules({ goal: { ...withoutUpdate, status: 'on_track' } }, TODAY)).toEqual([]);
    expect(agreementRules({ goal: { ...withoutUpdate, status: 'achieved' } }, TODAY).map((v) => v.message)).toEqual([
      'an open goal is achieved only when its success is "yes" (Goal.status/1; RULES.md#state-goal): expected not "achieved"; got "achieved"',
    ]);
  });
});

describe('what a write leaves alone (memory.ts)', () => {
  const answer = (changes: JsonObject = {}, nested: JsonObject = {}): JsonObject => ({
    project: {
      __typename: 'project',
      id: 'localize-onboarding-for-FjO1YSsAoCpZz3SMRvlSvK',
      name: 'Localize onboarding for EU launch',
      state: 'active',
      updated_at: '2026-11-25T10:00:00Z',
      champion: { __typename: 'person', id: 'alice-johnson-Gp5Ex7foYoYTHB47d4lHkh', title: 'Head of Growth' },
      goal: {
        __typename: 'goal',
        id: 'convert-more-visitors-FEBoOzPNE0H4GNy9U6K4Cq',
        status: 'outdated',
        name: 'Convert more visitors into customers',
        ...nested,
      },
      ...changes,
    },
  });
  const goalAnswer = { goal: { __typename: 'goal', id: 'convert-more-visitors-FEBoOzPNE0H4GNy9U6K4Cq', status: 'achieved' } };

  it('compares each answer with the same record’s previous one: what the write changes may differ, nothing else', () => {
    const memory = new RecordMemory();
    expect(memory.observe('s', 'resumeProject', answer())).toEqual({
      violations: [],
      skipped: 'the first answer for this project (nothing earlier to compare with)',
    });
    expect(memory.observe('s', 'resumeProject', answer({ state: 'paused', updated_at: '2026-11-25T10:00:09Z' })).violations).toEqual([]);
    const changed = memory.observe(
      's',
      'resumeProject',
      answer({ champion: { __typename: 'person', id: 'alice-johnson-Gp5Ex7foYoYTHB47d4lHkh', title: 'CEO' } }),
    ).violations;
    expect(changed.map((v) => [v.code, v.location.join('.')])).toEqual([['left-alone', 'response.body.project.champion.title']]);
    expect(changed[0]?.message).toMatch(
      /^resume changes only state, status, next_check_in_scheduled_at, is_outdated, updated_at of the project .* but this field was "Head of Growth" in the previous answer for the same project and is "CEO" now$/,
    );
  });

  it('lets a nested record differ in what its own write changes only when that write came in between', () => {
    const memory = new RecordMemory();
    memory.observe('s', 'resumeProject', answer());
    expect(memory.observe('s', 'resumeProject', answer({}, { status: 'achieved' })).violations.map((v) => v.location.join('.'))).toEqual([
      'response.body.project.goal.status',
    ]);
    memory.observe('s', 'closeGoal', goalAnswer);
    expect(memory.observe('s', 'resumeProject', answer({}, { status: 'missed' })).violations).toEqual([]);
    // The close allows the goal's closing fields, not its name.
    memory.observe('s', 'closeGoal', goalAnswer);
    expect(memory.observe('s', 'resumeProject', answer({}, { status: 'achieved', name: 'Renamed' })).violations.map((v) => v.location.join('.'))).toEqual([
      'response.body.project.goal.name',
    ]);
  });

  it('keeps scopes apart, forgets on demand, and holds at most its capacity', () => {
    const memory = new RecordMemory(2);
    memory.observe('a', 'resumeProject', answer());
    expect(memory.observe('b', 'resumeProject', answer({ name: 'Other view' })).skipped).toMatch(/first answer/);
    memory.forget('a');
    expect(memory.observe('a', 'resumeProject', answer({ name: 'Again' })).skipped).toMatch(/first answer/);
    memory.observe('c', 'closeGoal', goalAnswer);
    expect(memory.size).toBe(2);
    expect(memory.observe('s', 'resumeProject', { project: { name: 'no id' } }).skipped).toBe('the answer has no project with an id');
  });

  it("names every operation's record and changes (rules.ts WRITES, one entry per operation)", () => {
    expect(Object.keys(WRITES).sort()).toEqual(
      operationModels()
        .map((o) => o.operationId)
        .sort(),
    );
  });
});

describe('coverage (coverage.ts)', () => {
  it('counts statuses, response fields, request fields and enum values, and rules, against what the spec documents', () => {
    const [close] = successExamples('closeGoal');
    if (!close) throw new Error('no example');
    const coverage = new Coverage();
    coverage.exchange('closeGoal', JSON.stringify({ goal_id: 'x', success: 'yes', success_status: 'achieved' }), 200, close.value);
    coverage.exchange('closeGoal', '{}', 400, undefined);
    coverage.exchange('closeGoal', 'not json', 999, undefined);
    coverage.rule('closeGoal', 'left-alone', 'the first answer');
    coverage.rule('closeGoal', 'agreement');
    const other = new Coverage();
    other.rule('closeGoal', 'agreement');
    coverage.merge(other.data);
    const report = coverage.report().operations['closeGoal'];
    expect(report?.exchanges).toBe(3);
    expect(report?.statuses).toMatchObject({ seen: { '200': 1, '400': 1, '999': 1 }, undocumented: ['999'] });
    expect(report?.statuses.unseen).not.toContain('200');
    expect(report?.request_fields.sent).toEqual({ goal_id: 1, success: 1, success_status: 1 });
    expect(report?.request_fields.unsent).toEqual(['retrospective', 'send_notifications_to_everyone', 'subscriber_ids']);
    expect(report?.enum_values['success_status']).toEqual({ documented: ['achieved', 'missed'], sent: { achieved: 1 }, unsent: ['missed'] });
    expect(report?.rules).toEqual({ 'left-alone': { run: 0, skipped: { 'the first answer': 1 } }, agreement: { run: 2, skipped: {} } });
    expect(report?.response_fields.non_null).toEqual(expect.arrayContaining(['CloseGoalResponse.goal', 'Goal.name', 'Timeframe.contextual_start_date']));
    // Counted per schema: the closed goal and the open goal nested in one of its projects.
    expect(report?.response_fields.counts['Goal.closed_at']).toEqual({ non_null: 1, null: 1, absent: 0 });
    expect(report?.response_fields.documented).toBe(documentedFields(operationModel('closeGoal')).length);
    expect(coverage.lines().find((l) => l.startsWith('closeGoal'))).toMatch(
      /^closeGoal: 3 exchanges; statuses 2\/10 \(never [\d ]+\), undocumented seen 999; response fields \d+\/\d+ non-null, \d+ only null, \d+ never present; request fields 3\/6; values success_status 1\/2; rules 1\/2 ran \(never: left-alone: the first answer\)$/,
    );
  });
});
