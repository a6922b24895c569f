// Ids: which strings name a record, which are refused before the token is read, and which only after
// (RULES.md#ids, #order-of-checks).
import { describe, it } from 'vitest';
import { anyBody, targetId, tokenIfAny } from '../harness/cases.ts';
import { answers, one, success } from '../model/expected.ts';
import { contract } from '../harness/harness.ts';
import { alternativeForms, UNKNOWN_ID } from '../model/id-model.ts';
import { operationModels, PROFILES } from '../model/profiles.ts';
import { baseBody, withField } from '../harness/requests.ts';
import { STATE_RULES } from '../model/state-rules.ts';

for (const op of operationModels()) {
  const a = answers(op);
  const story = PROFILES[op.operationId].target;
  describe(op.operationId, () => {
    describe('ids', () => {
      it(`A malformed ${op.targetField} is 404 even without a token: ids are decoded before the token is read (RULES.md#order-of-checks)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, body: withField(anyBody(c, op), op.targetField, 'no such id!') }, one(a.undecodable));
      });

      it(`A ${op.targetField} longer than 22 base-62 characters is 404 (RULES.md#ids)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, body: withField(anyBody(c, op), op.targetField, `x-${'A'.repeat(23)}`), auth: tokenIfAny(c) }, one(a.undecodable));
      });

      it(`A 22-character ${op.targetField} above 2^128 crashes the decoder: 500 (RULES.md#error-18)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, body: withField(anyBody(c, op), op.targetField, '9999999999999999999999'), auth: tokenIfAny(c) }, one(a.decodingCrash));
      });

      it(`A well-formed ${op.targetField} of no record is 401 without a token: the lookup comes after authentication (RULES.md#ids)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, body: withField(anyBody(c, op), op.targetField, UNKNOWN_ID) }, one(a.unauthorized));
      });

      it(`A well-formed ${op.targetField} of no record is 404 JSON with a valid token (RULES.md#error-24)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, body: withField(anyBody(c, op), op.targetField, UNKNOWN_ID), auth: { persona: 'full_access' } }, one(a.notFound));
      });

      it(`A read-only token still gets the 404 of a malformed ${op.targetField}: input decoding comes first (RULES.md#read-only-tokens)`, async (ctx) => {
        const c = contract(ctx);
        await c.check({ op, body: withField(anyBody(c, op), op.targetField, 'no such id!'), auth: { persona: 'read_only' } }, one(a.undecodable));
      });

      for (const index of [0, 1, 2]) {
        it(`The record is found by every id form the service accepts (bare short id, UUID in any case, any slug), form ${index + 1} (RULES.md#ids)`, async (ctx) => {
          const c = contract(ctx);
          const id = targetId(c, op);
          const form = alternativeForms(id)[index];
          if (!form) return ctx.skip(`${id} is not a decodable id`);
          const body = baseBody(op, form.value);
          await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) =>
            STATE_RULES[op.operationId](ex, withField(body, op.targetField, id), story, c.target.person),
          );
        });
      }
    });
  });
}
