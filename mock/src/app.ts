// createMockApp: the mock as an Express app that does not listen, so tests and other apps can mount it. A thin
// adapter over the framework-free core (core.ts): it reads the body (bounded by the limit), hands the core the
// request's method, target, headers and bytes, and writes the answer. Two apps in one process share nothing but the
// read-only spec.
import type { Socket } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createMockCore, DEFAULT_BODY_LIMIT, memorySessions, type CoreOptions, type MockCore, type MockRequest } from './core.ts';
import { collectSoon, LARGE_BODY } from './collect.ts';
import { fixturesOf } from './controls.ts';
import { MOCK_CONTROL_FAILED } from './errors.ts';
import { hold } from './faults.ts';
import { defaultSeed } from './seed.ts';
import { originForm } from './requestTarget.ts';
import { MemorySessions, type Sessions } from './sessions.ts';
import type { Seed } from './state.ts';
import type { Store } from './store.ts';

export type MockOptions = CoreOptions;

export { DEFAULT_BODY_LIMIT, fixturesOf };

/**
 * The parts of a running mock that tests and the CLI may look at. `store()` reads an in-memory session in place; with
 * `sessions` kept elsewhere (a shared store), use `sessions.read` instead.
 */
type MockInternals = { seed: Seed; sessions: Sessions; core: MockCore; store(session?: string): Store };

export type MockApp = express.Express & { mock: MockInternals };

const EMPTY = new Uint8Array(0);
/** What a dropped keep-alive connection sends before it closes (dropConnection); sockets that carried a request. */
const NOT_HTTP = '\0';
const carried = new WeakSet<Socket>();

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
  const headers = req.headers;
  // An absolute-form target is answered as its origin form, with its authority as the host (requestTarget.ts).
  const absolute = originForm(req.originalUrl);
  // Node keeps the first of a repeated Authorization or Content-Type and joins other repeated headers with ", ".
  const header = (name: string): string | undefined => {
    if (absolute && name === 'host') return absolute.host;
    const value = headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const request: MockRequest = { method: req.method, target: absolute?.target ?? req.originalUrl, header, body };
  if (bodyError) request.bodyError = bodyError;
  if (receivedAt !== undefined) request.receivedAt = receivedAt;
  const reused = carried.has(req.socket);
  carried.add(req.socket);
  const framed = await core.answer(request);
  if (framed.fault) return dropConnection(req, res, framed.holdMs, reused);
  // One writeHead with the headers as a flat list: Node writes them as given, without keeping a header map first.
  const flat: string[] = [];
  for (const [name, value] of framed.headers) flat.push(name, value);
  res.writeHead(framed.status, flat);
  res.end(framed.body);
  if (body.length >= LARGE_BODY) collectSoon();
}

/**
 * A fault (faults.ts): no HTTP answer. The socket is destroyed at once (network-error), or once `holdMs` passes
 * (timeout); a client that gives up first closes it itself, which ends the hold. On a connection that carried a
 * request before, one byte that can begin no HTTP answer goes first: a browser resends a request whose reused
 * keep-alive connection closes before any byte arrives (it takes it for an idle connection the server closed), so a
 * bare close there would be retried unseen and answered normally; with the byte, every client reports a network error.
 */
async function dropConnection(req: Request, res: Response, holdMs: number | undefined, reused: boolean): Promise<void> {
  if (holdMs !== undefined) {
    const gaveUp = new AbortController();
    const abort = (): void => gaveUp.abort();
    res.once('close', abort);
    await hold(holdMs, gaveUp.signal);
    res.off('close', abort);
  }
  const socket = req.socket;
  if (socket.destroyed) return;
  if (reused) socket.write(NOT_HTTP, () => socket.destroy());
  else socket.destroy();
}
