// createMockApp: the mock as an Express app that does not listen, so tests and other apps can mount it.
import express, { type NextFunction, type Request, type Response } from 'express';
import { createBackend } from './backend.ts';
import * as errors from './errors.ts';
import { closeGoal } from './handlers/closeGoal.ts';
import { resumeProject } from './handlers/resumeProject.ts';
import { slugId } from './ids.ts';
import { answer, readOperations } from './pipeline.ts';
import { createReplyChecker, writeReply, type Reply } from './reply.ts';
import { defaultSeed } from './seed.ts';
import type { Seed, State } from './state.ts';
import { Store } from './store.ts';
import { errorViewIsJson } from './transport.ts';

export type MockOptions = {
  /** The data to start from (and to return to on reset); the default seed is built from the spec's examples. */
  seed?: Seed;
  /** The clock of the state rules (check-in dates, outdated flags, timestamps). */
  now?: () => Date;
  /** New record ids (UUIDs); tests pass a sequence to get stable ids. */
  newId?: () => string;
  /** The largest request body in bytes; larger ones get production's 413 (production allows 256,000,000). */
  bodyLimit?: number;
  /** Check every response against the spec and answer a loud 500 naming the violations (default true). */
  validateResponses?: boolean;
};

export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

/** The parts of a running mock that tests and the CLI may look at. */
export type MockInternals = { store(): Store; seed: Seed; reset(): void };

export type MockApp = express.Express & { mock: MockInternals };

export function createMockApp(options: MockOptions = {}): MockApp {
  const seed = options.seed ?? defaultSeed();
  const now = options.now ?? (() => new Date());
  const storeOptions = options.newId ? { now, newId: options.newId } : { now };
  const fresh = (): Store => new Store(structuredClone(seed.state), storeOptions);
  let store = fresh();

  const checker = createReplyChecker();
  const checkReply = options.validateResponses === false ? () => [] : checker;
  const api = createBackend({ resumeProject, closeGoal }, checkReply);
  const operations = readOperations();

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');

  // ── mock controls (never under the API prefix) ────────────────────────────────────────────────────────────────
  const control = express.Router();
  control.get('/fixtures', (_req, res) => {
    res.json(fixturesOf(seed, store.state));
  });
  control.get('/state', (_req, res) => {
    res.json(store.state);
  });
  control.post('/reset', (_req, res) => {
    store = fresh();
    res.json({ reset: true });
  });
  app.use('/__mock', control);

  // ── the API, in production's order of checks ──────────────────────────────────────────────────────────────────
  app.use(express.raw({ type: () => true, limit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, inflate: false }));
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const { reply, options: replyOptions } = await answer(req, body, { api, operations, store });
      // Replies from steps 1–5 did not pass through openapi-backend's postResponseHandler: check them here.
      const violations = checkReply(reply, replyOptions.operationId);
      writeReply(res, violations.length && reply.code !== 'MOCK_RESPONSE_INVALID' ? errors.MOCK_RESPONSE_INVALID(violations) : reply, replyOptions);
    } catch (error) {
      next(error);
    }
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const type = typeof error === 'object' && error !== null && 'type' in error ? error.type : undefined;
    let reply: Reply;
    if (type === 'entity.too.large') reply = errors.PAYLOAD_TOO_LARGE(errorViewIsJson(req.headers['accept']));
    else if (type === 'request.aborted') return;
    else if (typeof type === 'string') reply = errors.INVALID_JSON(errorViewIsJson(req.headers['accept']));
    else reply = errors.MOCK_RESPONSE_INVALID([`the mock failed: ${error instanceof Error ? error.message : String(error)}`]);
    writeReply(res, reply, { entry: true });
  });

  return Object.assign(app, {
    mock: {
      store: () => store,
      seed,
      reset: () => {
        store = fresh();
      },
    },
  });
}

/** Tokens by persona and record ids by story, in the id form responses use. Every value is a string. */
export function fixturesOf(seed: Seed, state: State): { tokens: Record<string, string>; projects: Record<string, string>; goals: Record<string, string>; people: Record<string, string> } {
  const nameOf = (rows: ReadonlyArray<{ uuid: string; name?: string; full_name?: string }>, uuid: string): string => {
    const row = rows.find((r) => r.uuid === uuid);
    return row ? slugId(row.name ?? row.full_name ?? '', uuid) : uuid;
  };
  const map = (ids: Record<string, string>, rows: ReadonlyArray<{ uuid: string; name?: string; full_name?: string }>): Record<string, string> =>
    Object.fromEntries(Object.entries(ids).map(([key, uuid]) => [key, nameOf(rows, uuid)]));
  return {
    tokens: { ...seed.fixtures.tokens },
    projects: map(seed.fixtures.projects, state.projects),
    goals: map(seed.fixtures.goals, state.goals),
    people: map(seed.fixtures.people, state.people),
  };
}
