// Valid input is never a server error: every named request example of the spec, sent to the operation's record, is
// answered 200 with a body that conforms to the response schema (RULES.md#decision-1 and #decision-4).
import { describe, it } from 'vitest';
import { targetId } from '../harness/cases.ts';
import { one, success } from '../model/expected.ts';
import { contract } from '../harness/harness.ts';
import { operationModels, PROFILES } from '../model/profiles.ts';
import { baseBody } from '../harness/requests.ts';
import { STATE_RULES } from '../model/state-rules.ts';
import { violation } from '../../spec/lib/violations.ts';

for (const op of operationModels()) {
  const story = PROFILES[op.operationId].target;
  describe(op.operationId, () => {
    describe('responses', () => {
      for (const example of op.examples) {
        it(`The request example "${example.name}" is answered 200 with a body that conforms to the schema, not a server error (RULES.md#decision-1)`, async (ctx) => {
          const c = contract(ctx);
          const body = baseBody(op, targetId(c, op), example.name);
          await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) => [
            ...(ex.response.status >= 500
              ? [violation(['response', 'status'], 'server-error', `valid input must never be a server error; got ${ex.response.status}`)]
              : []),
            ...STATE_RULES[op.operationId](ex, body, story, c.target.person),
          ]);
        });
      }
    });
  });
}
