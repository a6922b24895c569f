// The probes an orchestrator or a load balancer asks a running mock (the CLI's server; mock/docs/organisation.md, "Running it for an organisation"):
//   GET /__mock/health  liveness: 200 {"status":"ok"} while the process serves
//   GET /__mock/ready   readiness: 200 {"status":"ready"} when the store answers safely and the mock takes requests,
//                       else 503 {"status":"unready","reason":"<one sentence>"}: the store's own reason (Redis
//                       unreachable, evicting), or draining; 200 again as soon as that is over, without a restart
// Both answer whatever the Host (they reveal nothing), outside the sessions: never journaled, never counted.
// Framework-free: a path and a state in, an answer out (service.ts writes it).
import type { Sessions } from '../storage/sessions.ts';

export type ProbeAnswer = { status: 200 | 503; body: string };

/** What readiness looks at: whether the server is draining, and the store. */
export type ReadinessState = { draining(): boolean; sessions: Sessions };

/** The reason a draining mock gives. */
export const DRAINING_REASON = 'The mock is shutting down: it answers the requests in flight and takes no new ones.';

const answerOf = (status: 200 | 503, body: Record<string, string>): ProbeAnswer => ({ status, body: JSON.stringify(body) });

/** GET /__mock/health: the process serves. */
export function healthAnswer(): ProbeAnswer {
  return answerOf(200, { status: 'ok' });
}

/** GET /__mock/ready: ready, or why not (draining first: a draining mock is going away whatever its store says). */
export async function readyAnswer(state: ReadinessState): Promise<ProbeAnswer> {
  if (state.draining()) return answerOf(503, { status: 'unready', reason: DRAINING_REASON });
  let reason: string | undefined;
  try {
    reason = await state.sessions.readiness?.();
  } catch (error) {
    reason = `The store could not say whether it can serve: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]?.slice(0, 200) ?? ''}.`;
  }
  return reason === undefined ? answerOf(200, { status: 'ready' }) : answerOf(503, { status: 'unready', reason });
}
