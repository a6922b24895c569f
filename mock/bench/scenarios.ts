// The bench's requests and what our mock must answer to them, built from the fixtures of GET /__mock/fixtures: one
// definition for the load run (run.ts), the in-process stage table (stages.ts), the in-process start-up
// (startup.ts) and the profiler (profile.ts), so every figure is about the same requests.
import { texts } from '../../spec/lib/messages.ts';
import { dereference, isObject as isJsonObject, loadDocument } from '../../spec/lib/openapi.ts';
import { operationModels, type OperationId, type OperationModel } from '../../spec/lib/operations.ts';
import type { BodyCheck, RequestSpec } from './job.ts';

export const API = '/api/external/v1';

/** Every API operation of the spec, as scenarios of one 200 each (the stage table's and the targets' columns). */
export const OPERATIONS: ReadonlyArray<OperationId> = operationModels().map((o) => o.operationId);
export type OperationName = OperationId;

export type ScenarioName = OperationName | 'unauthorized' | 'sessions';
/** The load run's scenarios: one 200 per operation, the first operation without a token, and with sessions. */
export const SCENARIOS: ReadonlyArray<ScenarioName> = [...OPERATIONS, 'unauthorized', 'sessions'];
export const SCENARIO_LABELS: Readonly<Record<ScenarioName, string>> = {
  ...(Object.fromEntries(OPERATIONS.map((o) => [o, `${o} 200`])) as Record<OperationName, string>),
  unauthorized: 'no token 401',
  sessions: `${OPERATIONS[0] ?? ''}, X-Mock-Session`,
};

export type Scenario = {
  name: ScenarioName;
  operationId: OperationName;
  path: string;
  auth: boolean;
  session: boolean;
  expectStatus: number;
  requests: RequestSpec[];
};

export type Fixtures = { tokens: Record<string, string>; projects: Record<string, string>; goals: Record<string, string> };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringRecord(value: unknown, what: string): Record<string, string> {
  if (!isObject(value)) throw new Error(`fixtures: ${what} is not an object`);
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v;
  return out;
}

/** The parts of GET /__mock/fixtures the bench uses, from its parsed JSON. */
export function parseFixtures(raw: unknown): Fixtures {
  if (!isObject(raw)) throw new Error('GET /__mock/fixtures is not a JSON object');
  return { tokens: stringRecord(raw['tokens'], 'tokens'), projects: stringRecord(raw['projects'], 'projects'), goals: stringRecord(raw['goals'], 'goals') };
}

function need(record: Record<string, string>, key: string, what: string): string {
  const value = record[key];
  if (value === undefined) throw new Error(`GET /__mock/fixtures has no ${what}.${key}`);
  return value;
}

function modelOf(operationId: OperationName): OperationModel {
  const model = operationModels().find((o) => o.operationId === operationId);
  if (!model) throw new Error(`${operationId} is not an operation of the spec`);
  return model;
}

/**
 * An operation's request: its first named request example (on the seed's records, like every example), as the
 * `full_access` persona. Repeating it answers 200 again: no operation of the spec has a state precondition.
 */
export function operationRequest(fixtures: Fixtures, operationId: OperationName, session?: string): RequestSpec {
  const model = modelOf(operationId);
  const example = model.examples[0];
  if (!example) throw new Error(`${operationId} has no named request example`);
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${need(fixtures.tokens, 'full_access', 'tokens')}` };
  if (session !== undefined) headers['x-mock-session'] = session;
  if (model.method !== 'POST') throw new Error(`${operationId}: the bench sends POST requests, the spec says ${model.method}`);
  return { method: model.method, path: model.path, headers, body: JSON.stringify(example.value) };
}

/** The record a 200 example answers with: its one top-level key (`project`, `goal`) and the record. */
function answeredRecord(operationId: OperationName): { key: string; record: Record<string, unknown> } {
  const model = modelOf(operationId);
  const name = model.examples[0]?.name ?? '';
  const document = loadDocument();
  const response = dereference(document, `${model.pointer}/responses/200`);
  const example = dereference(document, `${response.pointer}/content/application~1json/examples/${name}`).value;
  const value = isJsonObject(example) ? example['value'] : undefined;
  const [key, record] = isJsonObject(value) ? (Object.entries(value)[0] ?? []) : [];
  if (key === undefined || !isJsonObject(record)) throw new Error(`${operationId}: the 200 example ${name} holds no record`);
  return { key, record };
}

/** A record's fields a 200 must repeat wherever and whenever it runs: its id and its flags and states, not its dates. */
const TIMESTAMP = /^\d{4}-\d\d-\d\dT/;
const CLOCK_DEPENDENT = new Set(['is_outdated']);

/** The load run's scenarios; `sessions` X-Mock-Session names (`bench-0` …) for the session scenario. */
export function scenarios(fixtures: Fixtures, sessions: number): Scenario[] {
  const first = OPERATIONS[0];
  if (first === undefined) throw new Error('the spec has no operation');
  const own: Scenario[] = OPERATIONS.map((operationId) => {
    const request = operationRequest(fixtures, operationId);
    return { name: operationId, operationId, path: request.path, auth: true, session: false, expectStatus: 200, requests: [request] };
  });
  const request = operationRequest(fixtures, first);
  const anonymous: RequestSpec = { ...request, headers: { 'content-type': 'application/json' } };
  const sessionRequests = Array.from({ length: sessions }, (_, i) => operationRequest(fixtures, first, `bench-${i}`));
  return [
    ...own,
    { name: 'unauthorized', operationId: first, path: request.path, auth: false, session: false, expectStatus: 401, requests: [anonymous] },
    { name: 'sessions', operationId: first, path: request.path, auth: true, session: true, expectStatus: 200, requests: sessionRequests },
  ];
}

/**
 * What our mock's answer to a scenario must be: the plain-text 401, or JSON with the record of the operation's 200
 * example: its id, and each flag and state the example shows (`state`, `is_closed`, …), which the write leaves; ids of
 * new rows and dates vary with the clock, so the rest is not compared.
 */
export function mockCheck(scenario: Pick<Scenario, 'operationId' | 'expectStatus'>, _fixtures: Fixtures): BodyCheck {
  if (scenario.expectStatus === 401) return { kind: 'exact', body: texts.unauthorized };
  const { key, record } = answeredRecord(scenario.operationId);
  const fields = Object.entries(record).flatMap(([name, value]) =>
    (typeof value === 'boolean' || typeof value === 'string') && !CLOCK_DEPENDENT.has(name) && !TIMESTAMP.test(String(value))
      ? [{ path: [key, name], equals: value }]
      : [],
  );
  return { kind: 'json-fields', fields };
}

/**
 * The writes of the memory phase: for each of `sessions` sessions (`mem-0` …), each operation's request in turn, in one
 * list a load generator cycles through. With C connections each cycling it k times, every session gets n·C·k writes.
 */
export function sessionWrites(fixtures: Fixtures, sessions: number): RequestSpec[] {
  return Array.from({ length: sessions }, (_, i) => OPERATIONS.map((operationId) => operationRequest(fixtures, operationId, `mem-${i}`))).flat();
}
