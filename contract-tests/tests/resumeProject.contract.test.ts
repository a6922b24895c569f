// resumeProject: the state rules a client can observe in the response (RULES.md#decision-3;
// RULES.md#state-project). On this package's mock each test starts from the seed; elsewhere the rules hold
// whatever the records' state, because resume has no precondition.
import { beforeEach, describe, it } from 'vitest';
import { one, success } from '../model/expected.ts';
import { contract, resetTarget } from '../harness/harness.ts';
import { operationModel } from '../model/profiles.ts';
import { build } from '../harness/requests.ts';
import { resumeRules } from '../model/state-rules.ts';

const op = operationModel('resumeProject');

describe('resumeProject', () => {
  describe('state', () => {
    beforeEach(() => resetTarget());

    it('Resuming a paused project makes it active, with success_status "nil" and closed_at null (RULES.md#decision-3)', async (ctx) => {
      const c = contract(ctx);
      const id = c.record('projects', 'paused');
      const body = build('resumeProject', { project_id: id }, 'paused_project');
      await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) => resumeRules(ex, id, 'paused'));
    });

    it('Resuming an active project succeeds and leaves it active: resume has no state precondition (RULES.md#decision-3)', async (ctx) => {
      const c = contract(ctx);
      const id = c.record('projects', 'active');
      const body = build('resumeProject', { project_id: id }, 'paused_project');
      await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) => resumeRules(ex, id, 'active'));
    });

    it('Resuming a closed project succeeds but leaves it closed, with its closed_at and outcome (RULES.md#decision-3)', async (ctx) => {
      const c = contract(ctx);
      const id = c.record('projects', 'closed');
      const body = build('resumeProject', { project_id: id }, 'closed_project');
      await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) => resumeRules(ex, id, 'closed'));
    });

    it('Resuming the same project twice is 200 both times: resume is not refused when nothing is paused (RULES.md#state-resume)', async (ctx) => {
      const c = contract(ctx);
      const id = c.record('projects', 'paused');
      const body = build('resumeProject', { project_id: id, send_notifications_to_everyone: true }, 'paused_project');
      await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) => resumeRules(ex, id, 'paused'));
      await c.check({ op, body, auth: { persona: 'full_access' } }, one(success), (ex) => resumeRules(ex, id, 'active'));
    });
  });
});
