// What each server must answer, scenario by scenario: our mock its own rules (scenarios.ts), the bare baselines and
// the floor our mock's real answer byte for byte (fetched once at the start), Prism the spec's first example.
import { dereference, isObject, listOperations, loadDocument } from '../../spec/lib/openapi.ts';
import { bodyMatcher, type BodyCheck } from './job.ts';
import { mockCheck, type Fixtures, type Scenario } from './scenarios.ts';
import { send, type Answer, type Running, type ServerName } from './start-server.ts';

/** The spec's first example for an operation's status (Prism serves the first one), as Prism would send it. */
function specExample(operationId: string, status: number): BodyCheck {
  const document = loadDocument();
  const operation = listOperations(document).find((o) => o.operationId === operationId);
  if (!operation) throw new Error(`${operationId} is not in the spec`);
  const { value: response } = dereference(document, `${operation.pointer}/responses/${status}`);
  const content = isObject(response) ? response['content'] : undefined;
  const media = isObject(content) ? Object.values(content)[0] : undefined;
  if (!isObject(media)) throw new Error(`${operationId} documents no body for ${status}`);
  let value: unknown;
  if ('example' in media) value = media['example'];
  else if (isObject(media['examples'])) {
    const first = Object.values(media['examples'])[0];
    const example = isObject(first) && typeof first['$ref'] === 'string' ? dereference(document, first['$ref']).value : first;
    if (isObject(example)) value = example['value'];
  }
  if (value === undefined) throw new Error(`${operationId} ${status} has no example`);
  return typeof value === 'string' ? { kind: 'exact', body: value } : { kind: 'json-equal', value };
}

export function checkFor(server: ServerName, scenario: Scenario, fixtures: Fixtures, answers: Answer[]): BodyCheck {
  if (server === 'prism-default') return specExample(scenario.operationId, scenario.expectStatus);
  if (server === 'express' || server === 'http' || server === 'express-floor') {
    const answer = answers.find((a) => a.path === scenario.path && a.auth === scenario.auth && a.session === scenario.session);
    if (!answer) throw new Error(`no baseline answer for ${scenario.name}`);
    return { kind: 'exact', body: answer.body };
  }
  return mockCheck(scenario, fixtures);
}

/** Our mock's real answer to a scenario's first request, checked, for the baselines to send byte for byte. */
export async function referenceAnswer(mock: Running, scenario: Scenario, check: BodyCheck): Promise<Answer> {
  const request = scenario.requests[0];
  if (!request) throw new Error(`${scenario.name} has no request`);
  const reply = await send(mock.url, request);
  if (reply.status !== scenario.expectStatus || !bodyMatcher(check)(reply.body)) {
    throw new Error(`our mock answered ${scenario.name} with ${reply.status} ${reply.body.slice(0, 200)}`);
  }
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'cache-control', 'x-request-id']) {
    const value = reply.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { path: scenario.path, auth: scenario.auth, session: scenario.session, status: reply.status, headers, body: reply.body };
}
