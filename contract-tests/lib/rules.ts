// The state rules a client can observe in a 200 response (REFERENCE.md decision 3; domain-and-shapes.md §3), as
// functions from the exchange to violations. Shared by the operation files and the property tests.
import { isObject } from '../../spec/lib/openapi.ts';
import type { Exchange } from './harness.ts';
import type { OperationId } from './operations.ts';
import { sameRecord } from './ids.ts';
import { violation, type Violation } from './violations.ts';

type Json = Record<string, unknown>;

function entity(exchange: Exchange, key: string): Json | undefined {
  const json = exchange.json;
  if (!isObject(json)) return undefined;
  const value = json[key];
  return isObject(value) ? value : undefined;
}

/** The server's clock: the response's Date header, else this machine's. */
function serverNow(exchange: Exchange): { now: number; from: string } {
  const date = exchange.response.headers['date'];
  const parsed = date ? Date.parse(date) : Number.NaN;
  return Number.isNaN(parsed) ? { now: Date.now(), from: 'this machine’s clock (no Date header)' } : { now: parsed, from: 'the response’s Date header' };
}

const at = (...path: string[]): string[] => ['response', 'body', ...path];

export type ResumeStory = 'paused' | 'active' | 'closed' | undefined;

/** After resume: the same project, never paused, state/closed_at/success_status consistent, the check-in moved on. */
export function resumeRules(exchange: Exchange, sentId: string, story: ResumeStory): Violation[] {
  if (exchange.response.status !== 200) return [];
  const project = entity(exchange, 'project');
  if (!project) return [];
  const out: Violation[] = [];
  const { id, state, closed_at: closedAt, success_status: successStatus } = project;
  if (typeof id === 'string' && !sameRecord(id, sentId)) out.push(violation(at('project', 'id'), 'state.record', `the response is about project ${id}, not the one that was resumed (${sentId})`));
  const closed = closedAt !== null && closedAt !== undefined;
  if (story === 'closed') {
    if (state !== 'closed') out.push(violation(at('project', 'state'), 'state.resume-closed', `resuming a closed project must leave it closed (REFERENCE.md decision 3; domain-and-shapes.md §3.2); got state ${JSON.stringify(state)}`));
    if (!closed) out.push(violation(at('project', 'closed_at'), 'state.resume-closed', `resume must not clear closed_at of a closed project (domain-and-shapes.md §3.2); got ${JSON.stringify(closedAt)}`));
    if (successStatus === 'nil') out.push(violation(at('project', 'success_status'), 'state.resume-closed', 'resume must keep the outcome of a closed project (domain-and-shapes.md §3.2); got "nil"'));
  } else if (story !== undefined) {
    if (state !== 'active') out.push(violation(at('project', 'state'), 'state.resume', `resuming a ${story} project makes it active (REFERENCE.md decision 3); got state ${JSON.stringify(state)}`));
  }
  if (state === 'paused') out.push(violation(at('project', 'state'), 'state.resume', 'a resumed project is never paused (REFERENCE.md decision 3)'));
  if (state !== undefined && (state === 'closed') !== closed) out.push(violation(at('project', 'state'), 'state.consistency', `state is ${JSON.stringify(state)} but closed_at is ${JSON.stringify(closedAt)}: a project is closed exactly when closed_at is set (domain-and-shapes.md §3.1)`));
  if (successStatus !== undefined && !closed && successStatus !== 'nil') out.push(violation(at('project', 'success_status'), 'state.success-status', `a project that is not closed has success_status "nil" (the string; REFERENCE.md decision 1); got ${JSON.stringify(successStatus)}`));
  if (closed && successStatus === 'nil') out.push(violation(at('project', 'success_status'), 'state.success-status', 'a closed project has success_status "achieved" or "missed", not "nil" (domain-and-shapes.md §3.1)'));

  const next = project['next_check_in_scheduled_at'];
  if (typeof next === 'string') {
    const { now, from } = serverNow(exchange);
    const today = Math.floor(now / 86_400_000) * 86_400_000;
    const due = Date.parse(next);
    if (!Number.isNaN(due) && due < today) out.push(violation(at('project', 'next_check_in_scheduled_at'), 'state.check-in', `resume moves an overdue check-in to the coming Friday (domain-and-shapes.md §3.2), but it is ${next}, before today (${new Date(today).toISOString().slice(0, 10)}, by ${from})`));
    if (!Number.isNaN(due) && due % 86_400_000 !== 0) out.push(violation(at('project', 'next_check_in_scheduled_at'), 'state.check-in', `resume schedules the check-in at 00:00:00 UTC (domain-and-shapes.md §3.2); got ${next}`));
  }
  if (project['is_outdated'] === true) out.push(violation(at('project', 'is_outdated'), 'state.outdated', 'resume moves the check-in forward, so a resumed project is not outdated (domain-and-shapes.md §3.1–3.2); got true'));
  return out;
}

/** After close: the same goal, closed now, status = the success_status sent, success true only for "yes". */
export function closeRules(exchange: Exchange, sent: Json): Violation[] {
  if (exchange.response.status !== 200) return [];
  const goal = entity(exchange, 'goal');
  if (!goal) return [];
  const out: Violation[] = [];
  const sentId = sent['goal_id'];
  const { id, is_closed: isClosed, closed_at: closedAt, status, success } = goal;
  if (typeof id === 'string' && typeof sentId === 'string' && !sameRecord(id, sentId)) out.push(violation(at('goal', 'id'), 'state.record', `the response is about goal ${id}, not the one that was closed (${sentId})`));
  if (isClosed !== true) out.push(violation(at('goal', 'is_closed'), 'state.close', `a closed goal has is_closed true (REFERENCE.md decision 3); got ${JSON.stringify(isClosed)}`));
  if (typeof closedAt !== 'string') {
    out.push(violation(at('goal', 'closed_at'), 'state.close', `close sets closed_at to now (REFERENCE.md decision 3); got ${JSON.stringify(closedAt)}`));
  } else {
    const { now, from } = serverNow(exchange);
    const when = Date.parse(closedAt);
    const slack = 120_000;
    if (!Number.isNaN(when) && (when > now + slack || when < now - slack)) out.push(violation(at('goal', 'closed_at'), 'state.close', `close sets closed_at to now (REFERENCE.md decision 3; closing again overwrites it), but it is ${closedAt}, ${Math.round(Math.abs(now - when) / 1000)} s from now (${new Date(now).toISOString()}, by ${from})`));
  }
  if (status !== sent['success_status']) out.push(violation(at('goal', 'status'), 'state.close-status', `status follows the success_status sent (${JSON.stringify(sent['success_status'])}) (REFERENCE.md decision 3); got ${JSON.stringify(status)}`));
  const expectedSuccess = sent['success'] === 'yes';
  if (success !== expectedSuccess) out.push(violation(at('goal', 'success'), 'state.close-success', `success is true only when the success sent is exactly "yes" (sent ${JSON.stringify(sent['success'])}; REFERENCE.md decision 4); got ${JSON.stringify(success)}`));
  return out;
}

/** The state rules of each operation, keyed by operationId (complete by construction). */
export const STATE_RULES = {
  resumeProject: (exchange: Exchange, sent: Json, story: string | undefined) =>
    resumeRules(exchange, typeof sent['project_id'] === 'string' ? sent['project_id'] : '', story === 'paused' || story === 'active' || story === 'closed' ? story : undefined),
  closeGoal: (exchange: Exchange, sent: Json) => closeRules(exchange, sent),
} satisfies { [K in OperationId]: (exchange: Exchange, sent: Json, story: string | undefined) => Violation[] };
