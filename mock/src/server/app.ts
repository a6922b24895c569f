// createMockApp: the mock as an Express app that does not listen, so tests and other apps can mount it. A thin
// adapter over the framework-free core (core.ts): it reads the body (bounded by the limit), hands the core the
// request's method, target, headers and bytes, and writes the answer. Two apps in one process share nothing but the
// read-only spec.
import express, { type NextFunction, type Request, type Response } from 'express';
import { createMockCore, DEFAULT_BODY_LIMIT, memorySessions, type CoreOptions, type MockCore, type MockRequest } from '../core/core.ts';
import { collectSoon, LARGE_BODY } from './collect.ts';
import { fixturesOf } from '../core/controls.ts';
import { MOCK_CONTROL_FAILED } from '../answers/errors.ts';
import { answerHttp, mockRequestOf } from './httpListener.ts';
import { defaultSeed } from '../domain/seed.ts';
import { MemorySessions, type Sessions } from '../storage/sessions.ts';
import type { Seed } from '../domain/state.ts';
import type { Store } from '../storage/store.ts';

export type MockOptions = CoreOptions;

export { DEFAULT_BODY_LIMIT, fixturesOf };

/**
 * The parts of a running mock that tests and the CLI may look at. `store()` reads an in-memory session in place; with
 * `sessions` kept elsewhere (a shared store), use `sessions.read` instead.
 */
type MockInternals = { seed: Seed; sessions: Sessions; core: MockCore; store(session?: string): Store };

export type MockApp = express.Express & { mock: MockInternals };

const EMPTY = new Uint8Array(0);

export function createMockApp(options: MockOptions = {}): MockApp {
  const now = options.now ?? (() => new Date());
  const seed = options.seed ?? defaultSeed();
  const sessions = options.sessions ?? memorySessions(seed, now, options);
  const core = createMockCore({ ...options, seed, now, sessions });
  const store = (session?: string): Store => {
    if (!(sessions instanceof MemorySessions))
      throw new Error('store() reads in-memory sessions only; this mock keeps them elsewhere (use mock.sessions.read)');
    return sessions.get(session).store;
  };

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // The journal's duration counts from here, before the body is read.
  const received = new WeakMap<Request, number>();
  app.use((req: Request, _res: Response, next: NextFunction) => {
    received.set(req, performance.now());
    next();
  });
  // The body is read whole (never inflated: production reads the bytes as sent), at most `bodyLimit` bytes of it.
  app.use(express.raw({ type: () => true, limit: core.bodyLimit, inflate: false }));
  app.use((req: Request, res: Response, next: NextFunction) => {
    serve(core, req, res, received.get(req), Buffer.isBuffer(req.body) ? req.body : EMPTY).catch(next);
  });
  // What express.raw refused: too large (413), or unreadable (a Content-Encoding, a length that does not match).
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    const type = typeof error === 'object' && error !== null && 'type' in error ? error.type : undefined;
    if (type === 'request.aborted') return;
    if (typeof type !== 'string') return next(error);
    serve(core, req, res, received.get(req), EMPTY, type === 'entity.too.large' ? 'too-large' : 'unreadable').catch(next);
  });
  // Anything else that failed: the mock's own JSON 500 in one line, never Express's HTML page with a stack trace.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.destroy();
    const reply = MOCK_CONTROL_FAILED(`${req.method} ${req.path.slice(0, 100)}`, error);
    res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(reply.body));
  });
  return Object.assign(app, { mock: { seed, sessions, core, store } });
}

async function serve(
  core: MockCore,
  req: Request,
  res: Response,
  receivedAt: number | undefined,
  body: Uint8Array,
  bodyError?: MockRequest['bodyError'],
): Promise<void> {
  const request = mockRequestOf(req, req.originalUrl, body, receivedAt ?? performance.now());
  if (bodyError) request.bodyError = bodyError;
  await answerHttp(core, req, res, request);
  if (body.length >= LARGE_BODY) collectSoon();
}
