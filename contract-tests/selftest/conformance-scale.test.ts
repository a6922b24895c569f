// The conformance core on answers built to cost: a valid closeGoal 200 whose checklist has
// thousands of bad entries is checked with work linear in its size (counted: the validator's calls and the largest
// error list it hands over, never the time), a body nested past MAX_BODY_DEPTH is one violation, the violations one
// exchange lists are capped with an exact "and N more", and strings from the answer reach a message escaped.
import { describe, expect, it } from 'vitest';
import { specValidator } from '../../spec/lib/ajv.ts';
import { explainSteps, MAX_BODY_DEPTH } from '../../spec/lib/conformance.ts';
import { texts } from '../../spec/lib/messages.ts';
import type { SchemaValidator } from '../../spec/lib/openapi.ts';
import { capViolations, formatLocation, formatViolation, MAX_REPORTED, printable, quoted, violation } from '../../spec/lib/violations.ts';
import { checkResponse } from '../harness/check-response.ts';
import { bigGoalAnswer } from './big-answer.ts';

const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': texts.cacheControl, 'x-request-id': 'F_uAnbzq1dCbYgIAAAJB' };

type Work = { calls: number; largest: number; steps: number };

/** checkResponse of `text` with the suite's validator, counting what it asked of it. */
function counted(text: string): { work: Work; violations: ReturnType<typeof checkResponse> } {
  const inner = specValidator();
  const work: Work = { calls: 0, largest: 0, steps: 0 };
  const seen = <T extends ReadonlyArray<unknown> | undefined>(errors: T): T => {
    work.calls++;
    work.largest = Math.max(work.largest, errors?.length ?? 0);
    return errors;
  };
  const validator: SchemaValidator = {
    validate: (pointer, value) => seen(inner.validate(pointer, value)),
    isValid: (pointer, value) => {
      work.calls++;
      return inner.isValid?.(pointer, value) ?? inner.validate(pointer, value).length === 0;
    },
    validateOwn: (pointer, value) => seen(inner.validateOwn?.(pointer, value)),
  };
  const before = explainSteps.count;
  const violations = checkResponse('closeGoal', { status: 200, headers: HEADERS, text }, { validator });
  work.steps = explainSteps.count - before;
  return { work, violations };
}

describe('checking a large answer', () => {
  it('explains 7 errors per bad checklist entry, with work that grows by the same amount per entry', () => {
    const [small, medium, large] = [500, 1000, 2000].map((items) => counted(bigGoalAnswer(items)));
    if (!small || !medium || !large) throw new Error('three checks');
    for (const [checked, items] of [
      [small, 500],
      [medium, 1000],
      [large, 2000],
    ] as const) {
      expect(checked.violations.filter((v) => v.severity === 'error')).toHaveLength(7 * items);
      expect(checked.violations.filter((v) => v.severity === 'warning')).toHaveLength(0);
    }
    // Linear: the second thousand entries cost twice what the second five hundred did, level for level and call for call.
    expect(large.work.steps - medium.work.steps).toBe(2 * (medium.work.steps - small.work.steps));
    expect(large.work.calls - medium.work.calls).toBe(2 * (medium.work.calls - small.work.calls));
    // No error list handed over grows with the answer: each level gets its own keywords' errors (an entry's 7 at most),
    // never the 14,000 of the whole checklist.
    expect(large.work.largest).toBe(small.work.largest);
    expect(large.work.largest).toBeLessThanOrEqual(7);
    // The same violations for the same entries, whatever the number of entries.
    const first = (found: typeof small.violations) => found.slice(0, 14).map((v) => `${formatLocation(v.location)} ${v.code} ${v.message}`);
    expect(first(large.violations)).toEqual(first(small.violations));
    expect(first(small.violations).slice(0, 7)).toEqual([
      'response.body.goal.checklist[0].__typename schema.const must be "goal_check"; got "goal_chek"',
      'response.body.goal.checklist[0].id schema.type must be string, got integer 0',
      'response.body.goal.checklist[0].name schema.type must be string, got integer 7',
      'response.body.goal.checklist[0].completed schema.type must be boolean, got string "yes"',
      'response.body.goal.checklist[0].index schema.type must be integer, got string "first"',
      'response.body.goal.checklist[0].inserted_at schema.format must be a date-time, got "then"',
      'response.body.goal.checklist[0].updated_at schema.type must be string, got null',
    ]);
  });

  it(`makes a body nested deeper than ${MAX_BODY_DEPTH} levels one violation, not a stack overflow`, () => {
    const deep = `{"goal":${'{"parent_goal":'.repeat(20_000)}null${'}'.repeat(20_000)}}`;
    const found = checkResponse('closeGoal', { status: 200, headers: HEADERS, text: deep });
    expect(found.map((v) => [formatLocation(v.location), v.code, v.message])).toEqual([
      [
        'response.body',
        'body.too-deep',
        `the body nests deeper than ${MAX_BODY_DEPTH} levels (the API's answers nest a few levels); its schema was not checked`,
      ],
    ]);
  });
});

describe('the violations one exchange lists', () => {
  it(`lists ${MAX_REPORTED}, errors first, and counts the rest exactly in one more`, () => {
    const many = [
      ...Array.from({ length: 3 }, (_, i) => violation(['response', 'body', `w${i}`], 'field.unknown', `warning ${i}`, 'warning')),
      ...Array.from({ length: 250 }, (_, i) => violation(['response', 'body', i], 'schema.type', `error ${i}`)),
    ];
    const shown = capViolations(many, (more) => more);
    expect(shown).toHaveLength(MAX_REPORTED + 1);
    expect(shown.slice(0, MAX_REPORTED).every((v, i) => v.severity === 'error' && v.message === `error ${i}`)).toBe(true);
    expect(shown[MAX_REPORTED]).toEqual({
      location: ['response'],
      code: 'violations.more',
      severity: 'error',
      message: 'and 153 more (150 errors and 3 warnings) not listed: 253 in all, the first 100 shown',
    });
    const warningsOnly = capViolations(
      Array.from({ length: 102 }, (_, i) => violation(['response'], 'field.unknown', `w${i}`, 'warning')),
      (more) => more,
    );
    expect(warningsOnly.at(-1)).toMatchObject({ severity: 'warning', message: 'and 2 more (2 warnings) not listed: 102 in all, the first 100 shown' });
    expect(capViolations(many.slice(0, MAX_REPORTED), (more) => more)).toEqual(many.slice(0, MAX_REPORTED));
  });

  it('caps a 6,000-entry answer to 100 lines and an "and 41900 more" (42,000 errors in all)', () => {
    const found = checkResponse('closeGoal', { status: 200, headers: HEADERS, text: bigGoalAnswer(6000) });
    expect(found).toHaveLength(42_000);
    const lines = capViolations(found, (more) => more).map(formatViolation);
    expect(lines).toHaveLength(101);
    expect(lines.at(-1)).toBe('✗ error   response  and 41900 more (41900 errors) not listed: 42000 in all, the first 100 shown  [violations.more]');
  });
});

describe('strings from the answer in a message', () => {
  const forged = ['x\n✗ #1 fake', '\r', '\u001b[31m', 'a\u009bb\u2028c\u202ed'];

  it('escapes field names and values: every violation is one line, with no control character in it', () => {
    const body = JSON.parse(bigGoalAnswer(1));
    for (const name of forged) body.goal[name] = name;
    body.goal.progress_percentage = `${forged[0]}\u009b`;
    body.goal.checklist[0][forged[2] ?? ''] = 1;
    const found = checkResponse('closeGoal', { status: 200, headers: HEADERS, text: JSON.stringify(body) });
    const lines = found.map(formatViolation);
    expect(lines.filter((line) => line.includes('field.unknown'))).toEqual([
      '! warning response.body.goal.checklist[0]["\\u001b[31m"]  field "\\u001b[31m" is not in the spec (an additive field: reported, not a failure)  [field.unknown]',
      '! warning response.body.goal["x\\n✗ #1 fake"]  field "x\\n✗ #1 fake" is not in the spec (an additive field: reported, not a failure)  [field.unknown]',
      '! warning response.body.goal["\\r"]  field "\\r" is not in the spec (an additive field: reported, not a failure)  [field.unknown]',
      '! warning response.body.goal["\\u001b[31m"]  field "\\u001b[31m" is not in the spec (an additive field: reported, not a failure)  [field.unknown]',
      '! warning response.body.goal["a\\u009bb\\u2028c\\u202ed"]  field "a\\u009bb\\u2028c\\u202ed" is not in the spec (an additive field: reported, not a failure)  [field.unknown]',
    ]);
    expect(lines).toContain('✗ error   response.body.goal.progress_percentage  must be number or null, got string "x\\n✗ #1 fake\\u009b"  [schema.type]');
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
  });

  it('prints any text with its unprintable characters as \\u escapes, and quotes a string as JSON does', () => {
    expect(printable('a\n✗ #1 fake\r\u001b[31mé\u0085\u2066')).toBe('a\\u000a✗ #1 fake\\u000d\\u001b[31mé\\u0085\\u2066');
    expect(quoted('say "hi"\n\u009b')).toBe('"say \\"hi\\"\\n\\u009b"');
    // A message built elsewhere (the state rules name ids from the answer) is escaped where it is printed.
    expect(formatViolation(violation(['response', 'body', 'goal', 'id'], 'state.record', 'the response is about goal \n✗ #1 fake\u001b[31m'))).toBe(
      '✗ error   response.body.goal.id  the response is about goal \\u000a✗ #1 fake\\u001b[31m  [state.record]',
    );
  });
});
