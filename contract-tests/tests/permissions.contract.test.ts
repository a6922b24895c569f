// Permissions by persona (RULES.md#decision-3 and #decision-5; RULES.md#error-table): who
// may change a record, and what everyone else gets. Each needs its persona's token variable.
import { describe, it } from 'vitest';
import { texts } from '../../spec/lib/messages.ts';
import { targetId } from '../harness/cases.ts';
import { answers, one, type Expected } from '../model/expected.ts';
import { PERSONAS, type Persona } from '../io/env.ts';
import { contract } from '../harness/harness.ts';
import { rightsOf } from '../model/personas.ts';
import { operationModels, type OperationModel } from '../model/profiles.ts';
import { baseBody } from '../harness/requests.ts';

type Row = { persona: Persona; rule: string; expected: (op: OperationModel) => Expected };

/**
 * What a write to a fixture record gets for each persona, from the persona table (personas.ts): the full-access
 * persona's 200 is the state tests', the read-only token's 403 the auth tests'.
 */
function rowOf(persona: Persona): Row | undefined {
  const { token, records } = rightsOf(persona);
  if (token === 'refused')
    return {
      persona,
      rule: `A suspended person's token is refused with 401 ${JSON.stringify(texts.unauthorized)} in plain text (RULES.md#checking-the-token)`,
      expected: (op) => answers(op).unauthorized,
    };
  if (token === 'read-only' || records === 'edit') return undefined;
  if (records === 'view')
    return {
      persona,
      rule: 'A person who can see the record but not edit it gets 403 JSON, the permission error (RULES.md#error-25, RULES.md#decision-3)',
      expected: (op) => answers(op).forbidden,
    };
  return {
    persona,
    rule: 'A person who cannot see the record gets 404, never 403: not found comes before forbidden (RULES.md#decision-3)',
    expected: (op) => answers(op).notFound,
  };
}
const rows = PERSONAS.flatMap((persona) => rowOf(persona) ?? []);

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
