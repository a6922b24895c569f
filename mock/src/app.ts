// createMockApp: the mock as an Express app that does not listen, so tests and other apps can mount it. Two apps in
// one process share nothing but the read-only spec.
import express, { type NextFunction, type Request, type Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBackend, type HandlerMap } from './backend.ts';
import { controlRouter, fixturesOf, sessionName } from './controls.ts';
import { cors } from './cors.ts';
import * as errors from './errors.ts';
import { closeGoal } from './handlers/closeGoal.ts';
import { resumeProject } from './handlers/resumeProject.ts';
import { answer, readOperations, type Answer } from './pipeline.ts';
import { forcedReply, parsePrefer } from './prefer.ts';
import { createReplyChecker, writeReply, type Reply } from './reply.ts';
import { defaultSeed } from './seed.ts';
import { DEFAULT_MAX_SESSIONS, Sessions, type Session } from './sessions.ts';
import type { Seed } from './state.ts';
import type { Store } from './store.ts';
import { errorViewIsJson } from './transport.ts';

export type MockOptions = {
  /** The data every session starts from (and returns to on reset); the default is built from the spec's examples. */
  seed?: Seed;
  /** The clock of the state rules (check-in dates, outdated flags, timestamps). */
  now?: () => Date;
  /** New record ids (UUIDs); tests pass a sequence to get stable ids. */
  newId?: () => string;
  /** The largest request body in bytes; larger ones get production's 413 (production allows 256,000,000). */
  bodyLimit?: number;
  /** Check every response against the spec and answer a loud 500 naming the violations (default true). */
  validateResponses?: boolean;
  /** Wait this long (a random time in [min, max] ms) before every API answer; `Prefer: delay=MS` overrides it. */
  delay?: { min: number; max: number };
  /** CORS for browser apps: on by default, reflecting any origin; `origins` restricts it. */
  cors?: { enabled: boolean; origins?: ReadonlyArray<string> };
  /** Serve the /__mock/ control endpoints (default true). */
  control?: boolean;
  /** How many X-Mock-Session sessions to keep before the least recently used is dropped. */
  maxSessions?: number;
};

export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

/** The parts of a running mock that tests and the CLI may look at. */
export type MockInternals = { seed: Seed; sessions: Sessions; store(session?: string): Store };

export type MockApp = express.Express & { mock: MockInternals };

export { fixturesOf };

export function createMockApp(options: MockOptions = {}): MockApp {
  const seed = options.seed ?? defaultSeed();
  const now = options.now ?? (() => new Date());
  const sessions = new Sessions(seed, options.newId ? { now, newId: options.newId } : { now }, options.maxSessions ?? DEFAULT_MAX_SESSIONS);
  const checkReply = options.validateResponses === false ? () => [] : createReplyChecker();
  // One handler per operationId of the spec, complete by construction: a missing or misspelt one does not compile.
  const handlers = { resumeProject, closeGoal } satisfies HandlerMap;
  const api = createBackend(handlers, checkReply);
  const operations = readOperations();
  const delay = options.delay;

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  app.use(cors(options.cors ?? { enabled: true }));
  if (options.control !== false) app.use('/__mock', express.json({ limit: '1mb' }), controlRouter(seed, sessions));

  // ── the API, in production's order of checks (pipeline.ts) ────────────────────────────────────────────────────
  app.use(express.raw({ type: () => true, limit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, inflate: false }));
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    try {
      const name = sessionName(req);
      const prefer = parsePrefer(req.get('prefer'));
      const session = name.ok ? sessions.get(name.name) : undefined;
      let result: Answer;
      if (!name.ok) result = { reply: errors.MOCK_CONTROL_ERROR(name.message), options: {} };
      else if (!prefer.ok) result = { reply: prefer.error, options: {} };
      else if (session) {
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const preferences = prefer.value;
        // A forced answer (Prefer: code / example) replaces the operation once the operation is known: no state change.
        result = await answer(req, body, { api, operations, store: session.store, force: (operationId) => forcedReply(operationId, preferences) });
      } else throw new Error('unreachable: a valid session name always has a session');
      const wait = prefer.ok && prefer.value.delay !== undefined ? prefer.value.delay : delay ? delay.min + Math.random() * (delay.max - delay.min) : 0;
      if (wait > 0) await sleep(wait);
      // Replies from openapi-backend were checked in its postResponseHandler; the mock's own are not production's.
      const unchecked = !result.options.checked && !result.reply.code.startsWith('MOCK_');
      const violations = unchecked ? checkReply(result.reply, result.options.operationId) : [];
      writeReply(res, violations.length ? errors.MOCK_RESPONSE_INVALID(violations) : result.reply, result.options);
      if (session) recordRequest(sessions, session, req, res.statusCode, started, result.options.operationId);
    } catch (error) {
      next(error);
    }
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const type = typeof error === 'object' && error !== null && 'type' in error ? error.type : undefined;
    if (type === 'request.aborted') return;
    let reply: Reply;
    if (type === 'entity.too.large') reply = errors.PAYLOAD_TOO_LARGE(errorViewIsJson(req.headers['accept']));
    else if (typeof type === 'string') reply = errors.INVALID_JSON(errorViewIsJson(req.headers['accept']));
    else reply = errors.MOCK_RESPONSE_INVALID([`the mock failed: ${error instanceof Error ? error.message : String(error)}`]);
    writeReply(res, reply, { entry: true });
    const name = sessionName(req);
    if (name.ok) recordRequest(sessions, sessions.get(name.name), req, res.statusCode, performance.now(), undefined);
  });

  return Object.assign(app, { mock: { seed, sessions, store: (session?: string) => sessions.get(session).store } });
}

function recordRequest(sessions: Sessions, session: Session, req: Request, status: number, started: number, operationId: string | undefined): void {
  sessions.record(session, {
    at: new Date().toISOString(),
    method: req.method,
    path: new URL(`http://mock.invalid${req.originalUrl}`).pathname,
    status,
    duration_ms: Math.round(performance.now() - started),
    operation: operationId ?? null,
  });
}
