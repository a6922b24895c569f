// The auth matrix, for every secured operation of the spec: how the token is read and checked
// (RULES.md#reading-the-header, #read-only-tokens; RULES.md#decision-5).
import { describe, it } from 'vitest';
import { texts } from '../../spec/lib/messages.ts';
import { anyBody, unknownToken } from '../harness/cases.ts';
import { answers, one, type Expected } from '../model/expected.ts';
import { contract, type Auth, type Contract } from '../harness/harness.ts';
import { operationModels, type OperationModel } from '../model/profiles.ts';

type Row = {
  rule: string;
  auth: (c: Contract) => Auth;
  /** The body to send: a valid one by default; `{}` to prove a token was accepted without changing anything. */
  body?: 'valid' | 'empty';
  expected: (op: OperationModel) => Expected;
};

/** The real full-access token under a wrong scheme (a made-up one when none was given: the answer is 401 either way). */
const fullToken =
  (scheme: string) =>
  (c: Contract): Auth =>
    c.target.tokens.full_access ? { persona: 'full_access', scheme } : { header: `${scheme}opk_${'x'.repeat(43)}` };

const rows: Row[] = [
  {
    rule: `A request without an Authorization header is refused with 401 ${JSON.stringify(texts.unauthorized)} in plain text (RULES.md#error-21)`,
    auth: () => undefined,
    expected: (op) => answers(op).unauthorized,
  },
  {
    rule: 'A valid token under another scheme ("Token …") is refused with 401 (RULES.md#reading-the-header)',
    auth: fullToken('Token '),
    expected: (op) => answers(op).unauthorized,
  },
  {
    rule: 'The scheme is case-sensitive: "bearer …" is refused with 401 (RULES.md#decision-5)',
    auth: fullToken('bearer '),
    expected: (op) => answers(op).unauthorized,
  },
  {
    rule: 'A tab between "Bearer" and the token is refused with 401 (RULES.md#reading-the-header)',
    auth: fullToken('Bearer\t'),
    expected: (op) => answers(op).unauthorized,
  },
  {
    rule: 'HTTP Basic credentials are refused with 401 (RULES.md#reading-the-header)',
    auth: () => ({ header: `Basic ${Buffer.from('user:password').toString('base64')}` }),
    expected: (op) => answers(op).unauthorized,
  },
  {
    rule: '"Bearer" with no token is refused with 401 (RULES.md#reading-the-header)',
    auth: () => ({ header: 'Bearer' }),
    expected: (op) => answers(op).unauthorized,
  },
  {
    rule: 'An unknown token in production format (opk_ + 43 characters) is refused with 401 (RULES.md#checking-the-token)',
    auth: () => ({ header: `Bearer ${unknownToken()}` }),
    expected: (op) => answers(op).unauthorized,
  },
  {
    rule: `A read-only token is refused with 403 ${JSON.stringify(texts.readOnly)} in plain text (RULES.md#read-only-tokens)`,
    auth: () => ({ persona: 'read_only' }),
    expected: (op) => answers(op).readOnly,
  },
  {
    rule: 'A read-only token is refused before missing fields are reported: {} gets the read-only 403 (RULES.md#order-of-checks)',
    auth: () => ({ persona: 'read_only' }),
    body: 'empty',
    expected: (op) => answers(op).readOnly,
  },
  {
    rule: 'A valid token is accepted: {} gets the missing-fields 400 rather than 401 (RULES.md#error-23)',
    auth: () => ({ persona: 'full_access' }),
    body: 'empty',
    expected: (op) => answers(op).missingFields(op.required),
  },
  {
    rule: 'A bare token without a scheme is accepted like "Bearer <token>" (RULES.md#decision-5)',
    auth: (c) => ({ header: c.token('full_access') }),
    body: 'empty',
    expected: (op) => answers(op).missingFields(op.required),
  },
  {
    rule: 'Extra spaces after "Bearer" are tolerated (RULES.md#reading-the-header)',
    auth: () => ({ persona: 'full_access', scheme: 'Bearer   ' }),
    body: 'empty',
    expected: (op) => answers(op).missingFields(op.required),
  },
  {
    rule: 'Only the first Authorization header counts: a valid one followed by garbage is accepted (RULES.md#decision-5)',
    auth: () => ({ headers: [{ persona: 'full_access' }, { header: 'Bearer garbage' }] }),
    body: 'empty',
    expected: (op) => answers(op).missingFields(op.required),
  },
  {
    rule: 'Only the first Authorization header counts: garbage followed by a valid one is refused with 401 (RULES.md#decision-5)',
    auth: () => ({ headers: [{ header: 'Bearer garbage' }, { persona: 'full_access' }] }),
    body: 'empty',
    expected: (op) => answers(op).unauthorized,
  },
];

for (const op of operationModels().filter((o) => o.secured)) {
  describe(op.operationId, () => {
    describe('auth', () => {
      for (const row of rows) {
        it(row.rule, async (ctx) => {
          const c = contract(ctx);
          const body = row.body === 'empty' ? {} : anyBody(c, op);
          await c.check({ op, body, auth: row.auth(c) }, one(row.expected(op)));
        });
      }
    });
  });
}
