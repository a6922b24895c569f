// The control endpoint /__mock/scenarios (mock/openapi.yaml): POST queues a scenario (201), GET lists the pending ones
// (200), DELETE drops them (204); per session, like every control. A bad scenario is the control error naming the
// field, and nothing is queued.
import { parseScenario, TooManyScenarios, type Scenarios } from '../answers/scenarios.ts';

export const SCENARIOS_ROUTE = /^\/__mock\/scenarios\/?$/i;

/** What the controls frame: a status and a JSON value (none for 204), or a control error's message. */
type ScenarioAnswer = { status: 200 | 201 | 204; value?: unknown } | { status: 400; message: string };

/** The answer to a request for /__mock/scenarios in `session`, or undefined for a method the endpoint does not take. */
export async function answerScenarios(method: string, body: Uint8Array, session: string, scenarios: Scenarios): Promise<ScenarioAnswer | undefined> {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return { status: 200, value: { scenarios: await scenarios.list(session) } };
    case 'DELETE':
      await scenarios.clear(session);
      return { status: 204 };
    case 'POST': {
      const parsed = parseScenario(body);
      if (!parsed.ok) return { status: 400, message: parsed.message };
      try {
        return { status: 201, value: await scenarios.add(session, parsed.value) };
      } catch (error) {
        if (error instanceof TooManyScenarios) return { status: 400, message: error.message };
        throw error;
      }
    }
    default:
      return undefined;
  }
}
