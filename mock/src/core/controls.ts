// The mock's control endpoints, under /__mock/ (never under the API prefix). Documented in mock/openapi.yaml.
// Framework-free: a control request in, a framed answer out (or undefined when it is no control endpoint, so the
// request goes on to the API, which answers production's 404).
import type { components as Control } from '../../../generated/mock-control.ts';
import * as errors from '../answers/errors.ts';
import { decodeId, slugId } from '../domain/ids.ts';
import type { Framed } from '../answers/reply.ts';
import { answerScenarios, SCENARIOS_ROUTE } from './scenarioControl.ts';
import type { Scenarios } from '../answers/scenarios.ts';
import { DEFAULT_SESSION, REQUEST_JOURNAL_LIMIT, SESSION_NAME, StoreUnavailable, type Sessions } from '../storage/sessions.ts';
import { PERSONAS, type Fixtures, type Seed, type State } from '../domain/state.ts';
import type { Store, WriteEvent } from '../storage/store.ts';
import { goalView, projectView } from '../domain/views.ts';

type Named = { uuid: string; name?: string; full_name?: string };

function idOf(rows: ReadonlyArray<Named>, uuid: string): string {
  const row = rows.find((r) => r.uuid === uuid);
  return row ? slugId(row.name ?? row.full_name ?? '', uuid) : uuid;
}

export type { Fixtures } from '../domain/state.ts';

/** Tokens by persona and record ids by story, in the id form responses use. Every value is a string. */
export function fixturesOf(seed: Seed, state: State): Fixtures {
  // A copy with every uuid replaced by the record's id: the copy keeps the seed's names, and with them their type.
  const map = <T extends Record<string, string>>(ids: T, rows: ReadonlyArray<Named>): T => {
    const out = { ...ids };
    for (const key of Object.keys(out)) Object.assign(out, { [key]: idOf(rows, ids[key] ?? '') });
    return out;
  };
  return {
    tokens: { ...seed.fixtures.tokens },
    projects: map(seed.fixtures.projects, state.projects),
    goals: map(seed.fixtures.goals, state.goals),
    people: map(seed.fixtures.people, state.people),
  };
}

/** A write as the event journal shows it: who did what to which record, who was subscribed and who would be notified. */
export function eventView(store: Store, event: WriteEvent): Control['schemas']['Event'] {
  const s = store.state;
  const person = (uuid: string) => ({ id: idOf(s.people, uuid), full_name: s.people.find((p) => p.uuid === uuid)?.full_name ?? null });
  const a = event.activity;
  const record = a.project_uuid
    ? { type: 'project' as const, id: idOf(s.projects, a.project_uuid) }
    : { type: 'goal' as const, id: idOf(s.goals, a.goal_uuid ?? '') };
  return {
    seq: event.seq,
    at: event.at,
    activity: a.action,
    activity_id: a.id,
    record,
    author: person(a.author_uuid),
    send_to_everyone: event.send_to_everyone,
    subscriptions: event.subscriptions.map((x) => ({ ...person(x.person_uuid), type: x.type === 'mentioned' ? ('mentioned' as const) : ('invited' as const) })),
    notified: event.recipients.map(person),
  };
}

/** The events after `since` (a seq number or an ISO date-time), or a message saying what is wrong with it. */
export function eventsSince(events: ReadonlyArray<WriteEvent>, since: string | undefined): WriteEvent[] | string {
  if (since === undefined || since === '') return [...events];
  if (/^\d+$/.test(since)) return events.filter((e) => e.seq > Number(since));
  if (!Number.isNaN(Date.parse(since))) return events.filter((e) => Date.parse(e.at) >= Date.parse(since));
  return 'since must be an event seq number or an ISO date-time';
}

/** The session an `X-Mock-Session` value names (none: the default session), or why it names none. */
export function sessionName(header: string | undefined): { ok: true; name: string } | { ok: false; message: string } {
  if (header === undefined) return { ok: true, name: DEFAULT_SESSION };
  if (!SESSION_NAME.test(header)) return { ok: false, message: `X-Mock-Session must be 1 to 64 of A-Z a-z 0-9 . _ : -, got "${header.slice(0, 80)}"` };
  return { ok: true, name: header };
}

export type ControlRequest = {
  method: string;
  pathname: string;
  query: URLSearchParams;
  header(name: string): string | undefined;
  /** The request body (read by POST /__mock/scenarios only). */
  body?: Uint8Array;
};

/** Control answers are plain JSON documents (application/json, no API framing). */
function json(status: number, value: unknown): Framed {
  return { status, headers: [['content-type', 'application/json; charset=utf-8']], body: JSON.stringify(value) };
}
function bad(message: string): Framed {
  const reply = errors.MOCK_CONTROL_ERROR(message);
  return json(reply.status, reply.body);
}

/** A query parameter given once; `undefined` when absent; `null` when repeated (which no control endpoint takes). */
function single(query: URLSearchParams, name: string): string | undefined | null {
  const all = query.getAll(name);
  return all.length === 0 ? undefined : all.length === 1 ? (all[0] ?? '') : null;
}

// Routes match as Express's did: any case, with or without a trailing slash; a GET route answers HEAD too.
const ROUTE = /^\/__mock\/(fixtures|state|sessions|reset|requests|events)\/?$/i;
const RECORD_ROUTE = /^\/__mock\/records\/([^/]+)\/?$/i;

function isPersona(value: string): value is (typeof PERSONAS)[number] {
  return PERSONAS.some((p) => p === value);
}

/**
 * A project or goal as its operation's 200 answer would show it now to a persona (`as`, default full_access), without
 * writing: the record before a write, for a client (the contract suite's left-alone rule) to compare answers with.
 */
function recordView(store: Store, seed: Seed, now: Date, id: string, as: string): { status: number; body: unknown } {
  if (!isPersona(as))
    return { status: 400, body: errors.MOCK_CONTROL_ERROR(`as must be a persona of the fixtures (${PERSONAS.join(', ')}), got "${as.slice(0, 80)}"`).body };
  const caller = seed.fixtures.people[as];
  if (caller === undefined) return { status: 400, body: errors.MOCK_CONTROL_ERROR(`the seed names no person for ${as}`).body };
  const decoded = decodeId(id);
  const uuid = decoded.kind === 'uuid' ? decoded.uuid : undefined;
  const { state } = store;
  const project = state.projects.find((p) => p.uuid === uuid);
  if (project) return { status: 200, body: { project: projectView(state, now, project, caller, { nestGoal: true }) } };
  const goal = state.goals.find((g) => g.uuid === uuid);
  if (goal) return { status: 200, body: { goal: goalView(state, now, goal, caller, { nestProjects: true }) } };
  return { status: 400, body: errors.MOCK_CONTROL_ERROR(`no project or goal of this session has the id "${id.slice(0, 100)}"`).body };
}

/**
 * A control request's answer; a shared store that cannot be reached is the mock's 503 (MOCK_STORE_UNAVAILABLE), and
 * any other failure the mock's JSON 500 (MOCK_CONTROL_FAILED), never a framework's error page.
 */
export async function control(request: ControlRequest, seed: Seed, sessions: Sessions, now: () => Date, scenarios: Scenarios): Promise<Framed | undefined> {
  try {
    return await answerControl(request, seed, sessions, now, scenarios);
  } catch (error) {
    const reply =
      error instanceof StoreUnavailable
        ? errors.MOCK_STORE_UNAVAILABLE(error.message)
        : errors.MOCK_CONTROL_FAILED(`${request.method} ${request.pathname.slice(0, 100)}`, error);
    return json(reply.status, reply.body);
  }
}

async function answerControl(request: ControlRequest, seed: Seed, sessions: Sessions, now: () => Date, scenarios: Scenarios): Promise<Framed | undefined> {
  if (SCENARIOS_ROUTE.test(request.pathname)) {
    const name = sessionName(request.header('x-mock-session'));
    if (!name.ok) return bad(name.message);
    const answered = await answerScenarios(request.method, request.body ?? new Uint8Array(0), name.name, scenarios);
    if (answered === undefined) return undefined;
    if (answered.status === 400) return bad(answered.message);
    return answered.status === 204 ? { status: 204, headers: [], body: '' } : json(answered.status, answered.value);
  }
  const isGet = request.method === 'GET' || request.method === 'HEAD';
  const record = RECORD_ROUTE.exec(request.pathname)?.[1];
  if (record !== undefined) {
    if (!isGet) return undefined;
    const name = sessionName(request.header('x-mock-session'));
    if (!name.ok) return bad(name.message);
    const as = single(request.query, 'as');
    if (as === null) return bad('as is given more than once');
    let id: string;
    try {
      id = decodeURIComponent(record);
    } catch {
      return bad(`the id "${record.slice(0, 100)}" is not a valid URL path segment`);
    }
    const answer = await sessions.read(name.name, (store) => recordView(store, seed, now(), id, as ?? 'full_access'));
    return json(answer.status, answer.body);
  }
  const route = ROUTE.exec(request.pathname)?.[1]?.toLowerCase();
  if (route === undefined) return undefined;
  if (route === 'reset' ? request.method !== 'POST' : !isGet) return undefined;
  if (route === 'sessions') return json(200, { sessions: await sessions.list() });
  if (route === 'reset' && single(request.query, 'all') === 'true') {
    await sessions.reset();
    await scenarios.clear();
    return json(200, { reset: 'all' });
  }
  const name = sessionName(request.header('x-mock-session'));
  if (!name.ok) return bad(name.message);
  const session = name.name;
  switch (route) {
    case 'reset':
      await sessions.reset(session);
      await scenarios.clear(session);
      return json(200, { reset: session });
    case 'fixtures':
      return json(200, { session, ...(await sessions.read(session, (store) => fixturesOf(seed, store.state))) });
    case 'state':
      return { ...json(200, null), body: await sessions.read(session, (store) => JSON.stringify(store.state)) };
    case 'requests': {
      const raw = single(request.query, 'limit');
      const limit = raw === undefined ? 100 : raw === null ? Number.NaN : Number(raw);
      if (!Number.isInteger(limit) || limit < 1 || limit > REQUEST_JOURNAL_LIMIT) return bad(`limit must be a whole number from 1 to ${REQUEST_JOURNAL_LIMIT}`);
      return json(200, { session, requests: await sessions.requests(session, limit) });
    }
    default: {
      const since = single(request.query, 'since');
      const events = await sessions.read(session, (store) => {
        const chosen = eventsSince(store.events, since ?? undefined);
        return typeof chosen === 'string' ? chosen : chosen.map((e) => eventView(store, e));
      });
      return typeof events === 'string' ? bad(events) : json(200, { session, events });
    }
  }
}
