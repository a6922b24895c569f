// The order of checks (RULES.md#order-of-checks; RULES.md#decision-2): the inputs are decoded
// before the token is read, the token before the read-only guard, the guard before missing fields, missing fields
// before the lookup. Each row sends one defect with a token that would fail a later step.
import { describe, it } from 'vitest';
import { anyBody, unknownToken } from '../harness/cases.ts';
import { answers, either, one, type Expectation } from '../model/expected.ts';
import { contract, type Auth } from '../harness/harness.ts';
import { wrongInputs } from '../model/inputs.ts';
import { operationModels, type OperationModel } from '../model/profiles.ts';
import { withField } from '../harness/requests.ts';
import type { JsonObject } from '../../spec/lib/openapi.ts';

type Row = { rule: string; auth: () => Auth; body: (op: OperationModel, valid: JsonObject) => JsonObject; expected: (op: OperationModel) => Expectation };

const firstNonNullable = (op: OperationModel): string => op.fields.find((f) => !f.nullable)?.name ?? op.targetField;
/**
 * A value of the wrong type for a field of the operation, with production's answer (inputs.ts): its first boolean
 * field given the string "true", or, with none, its first string field given a number.
 */
function wrongTyped(op: OperationModel): { field: string; value: unknown; expected: Expectation } {
  const field = op.fields.find((f) => f.kind === 'boolean') ?? op.fields.find((f) => f.kind === 'string');
  const [wrong] = field === undefined ? [] : wrongInputs(field, answers(op));
  if (field === undefined || wrong === undefined) throw new Error(`${op.operationId} has no boolean or string field to send a wrongly typed value to`);
  return { field: field.name, value: wrong.value, expected: wrong.expectation };
}

const rows: Row[] = [
  {
    rule: 'Without a token, null in a required field is still 400 (the null-field answer): inputs come before the token (Order of checks 5–6)',
    auth: () => undefined,
    body: (op, b) => withField(b, firstNonNullable(op), null),
    expected: (op) => one(answers(op).nullField(firstNonNullable(op))),
  },
  {
    rule: 'With an unknown token, an unknown field is still 400 (or production’s 500): inputs come before the token (Order of checks 5–6)',
    auth: () => ({ header: `Bearer ${unknownToken()}` }),
    body: (_op, b) => withField(b, 'name', 'x'),
    expected: (op) => either(answers(op).unknownField('name'), answers(op).decodingCrash),
  },
  {
    rule: 'Without a token, a value of the wrong type is still the wrong-type 400: inputs come before the token (Order of checks 5–6)',
    auth: () => undefined,
    body: (op, b) => withField(b, wrongTyped(op).field, wrongTyped(op).value),
    expected: (op) => wrongTyped(op).expected,
  },
  {
    rule: 'A read-only token still gets the 400 of an unknown field: inputs come before the read-only guard (RULES.md#read-only-tokens)',
    auth: () => ({ persona: 'read_only' }),
    body: (_op, b) => withField(b, 'name', 'x'),
    expected: (op) => either(answers(op).unknownField('name'), answers(op).decodingCrash),
  },
  {
    rule: 'A read-only token still gets the 400 of a null required field (RULES.md#read-only-tokens)',
    auth: () => ({ persona: 'read_only' }),
    body: (op, b) => withField(b, firstNonNullable(op), null),
    expected: (op) => one(answers(op).nullField(firstNonNullable(op))),
  },
  {
    rule: 'Without a token, an empty body is 401, not the missing-fields 400: the token comes first (Order of checks 6–8)',
    auth: () => undefined,
    body: () => ({}),
    expected: (op) => one(answers(op).unauthorized),
  },
  {
    rule: 'A suspended person’s token with an empty body is 401, not the missing-fields 400 (Order of checks 6–8)',
    auth: () => ({ persona: 'suspended' }),
    body: () => ({}),
    expected: (op) => one(answers(op).unauthorized),
  },
];

for (const op of operationModels().filter((o) => o.secured)) {
  describe(op.operationId, () => {
    describe('order', () => {
      for (const row of rows) {
        it(row.rule, async (ctx) => {
          const c = contract(ctx);
          await c.check({ op, body: row.body(op, anyBody(c, op)), auth: row.auth() }, row.expected(op));
        });
      }
    });
  });
}
