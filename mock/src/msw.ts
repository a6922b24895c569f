// The mock as MSW request handlers (msw 2+): the same core as `npm start` (core.ts), with its state, fixtures, tokens,
// `Prefer`, sessions and journals, answering `fetch` in a unit test (msw/node's setupServer), a browser app or a
// Storybook story (msw/browser's setupWorker) with no port and no server.
//
//   const mock = createMockHandlers({ baseUrl: 'https://api.example.com' });
//   const server = setupServer(...mock);            // or setupWorker(...mock).start()
//   await mock.reset();                             // back to the seed
import { http, type HttpHandler } from 'msw';
import { eventsSince, eventView, fixturesOf, type Fixtures } from './core/controls.ts';
import { createMockCore, type CoreOptions, type MockCore } from './core/core.ts';
import { checkScenario, type Scenario } from './answers/scenarios.ts';
import { DEFAULT_SESSION, type RequestEntry } from './storage/sessions.ts';
import type { OperationId } from '../../spec/lib/operations.ts';
import type { State } from './domain/state.ts';
import type { components as Control } from '../../generated/mock-control.ts';

export type MockHandlersOptions = CoreOptions & {
  /** Where the API is, as the app calls it: an origin, optionally with a path (`https://api.example.com/v1-mock`). */
  baseUrl: string;
  /** The session requests without an X-Mock-Session header use, and the one reset()/state()/events() read. */
  session?: string;
};

export type MockHandlers = HttpHandler[] & {
  /** The core behind the handlers (for another adapter, or to answer a Request directly). */
  core: MockCore;
  /** Tokens by persona and record ids by story, in the id form responses use (GET /__mock/fixtures). */
  fixtures(): Promise<Fixtures>;
  /** Back to the seed: the handlers' session, or every session with `{ all: true }`. */
  reset(options?: { all?: boolean }): Promise<void>;
  /** The session's store as JSON (GET /__mock/state): a copy, safe to keep. */
  state(): Promise<State>;
  /** The session's event journal (GET /__mock/events). */
  events(): Promise<Array<Control['schemas']['Event']>>;
  /** The session's request journal, oldest first (GET /__mock/requests). */
  requests(limit?: number): Promise<RequestEntry[]>;
  /** The handlers' session's scripted sequences (POST/GET/DELETE /__mock/scenarios), without HTTP. */
  scenarios: {
    /**
     * Queues "the next `times` (default 1) requests of `operation` answer as if they carried `prefer`"
     * (`code=500`, `example=NAME`, `delay=MS`, `fault=network-error|timeout`, or a gateway's `code=502|503|504`); throws,
     * naming the field, on a bad one.
     */
    add(scenario: { operation: OperationId; prefer: string; times?: number }): Promise<Scenario>;
    /** The pending scenarios, in queue order, each with its `remaining` count. */
    list(): Promise<Scenario[]>;
    /** Drops the pending scenarios (reset() does too). */
    clear(): Promise<void>;
  };
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function createMockHandlers(options: MockHandlersOptions): MockHandlers {
  const base = new URL(options.baseUrl);
  if (base.search || base.hash) throw new Error(`baseUrl must be an origin and an optional path, got ${options.baseUrl}`);
  const basePath = base.pathname.replace(/\/+$/, '');
  const session = options.session ?? DEFAULT_SESSION;
  const core = createMockCore(options);
  // Every request under the base URL, whatever its path (the mock answers unknown paths as production does). A
  // RegExp without groups: MSW decodes path parameters, which would throw on a malformed escape the mock must see.
  const under = new RegExp(`^${escapeRegExp(`${base.origin}${basePath}`)}(?:/|$)`);
  const handler = http.all(under, ({ request }) => core.fetch(request, { basePath, session }));
  const { sessions, seed } = core;
  return Object.assign([handler], {
    core,
    fixtures: async () => fixturesOf(seed, await sessions.read(session, (store) => structuredClone(store.state))),
    reset: async (resetOptions: { all?: boolean } = {}) => {
      await sessions.reset(resetOptions.all ? undefined : session);
      await core.scenarios.clear(resetOptions.all ? undefined : session);
    },
    state: async () => sessions.read(session, (store) => structuredClone(store.state)),
    events: async () =>
      sessions.read(session, (store) => {
        const chosen = eventsSince(store.events, undefined);
        return typeof chosen === 'string' ? [] : chosen.map((e) => eventView(store, e));
      }),
    requests: async (limit = 100) => sessions.requests(session, limit),
    scenarios: {
      add: async (scenario: { operation: OperationId; prefer: string; times?: number }) => {
        const checked = checkScenario(scenario);
        if (!checked.ok) throw new Error(`scenarios.add: ${checked.message}`);
        return core.scenarios.add(session, checked.value);
      },
      list: async () => core.scenarios.list(session),
      clear: async () => {
        await core.scenarios.clear(session);
      },
    },
  });
}
