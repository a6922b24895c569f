// The mock's control endpoints, under /__mock/ (never under the API prefix). Documented in mock/openapi.yaml.
import express, { type Request, type Response } from 'express';
import type { components as Control } from '../../generated/mock-control.ts';
import { slugId } from './ids.ts';
import { DEFAULT_SESSION, REQUEST_JOURNAL_LIMIT, SESSION_HEADER, SESSION_NAME, type Session, type Sessions } from './sessions.ts';
import type { Seed, State } from './state.ts';
import type { Store, WriteEvent } from './store.ts';

type Named = { uuid: string; name?: string; full_name?: string };

function idOf(rows: ReadonlyArray<Named>, uuid: string): string {
  const row = rows.find((r) => r.uuid === uuid);
  return row ? slugId(row.name ?? row.full_name ?? '', uuid) : uuid;
}

/** Tokens by persona and record ids by story, in the id form responses use. Every value is a string. */
export function fixturesOf(seed: Seed, state: State): { tokens: Record<string, string>; projects: Record<string, string>; goals: Record<string, string>; people: Record<string, string> } {
  const map = (ids: Record<string, string>, rows: ReadonlyArray<Named>): Record<string, string> => Object.fromEntries(Object.entries(ids).map(([key, uuid]) => [key, idOf(rows, uuid)]));
  return {
    tokens: { ...seed.fixtures.tokens },
    projects: map(seed.fixtures.projects, state.projects),
    goals: map(seed.fixtures.goals, state.goals),
    people: map(seed.fixtures.people, state.people),
  };
}

/** A write as the event journal shows it: who did what to which record, who was subscribed and who would be notified. */
function eventView(store: Store, event: WriteEvent): Control['schemas']['Event'] {
  const s = store.state;
  const person = (uuid: string) => ({ id: idOf(s.people, uuid), full_name: s.people.find((p) => p.uuid === uuid)?.full_name ?? null });
  const a = event.activity;
  const record = a.project_uuid ? { type: 'project' as const, id: idOf(s.projects, a.project_uuid) } : { type: 'goal' as const, id: idOf(s.goals, a.goal_uuid ?? '') };
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

export function sessionName(req: Request): { ok: true; name: string } | { ok: false; message: string } {
  const header = req.headers[SESSION_HEADER];
  if (header === undefined) return { ok: true, name: DEFAULT_SESSION };
  const name = Array.isArray(header) ? header[0] ?? '' : header;
  if (!SESSION_NAME.test(name)) return { ok: false, message: `X-Mock-Session must be 1 to 64 of A-Z a-z 0-9 . _ : -, got "${name.slice(0, 80)}"` };
  return { ok: true, name };
}

export function controlRouter(seed: Seed, sessions: Sessions): express.Router {
  const router = express.Router();
  const withSession = (handler: (session: Session, req: Request, res: Response) => void) => (req: Request, res: Response) => {
    const name = sessionName(req);
    if (!name.ok) {
      res.status(400).json({ error: 'Mock control error', message: name.message });
      return;
    }
    handler(sessions.get(name.name), req, res);
  };
  const bad = (res: Response, message: string): void => {
    res.status(400).json({ error: 'Mock control error', message });
  };

  router.get('/fixtures', withSession((session, _req, res) => res.json({ session: session.name, ...fixturesOf(seed, session.store.state) })));
  router.get('/state', withSession((session, _req, res) => res.json(session.store.state)));
  router.get('/sessions', (_req, res) => res.json({ sessions: sessions.list() }));
  router.post('/reset', (req, res) => {
    if (req.query['all'] === 'true') {
      sessions.reset();
      res.json({ reset: 'all' });
      return;
    }
    const name = sessionName(req);
    if (!name.ok) return bad(res, name.message);
    sessions.reset(name.name);
    res.json({ reset: name.name });
  });
  router.get(
    '/requests',
    withSession((session, req, res) => {
      const raw = req.query['limit'];
      const limit = raw === undefined ? 100 : Number(raw);
      if (!Number.isInteger(limit) || limit < 1 || limit > REQUEST_JOURNAL_LIMIT) return bad(res, `limit must be a whole number from 1 to ${REQUEST_JOURNAL_LIMIT}`);
      res.json({ session: session.name, requests: session.requests.slice(-limit) });
    }),
  );
  router.get(
    '/events',
    withSession((session, req, res) => {
      const since = req.query['since'];
      let events = session.store.events;
      if (typeof since === 'string' && since !== '') {
        if (/^\d+$/.test(since)) events = events.filter((e) => e.seq > Number(since));
        else if (!Number.isNaN(Date.parse(since))) events = events.filter((e) => Date.parse(e.at) >= Date.parse(since));
        else return bad(res, 'since must be an event seq number or an ISO date-time');
      }
      res.json({ session: session.name, events: events.map((e) => eventView(session.store, e)) });
    }),
  );
  return router;
}
