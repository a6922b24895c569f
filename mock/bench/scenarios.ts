// The bench's requests and what our mock must answer to them, built from the fixtures of GET /__mock/fixtures: one
// definition for the load run (run.ts), the in-process stage table (stages.ts), the in-process start-up
// (startup.ts) and the profiler (profile.ts), so every figure is about the same requests.
import { texts } from '../../spec/lib/messages.ts';
import type { BodyCheck, RequestSpec } from './job.ts';

export const API = '/api/external/v1';
const RICH_TEXT = JSON.stringify({ type: 'doc', content: [] });

export const SCENARIOS = ['resumeProject', 'closeGoal', 'unauthorized', 'sessions'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];
export const SCENARIO_LABELS: Record<ScenarioName, string> = {
  resumeProject: 'resumeProject 200',
  closeGoal: 'closeGoal 200',
  unauthorized: 'no token 401',
  sessions: 'resume, X-Mock-Session',
};

/** The two API operations, as scenarios of one 200 each (the stage table's and the targets' columns). */
export const OPERATIONS = ['resumeProject', 'closeGoal'] as const;
export type OperationName = (typeof OPERATIONS)[number];

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

/** Resume the paused project (no state precondition, so repeating it is fine), as the `full_access` persona. */
export function resumeRequest(fixtures: Fixtures, session?: string): RequestSpec {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${need(fixtures.tokens, 'full_access', 'tokens')}` };
  if (session !== undefined) headers['x-mock-session'] = session;
  return {
    method: 'POST',
    path: `${API}/projects/resume`,
    headers,
    body: JSON.stringify({ project_id: need(fixtures.projects, 'paused', 'projects'), message: RICH_TEXT }),
  };
}

/** Close the open goal, achieved (closing a closed goal again is a 200 too), as the `full_access` persona. */
export function closeRequest(fixtures: Fixtures, session?: string): RequestSpec {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${need(fixtures.tokens, 'full_access', 'tokens')}` };
  if (session !== undefined) headers['x-mock-session'] = session;
  return {
    method: 'POST',
    path: `${API}/goals/close`,
    headers,
    body: JSON.stringify({ goal_id: need(fixtures.goals, 'open', 'goals'), success: 'yes', success_status: 'achieved', retrospective: RICH_TEXT }),
  };
}

/** The load run's scenarios; `sessions` X-Mock-Session names (`bench-0` …) for the session scenario. */
export function scenarios(fixtures: Fixtures, sessions: number): Scenario[] {
  const resume = resumeRequest(fixtures);
  const close = closeRequest(fixtures);
  const anonymous: RequestSpec = { ...resume, headers: { 'content-type': 'application/json' } };
  const sessionRequests = Array.from({ length: sessions }, (_, i) => resumeRequest(fixtures, `bench-${i}`));
  return [
    { name: 'resumeProject', operationId: 'resumeProject', path: resume.path, auth: true, session: false, expectStatus: 200, requests: [resume] },
    { name: 'closeGoal', operationId: 'closeGoal', path: close.path, auth: true, session: false, expectStatus: 200, requests: [close] },
    { name: 'unauthorized', operationId: 'resumeProject', path: resume.path, auth: false, session: false, expectStatus: 401, requests: [anonymous] },
    { name: 'sessions', operationId: 'resumeProject', path: resume.path, auth: true, session: true, expectStatus: 200, requests: sessionRequests },
  ];
}

/**
 * What our mock's answer to a scenario must be: the plain-text 401, or JSON with the record's id and the state the
 * write must leave (ids of new rows and dates vary, so the rest is not compared).
 */
export function mockCheck(scenario: Pick<Scenario, 'operationId' | 'expectStatus'>, fixtures: Fixtures): BodyCheck {
  if (scenario.expectStatus === 401) return { kind: 'exact', body: texts.unauthorized };
  if (scenario.operationId === 'closeGoal') {
    return {
      kind: 'json-fields',
      fields: [
        { path: ['goal', 'id'], equals: need(fixtures.goals, 'open', 'goals') },
        { path: ['goal', 'is_closed'], equals: true },
      ],
    };
  }
  return {
    kind: 'json-fields',
    fields: [
      { path: ['project', 'id'], equals: need(fixtures.projects, 'paused', 'projects') },
      { path: ['project', 'state'], equals: 'active' },
    ],
  };
}

/**
 * The writes of the memory phase: for each of `sessions` sessions (`mem-0` …), a resume then a close, in one list a
 * load generator cycles through. With C connections each cycling it k times, every session gets 2·C·k writes.
 */
export function sessionWrites(fixtures: Fixtures, sessions: number): RequestSpec[] {
  return Array.from({ length: sessions }, (_, i) => [resumeRequest(fixtures, `mem-${i}`), closeRequest(fixtures, `mem-${i}`)]).flat();
}
