// closeGoal: the state rules a client can observe in the response (RULES.md#decision-3 and #decision-4;
// RULES.md#close-response). On this package's mock each test starts from the seed.
import { beforeEach, describe, it } from 'vitest';
import { one, success } from '../model/expected.ts';
import { contract, resetTarget } from '../harness/harness.ts';
import { operationModel } from '../model/profiles.ts';
import { build } from '../harness/requests.ts';
import { closeRules } from '../model/state-rules.ts';
import { violation } from '../../spec/lib/violations.ts';

const op = operationModel('closeGoal');
const full = { persona: 'full_access' } as const;

describe('closeGoal', () => {
  describe('state', () => {
    beforeEach(() => resetTarget());

    it('Closing an open goal as achieved closes it: is_closed true, closed_at now, status "achieved", success true (RULES.md#decision-3)', async (ctx) => {
      const c = contract(ctx);
      const body = build('closeGoal', { goal_id: c.record('goals', 'open'), success: 'yes', success_status: 'achieved' }, 'achieved_goal');
      await c.check({ op, body, auth: full }, one(success), (ex) => closeRules(ex, body, c.target.person));
    });

    it('Closing a goal as missed with success "no" gives status "missed" and success false (RULES.md#decision-3 and #decision-4)', async (ctx) => {
      const c = contract(ctx);
      const body = build('closeGoal', { goal_id: c.record('goals', 'open') }, 'missed_goal');
      await c.check({ op, body, auth: full }, one(success), (ex) => closeRules(ex, body, c.target.person));
    });

    it('success is true only for exactly "yes": "Yes" with achieved gives success false and status "achieved" (RULES.md#close-response)', async (ctx) => {
      const c = contract(ctx);
      const body = build('closeGoal', { goal_id: c.record('goals', 'open'), success: 'Yes', success_status: 'achieved' }, 'achieved_goal');
      await c.check({ op, body, auth: full }, one(success), (ex) => closeRules(ex, body, c.target.person));
    });

    it('status follows success_status, not success: "yes" with missed gives status "missed" and success true (RULES.md#state-goal)', async (ctx) => {
      const c = contract(ctx);
      const body = build('closeGoal', { goal_id: c.record('goals', 'open'), success: 'yes', success_status: 'missed' }, 'achieved_goal');
      await c.check({ op, body, auth: full }, one(success), (ex) => closeRules(ex, body, c.target.person));
    });

    it('Closing a closed goal succeeds and overwrites the closing fields: status, success and closed_at (RULES.md#decision-3)', async (ctx) => {
      const c = contract(ctx);
      const id = c.record('goals', 'closed');
      const missed = build('closeGoal', { goal_id: id, success: 'no', success_status: 'missed' }, 'achieved_goal');
      const first = await c.check({ op, body: missed, auth: full }, one(success), (ex) => closeRules(ex, missed, c.target.person));
      const achieved = build('closeGoal', { goal_id: id, success: 'yes', success_status: 'achieved' }, 'achieved_goal');
      await c.check({ op, body: achieved, auth: full }, one(success), (ex) => {
        const before = closedAtOf(first.json);
        const after = closedAtOf(ex.json);
        const out = closeRules(ex, achieved, c.target.person);
        if (before !== undefined && after !== undefined && Date.parse(after) < Date.parse(before)) {
          out.push(
            violation(
              ['response', 'body', 'goal', 'closed_at'],
              'state.close-again',
              `closing again overwrites closed_at with the new time (RULES.md#state-close); it went back from ${before} to ${after}`,
            ),
          );
        }
        return out;
      });
    });
  });
});

function closedAtOf(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || !('goal' in json)) return undefined;
  const goal = json.goal;
  if (typeof goal !== 'object' || goal === null || !('closed_at' in goal)) return undefined;
  return typeof goal.closed_at === 'string' ? goal.closed_at : undefined;
}
