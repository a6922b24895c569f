// Permissions by persona (RULES.md#decision-3 and #decision-5; RULES.md#error-table): who
// may change a record, and what everyone else gets. Each needs its persona's token variable.
import { describe, it } from 'vitest';
import { targetId } from '../lib/cases.ts';
import { answers, one, type Expected } from '../lib/expected.ts';
import type { Persona } from '../lib/env.ts';
import { contract } from '../lib/harness.ts';
import { operationModels, type OperationModel } from '../lib/profiles.ts';
import { baseBody } from '../lib/requests.ts';

const rows: Array<{ persona: Persona; rule: string; expected: (op: OperationModel) => Expected }> = [
  {
    persona: 'comment_only',
    rule: 'A person who can see the record but not edit it gets 403 JSON "You don\'t have permission to perform this action" (RULES.md#decision-3)',
    expected: (op) => answers(op).forbidden,
  },
  {
    persona: 'no_access',
    rule: 'A person who cannot see the record gets 404, never 403: not found comes before forbidden (RULES.md#decision-3)',
    expected: (op) => answers(op).notFound,
  },
  {
    persona: 'suspended',
    rule: 'A suspended person\'s token is refused with 401 "Unauthorized" in plain text (RULES.md#checking-the-token)',
    expected: (op) => answers(op).unauthorized,
  },
];

for (const op of operationModels()) {
  describe(op.operationId, () => {
    describe('permissions', () => {
      for (const row of rows) {
        it(row.rule, async (ctx) => {
          const c = contract(ctx);
          await c.check({ op, body: baseBody(op, targetId(c, op)), auth: { persona: row.persona } }, one(row.expected(op)));
        });
      }
    });
  });
}
