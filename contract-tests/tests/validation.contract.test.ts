// Input validation, for every operation, derived from its request schema: required fields, null, types, unknown
// fields (RULES.md#decoding and the error table; RULES.md#decision-2).
import { describe, it } from 'vitest';
import { anyBody, targetId, tokenIfAny } from '../harness/cases.ts';
import { answers, one, success, type Expectation } from '../model/expected.ts';
import { contract } from '../harness/harness.ts';
import { unknownFieldAnswer, wrongInputs } from '../model/inputs.ts';
import { operationModels, PROFILES } from '../model/profiles.ts';
import { baseBody, withField, withoutField } from '../harness/requests.ts';
import { STATE_RULES } from '../model/state-rules.ts';

for (const op of operationModels()) {
  const a = answers(op);
  const story = PROFILES[op.operationId].target;
  describe(op.operationId, () => {
    describe('validation', () => {
      it(`An empty body with a valid token is ${a.missingFields(op.required).label}, in declaration order (RULES.md#error-23)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, body: {}, auth: { persona: 'full_access' } }, one(a.missingFields(op.required)));
      });

      for (const field of op.required) {
        it(`Leaving out "${field}" is ${a.missingFields([field]).label}, after the token is accepted (RULES.md#error-23)`, async (ctx) => {
          const c = contract(ctx);
          await c.check({ op, body: withoutField(anyBody(c, op), field), auth: { persona: 'full_access' } }, one(a.missingFields([field])));
        });
      }

      if (op.required.length > 2) {
        const missing = op.required.slice(-2);
        it(`Only the missing fields are listed, in declaration order: ${a.missingFields(missing).label} (RULES.md#error-23)`, async (ctx) => {
          const c = contract(ctx);
          const body = missing.reduce<Record<string, unknown>>((b, f) => withoutField(b, f), anyBody(c, op));
          await c.check({ op, body, auth: { persona: 'full_access' } }, one(a.missingFields(missing)));
        });
      }

      for (const field of op.fields.filter((f) => !f.nullable)) {
        it(`null in "${field.name}" is ${a.nullField(field.name).label} (RULES.md#error-13)`, async (ctx) => {
          const c = contract(ctx);
          await c.check({ op, body: withField(anyBody(c, op), field.name, null), auth: tokenIfAny(c) }, one(a.nullField(field.name)));
        });
      }

      for (const field of op.fields.filter((f) => f.nullable && !f.required)) {
        it(`null in the optional field "${field.name}" is accepted: 200 (RULES.md#field-declarations)`, async (ctx) => {
          const c = contract(ctx);
          const body = withField(baseBody(op, targetId(c, op)), field.name, null);
          await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) => STATE_RULES[op.operationId](ex, body, story, c.target.person));
        });
      }

      it(`A body with only the required fields (${op.required.join(', ')}) is accepted: 200 (RULES.md#field-declarations)`, async (ctx) => {
        const c = contract(ctx);
        const full = baseBody(op, targetId(c, op));
        const body = Object.fromEntries(op.required.map((f) => [f, full[f]]));
        await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) => STATE_RULES[op.operationId](ex, body, story, c.target.person));
      });

      for (const field of op.fields) {
        for (const wrong of wrongInputs(field, a)) {
          it(`"${field.name}" as ${wrong.label} is ${wrong.expectation.alternatives.map((x) => x.label).join(' or ')} (${wrong.source})`, async (ctx) => {
            const c = contract(ctx);
            await c.check({ op, body: withField(anyBody(c, op), field.name, wrong.value), auth: tokenIfAny(c) }, wrong.expectation);
          });
        }
      }

      for (const name of ['name', 'contract_probe_field']) {
        const expectation: Expectation = unknownFieldAnswer(name, a);
        it(`An unknown field "${name}" is ${a.unknownField(name).label} or production's alternative 500 (RULES.md#decision-2; RULES.md#error-11)`, async (ctx) => {
          const c = contract(ctx);
          await c.check({ op, body: withField(anyBody(c, op), name, 1), auth: tokenIfAny(c) }, expectation);
        });
      }

      it('A JSON array instead of an object is the unknown field "_json": 400 or 500 (RULES.md#error-table)', async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, raw: JSON.stringify([anyBody(c, op)]), auth: tokenIfAny(c) }, unknownFieldAnswer('_json', a));
      });
    });
  });
}
