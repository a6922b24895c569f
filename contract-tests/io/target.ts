// The server under test as the suite sees it: the configuration, plus the tokens and record ids it was given or, when
// CONTRACT_BASE_URL is this package's mock, read from GET /__mock/fixtures. Resolved once per run (setup.ts) and
// handed to the test files; a plain, serializable value.
import { isObject } from '../../spec/lib/openapi.ts';
import { createClient, RequestTimeout, TransportError, type ApiRequest } from './client.ts';
import {
  PERSONAS,
  personVariable,
  RECORD_STORIES,
  recordVariable,
  tokenVariable,
  type ContractConfig,
  type Persona,
  type RecordGroup,
  type RecordIds,
  WRITERS,
} from './env.ts';
import { operationModels } from '../model/profiles.ts';

export type ResolvedTarget = {
  config: ContractConfig;
  /** Whether GET /__mock/fixtures answered like this package's mock. */
  mock: boolean;
  /** The X-Mock-Session the run uses on a mock that has sessions (its own copy of the state), if any. */
  mockSession: string | undefined;
  tokens: Partial<Record<Persona, string>>;
  records: RecordIds;
  /** The person id the full-access token acts as (CONTRACT_PERSON_ID, or the mock's people.full_access). */
  person: string | undefined;
  /**
   * Each writer's person id (env.ts WRITERS: CONTRACT_<NAME>_PERSON_ID, or the mock's people), for the caller's rules;
   * on the mock, every persona's.
   */
  people: Partial<Record<Persona, string>>;
  /** Where each fixture variable's value came from. */
  sources: Record<string, 'env' | 'mock'>;
  /** Set when the server did not answer the first request: every test then fails at once with this reason. */
  unreachable: string | undefined;
  /** What the preflight found wrong before any test ran (a refused token …): printed first, and in the summary. */
  notes: string[];
  /** The token variables the server answers 401 to (preflight.ts): the run's last line names them. */
  refused: string[];
};

type MockFixtures = {
  tokens: Record<string, string>;
  projects: Record<string, string>;
  goals: Record<string, string>;
  people: Record<string, string>;
  session: string | undefined;
};

function stringRecord(value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** The mock's fixtures document, validated; undefined for anything else (a real server's 404, HTML, …). */
function parseMockFixtures(text: string): MockFixtures | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const { tokens, projects, goals, people, session } = value;
  if (!stringRecord(tokens) || !stringRecord(projects) || !stringRecord(goals)) return undefined;
  if (!PERSONAS.some((p) => typeof tokens[p] === 'string')) return undefined;
  return { tokens, projects, goals, people: stringRecord(people) ? people : {}, session: typeof session === 'string' ? session : undefined };
}

export const MOCK_SESSION_HEADER = 'x-mock-session';

/** A request every live server answers at once without changing anything: `{}` without a token (401). */
export function probeRequest(): ApiRequest | undefined {
  const first = operationModels()[0];
  return first ? { method: first.method, path: first.path, headers: { 'content-type': 'application/json' }, body: '{}' } : undefined;
}

/** Reaches the server once (is it there at all?), then asks whether it is the mock. Never writes to a real server. */
export async function resolveTarget(config: ContractConfig): Promise<ResolvedTarget> {
  const client = createClient({ baseUrl: config.baseUrl, timeoutMs: config.timeoutMs });
  const sources: Record<string, 'env' | 'mock'> = {};
  const tokens: Partial<Record<Persona, string>> = { ...config.tokens };
  const records: RecordIds = { projects: { ...config.records.projects }, goals: { ...config.records.goals } };
  for (const persona of PERSONAS) if (tokens[persona] !== undefined) sources[tokenVariable(persona)] = 'env';
  for (const group of ['projects', 'goals'] as const) for (const story of Object.keys(records[group])) sources[recordVariable(group, story)] = 'env';
  for (const writer of WRITERS) if (config.people[writer] !== undefined) sources[personVariable(writer)] = 'env';
  const resolved: ResolvedTarget = {
    config,
    mock: false,
    mockSession: undefined,
    tokens,
    records,
    person: config.person,
    people: { ...config.people },
    sources,
    unreachable: undefined,
    notes: [],
    refused: [],
  };

  // Preflight: one request without a token (a correct server answers 401 and changes nothing).
  const probe = probeRequest();
  if (probe) {
    try {
      await client.send(probe);
    } catch (error) {
      if (error instanceof RequestTimeout || error instanceof TransportError) {
        resolved.unreachable = error.message;
        return resolved;
      }
      throw error;
    }
  }

  // Is it this package's mock? Ask with a session name of our own: a mock with sessions echoes it.
  const session = `contract-${process.pid}-${Date.now().toString(36)}`;
  let fixtures: MockFixtures | undefined;
  try {
    const response = await client.send({ method: 'GET', path: '/__mock/fixtures', headers: { accept: 'application/json', [MOCK_SESSION_HEADER]: session } });
    if (response.status === 200) fixtures = parseMockFixtures(response.text);
  } catch {
    fixtures = undefined;
  }
  if (!fixtures) return resolved;

  resolved.mock = true;
  resolved.mockSession = fixtures.session === session ? session : undefined;
  for (const persona of PERSONAS) {
    const value = fixtures.tokens[persona];
    if (tokens[persona] === undefined && value !== undefined) {
      tokens[persona] = value;
      sources[tokenVariable(persona)] = 'mock';
    }
  }
  const fill = <G extends RecordGroup>(group: G, given: Record<string, string>): void => {
    for (const story of RECORD_STORIES[group]) {
      const value = given[story];
      const target: Partial<Record<string, string>> = records[group];
      if (target[story] === undefined && value !== undefined) {
        target[story] = value;
        sources[recordVariable(group, story)] = 'mock';
      }
    }
  };
  fill('projects', fixtures.projects);
  fill('goals', fixtures.goals);
  // Every persona's person the mock names: the writers' (each a variable too), and the others' for the writes that
  // name people (a subscriber without access, a person mentioned).
  for (const persona of PERSONAS) {
    const person = fixtures.people[persona];
    if (resolved.people[persona] === undefined && person !== undefined) {
      resolved.people[persona] = person;
      if (WRITERS.includes(persona)) sources[personVariable(persona)] = 'mock';
    }
  }
  resolved.person = resolved.people['full_access'];
  return resolved;
}

/** Puts the mock back to its seed (the run's own session when it has one). Only ever called on a detected mock. */
export async function resetMock(target: ResolvedTarget): Promise<void> {
  if (!target.mock) return;
  const client = createClient({ baseUrl: target.config.baseUrl, timeoutMs: target.config.timeoutMs });
  const headers: Record<string, string> = target.mockSession ? { [MOCK_SESSION_HEADER]: target.mockSession } : {};
  const response = await client.send({ method: 'POST', path: '/__mock/reset', headers });
  if (response.status !== 200) throw new Error(`POST /__mock/reset answered ${response.status}: ${response.text.slice(0, 200)}`);
}
