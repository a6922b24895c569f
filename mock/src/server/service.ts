// The mock as a service other teams depend on (the CLI's server; mock/docs/organisation.md, "Running it for an organisation"):
// the probes (health.ts) and the metrics (metrics.ts) in front of the app, and the drain on SIGTERM/SIGINT. Node only.
//   - every request's target is read once, by the core's reading (core/target.ts): the probes, the metrics, the log
//     and the app see one path, whatever the form of the target (absolute, `//…`, a trailing `/`, a `#fragment`);
//   - /__mock/health and /__mock/ready answer whatever the Host, before the app, so they are never journaled;
//   - /__mock/metrics answers the Hosts the mock answers (a 421 otherwise, as the app would), also before the app;
//   - every other request goes to the app and, once its connection is done with it, is told to `log` and counted:
//     `Answered` (method, path without the query, operation, status, ms, session; never a header value but the
//     session name), the operation being the one its POST path names, by the pipeline's own lookup (operationAt);
//   - drain: answer what is in flight (each with `Connection: close`, so a kept-alive connection ends after it),
//     while the probes still answer on any connection (readiness 503: draining) and any other new request gets the
//     mock's 503 at once; settle once the requests in flight have ended or `drainMs` has passed, then stop listening
//     and close every connection, saying how many requests were cut off.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Answered } from './answered.ts';
import { misdirected } from '../core/guard.ts';
import { MOCK_UNAVAILABLE } from '../answers/errors.ts';
import { DRAINING_REASON, healthAnswer, readyAnswer } from './health.ts';
import type { MockMetrics } from './metrics.ts';
import { operationAt, readOperations } from '../core/pipeline.ts';
import { readTarget, type Target } from '../core/target.ts';
import { DEFAULT_SESSION, JOURNAL_PATH_LENGTH, SESSION_HEADER, SESSION_NAME, type Sessions } from '../storage/sessions.ts';

/** The service's own endpoints, matched as the controls are (any case, an optional trailing slash). */
const SERVICE_ROUTE = /^\/__mock\/(health|ready|metrics)\/?$/i;

/** Answers counted before prom-client has loaded (it loads after the first answer), replayed once it has. */
const PENDING_LIMIT = 10_000;

export type ServiceOptions = {
  sessions: Sessions;
  /** The Hosts the mock answers (hosts.ts), or undefined for any. */
  allowedHosts?: () => ReadonlySet<string>;
  /**
   * Loads the metrics (metrics.ts), or gives the one line that says why there are none (a missing peer). Called once,
   * after the first answer or at the first scrape, whichever comes first: prom-client stays off the cold start's path.
   */
  loadMetrics(): Promise<MockMetrics | string>;
  /** Told of every request the app answered (the JSON log). */
  log?: ((answered: Answered) => void) | undefined;
};

/** How a drain ended, and how many requests in flight it cut off (0 when it drained). */
type Drained = { ended: 'drained' | 'timed out'; cutOff: number };

export type Service = {
  /** The request listener: the probes and metrics, then the app. */
  listener(app: RequestListener): RequestListener;
  draining(): boolean;
  /** Drains `server` (see above): settles once the requests in flight have ended or `drainMs` has passed. */
  drain(server: Server, drainMs: number): Promise<Drained>;
};

const JSON_TYPE = 'application/json; charset=utf-8';

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

/** The answer to a request the app does not see: one line of the mock's own JSON 500. */
function failed(res: ServerResponse, what: string, error: unknown): void {
  if (res.headersSent) return void res.destroy();
  const message = `${what}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  send(res, 500, JSON_TYPE, JSON.stringify({ error: 'Mock control failed', message }));
}

/** The metrics, loaded once (after the first answer or at the first scrape); answers counted meanwhile are replayed. */
function metricsOf(options: ServiceOptions): {
  observe(answered: Answered): void;
  serve(req: IncomingMessage, res: ServerResponse, target: Target): Promise<void>;
} {
  let metrics: MockMetrics | string | undefined;
  let loading: Promise<void> | undefined;
  let pending: Answered[] = [];
  const load = (): Promise<void> =>
    (loading ??= options.loadMetrics().then(
      (loaded) => {
        metrics = loaded;
        if (typeof loaded === 'object') for (const answered of pending) loaded.observe(answered);
        pending = [];
      },
      (error: unknown) => {
        metrics = `the metrics could not load: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
        pending = [];
      },
    ));
  return {
    observe(answered) {
      if (typeof metrics === 'object') return metrics.observe(answered);
      if (metrics === undefined && pending.length < PENDING_LIMIT) pending.push(answered);
      // After this answer is written, not before it.
      if (loading === undefined) setImmediate(load);
    },
    async serve(req, res, target) {
      const hosts = options.allowedHosts?.();
      // An absolute-form target's authority is the request's host, as the app reads it.
      const host = target.host ?? req.headers.host;
      if (hosts && host !== undefined && !hosts.has(host.toLowerCase())) {
        const refused = misdirected(host, hosts, 'This mock');
        return send(res, refused.status, JSON_TYPE, JSON.stringify(refused.body));
      }
      // A scrape before any answer loads them now.
      await load();
      if (typeof metrics !== 'object')
        return send(res, 501, JSON_TYPE, JSON.stringify({ error: 'Mock metrics unavailable', message: metrics ?? 'the metrics did not load' }));
      const { contentType, text } = await metrics.exposition();
      send(res, 200, contentType, text);
    },
  };
}

/** The requests taken before a drain and not yet done: a drain waits for them, then cuts off what is left. */
function requestsInFlight() {
  const open = new Set<ServerResponse>();
  let emptied: (() => void) | undefined;
  return {
    add(res: ServerResponse): void {
      open.add(res);
      res.once('close', () => {
        open.delete(res);
        if (open.size === 0) emptied?.();
      });
    },
    /** Settles once none is left ('drained'), or after `ms` ('timed out'); each answer not yet begun closes its connection. */
    settle(ms: number): Promise<Drained['ended']> {
      for (const res of open) if (!res.headersSent) res.setHeader('connection', 'close');
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve('timed out'), ms);
        emptied = () => {
          clearTimeout(timer);
          resolve('drained');
        };
        if (open.size === 0) emptied();
      });
    },
    left: (): ServerResponse[] => [...open],
  };
}

/** Drains `server` (the header says how), and settles with how it ended and how many requests it cut off. */
async function drainServer(server: Server, inFlight: ReturnType<typeof requestsInFlight>, drainMs: number): Promise<Drained> {
  // Kept-alive connections with nothing in flight end now; busy ones after their answer (Connection: close).
  server.closeIdleConnections();
  const ended = await inFlight.settle(drainMs);
  const cut = inFlight.left();
  // Each request cut off is observed (its log line, status 0) before the drain settles, and so before the exit.
  const observed = cut.map((res) => new Promise<void>((resolve) => (res.closed ? resolve() : res.once('close', () => resolve()))));
  server.close();
  server.closeAllConnections();
  await Promise.race([Promise.all(observed), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  return { ended, cutOff: cut.length };
}

export function createService(options: ServiceOptions): Service {
  let draining = false;
  const metrics = metricsOf(options);
  const inFlight = requestsInFlight();

  const byOperation = readOperations();
  /** Observes `req` once its connection is done with it. */
  function watch(req: IncomingMessage, res: ServerResponse, target: Target): void {
    const since = performance.now();
    const method = (req.method ?? '').toUpperCase();
    const operation = (method === 'POST' && operationAt(byOperation, target.path)?.operationId) || null;
    const header = req.headers[SESSION_HEADER];
    const session = header === undefined ? DEFAULT_SESSION : typeof header === 'string' && SESSION_NAME.test(header) ? header : null;
    const path = target.path.length <= JOURNAL_PATH_LENGTH ? target.path : `${target.path.slice(0, JOURNAL_PATH_LENGTH - 1)}…`;
    res.once('close', () => {
      const answered: Answered = { method, path, operation, status: res.headersSent ? res.statusCode : 0, ms: performance.now() - since, session };
      options.log?.(answered);
      metrics.observe(answered);
    });
  }

  /** The probes and the metrics; false for any other path. */
  function serveOwn(req: IncomingMessage, res: ServerResponse, target: Target): boolean {
    const method = req.method ?? 'GET';
    const route = SERVICE_ROUTE.exec(target.path)?.[1]?.toLowerCase();
    if ((method !== 'GET' && method !== 'HEAD') || route === undefined) return false;
    // The request's body, if any, is not read: a GET's body is nothing to the probes.
    const answered =
      route === 'metrics'
        ? metrics.serve(req, res, target)
        : (route === 'health' ? Promise.resolve(healthAnswer()) : readyAnswer({ draining: () => draining, sessions: options.sessions })).then((probe) =>
            send(res, probe.status, JSON_TYPE, probe.body),
          );
    answered.catch((error: unknown) => failed(res, `${method} ${target.path}`, error));
    return true;
  }

  return {
    listener(app) {
      return (req, res) => {
        const target = readTarget(req.url ?? '/');
        if (draining) res.setHeader('connection', 'close');
        if (serveOwn(req, res, target)) return;
        watch(req, res, target);
        if (draining) {
          // A request that arrives during the drain: the mock's 503 at once (a load balancer tries another replica).
          const refused = MOCK_UNAVAILABLE(DRAINING_REASON);
          return send(res, refused.status, JSON_TYPE, JSON.stringify(refused.body));
        }
        inFlight.add(res);
        app(req, res);
      };
    },
    draining: () => draining,
    drain(server, drainMs) {
      draining = true;
      return drainServer(server, inFlight, drainMs);
    },
  };
}
