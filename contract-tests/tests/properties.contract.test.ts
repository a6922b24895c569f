// Property-based checks for every operation, with data generated from the spec (arbitraries.ts): bodies with one
// defect get production's exact answer; valid bodies get 200, a conforming body and the state rules.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { anyBody, targetId } from '../harness/cases.ts';
import { defects, validBodies } from '../harness/arbitraries.ts';
import { answers, one, success } from '../model/expected.ts';
import { contract, target } from '../harness/harness.ts';
import { operationModels, PROFILES } from '../model/profiles.ts';
import { holds } from '../harness/properties.ts';
import { withField } from '../harness/requests.ts';
import { STATE_RULES } from '../model/state-rules.ts';

const { numRuns, timeoutMs } = target().config;
/** Every run may wait for the timeout once; the client stops waiting after two timeouts in a row. */
const timeout = Math.max(60_000, numRuns * 200 + timeoutMs * 4);

for (const op of operationModels()) {
  const a = answers(op);
  const story = PROFILES[op.operationId].target;
  describe(op.operationId, () => {
    describe('properties', () => {
      it("A body with one wrong or unknown field gets production's exact answer for that defect, with or without a token (RULES.md#error-table; generated)", {
        timeout,
      }, async (ctx) => {
        const c = contract(ctx);
        const base = anyBody(c, op);
        const hasToken = c.target.tokens.full_access !== undefined;
        await holds(ctx, c, fc.tuple(defects(op, a), fc.boolean()), async ([defect, useToken]) => {
          const withToken = hasToken && useToken;
          await c.check(
            { op, body: withField(base, defect.field, defect.value), auth: withToken ? { persona: 'full_access' } : undefined },
            defect.expect(withToken),
          );
        });
      });

      it('A valid body (optional fields absent, null or set; the id in any accepted form) is 200 with a conforming body, and the state rules hold (RULES.md#decision-1 and #decision-3; generated)', {
        timeout,
      }, async (ctx) => {
        const c = contract(ctx);
        const id = targetId(c, op);
        c.token('full_access');
        await holds(ctx, c, validBodies(op, id), async (body) => {
          await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) =>
            STATE_RULES[op.operationId](ex, withField(body, op.targetField, id), story, c.target.person),
          );
        });
      });
    });
  });
}
