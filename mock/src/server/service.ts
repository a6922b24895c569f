// The mock as a service other teams depend on (the CLI's server; mock/README.md, "Running it for an organisation"):
// the probes (health.ts) and the metrics (metrics.ts) in front of the app, and the drain on SIGTERM/SIGINT. Node only.
//   - /__mock/health and /__mock/ready answer whatever the Host, before the app, so they are never journaled;
//   - /__mock/metrics answers the Hosts the mock answers (a 421 otherwise, as the app would), also before the app;
//   - every other request goes to the app and, once its connection is done with it, is told to `log` and counted:
//     `Answered` (method, path without the query, operation, status, ms, session; never a header value but the
//     session name), the operation being the one its POST path names (the spec model's lookup, as the pipeline's);
//   - drain: stop accepting, answer what is in flight (each with `Connection: close`, so a kept-alive connection ends
//     after it), readiness 503 meanwhile, and settle once every connection has ended or `drainMs` has passed.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Answered } from './answered.ts';
import { misdirected } from '../core/guard.ts';
import { HEALTH_PATH, healthAnswer, READY_PATH, readyAnswer } from './health.ts';
import type { MockMetrics } from './metrics.ts';
import { readOperations } from '../core/pipeline.ts';
import { DEFAULT_SESSION, JOURNAL_PATH_LENGTH, SESSION_HEADER, SESSION_NAME, type Sessions } from '../storage/sessions.ts';

const METRICS_PATH = '/__mock/metrics';

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

export type Service = {
  /** The request listener: the probes and metrics, then the app. */
  listener(app: RequestListener): RequestListener;
  draining(): boolean;
  /** Drains `server`: settles with how it ended, once every connection has closed or `drainMs` has passed. */
  drain(server: Server, drainMs: number): Promise<'drained' | 'timed out'>;
};

const JSON_TYPE = 'application/json; charset=utf-8';

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

export function createService(options: ServiceOptions): Service {
  let draining = false;
  let metrics: MockMetrics | string | undefined;
  let loading: Promise<void> | undefined;
  /** Starts loading the metrics once; answers counted meanwhile are replayed into them. */
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
  let pending: Answered[] = [];
  /** Answers not yet sent: at a drain each gets `Connection: close`, so its connection ends once it is answered. */
  const inFlight = new Set<ServerResponse>();

  async function serveMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hosts = options.allowedHosts?.();
    const host = req.headers.host;
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
  }

  function observe(answered: Answered): void {
    options.log?.(answered);
    if (typeof metrics === 'object') {
      metrics.observe(answered);
      return;
    }
    if (metrics === undefined && pending.length < PENDING_LIMIT) pending.push(answered);
    // After this answer is written, not before it.
    if (loading === undefined) setImmediate(load);
  }

  const byPath = readOperations().byPath;
  /** Observes `req` once its connection is done with it. */
  function watch(req: IncomingMessage, res: ServerResponse, path: string): void {
    const since = performance.now();
    const method = (req.method ?? '').toUpperCase();
    const operation = (method === 'POST' && byPath.get(path)?.operationId) || null;
    const header = req.headers[SESSION_HEADER];
    const session = header === undefined ? DEFAULT_SESSION : typeof header === 'string' && SESSION_NAME.test(header) ? header : null;
    res.once('close', () => observe({ method, path, operation, status: res.headersSent ? res.statusCode : 0, ms: performance.now() - since, session }));
  }

  return {
    listener(app) {
      return (req, res) => {
        if (draining) res.setHeader('connection', 'close');
        else {
          inFlight.add(res);
          res.once('close', () => inFlight.delete(res));
        }
        const method = req.method ?? 'GET';
        const path = (req.url ?? '').split('?')[0]?.toLowerCase();
        if ((method === 'GET' || method === 'HEAD') && (path === HEALTH_PATH || path === READY_PATH || path === METRICS_PATH)) {
          // The request's body, if any, is not read: a GET's body is nothing to the probes.
          const answered =
            path === METRICS_PATH
              ? serveMetrics(req, res)
              : (path === HEALTH_PATH ? Promise.resolve(healthAnswer()) : readyAnswer({ draining: () => draining, sessions: options.sessions })).then((probe) =>
                  send(res, probe.status, JSON_TYPE, probe.body),
                );
          answered.catch((error: unknown) => {
            if (res.headersSent) return void res.destroy();
            send(
              res,
              500,
              JSON_TYPE,
              JSON.stringify({
                error: 'Mock control failed',
                message: `${method} ${path}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
              }),
            );
          });
          return;
        }
        watch(req, res, ((req.url ?? '').split('?')[0] ?? '').slice(0, JOURNAL_PATH_LENGTH));
        app(req, res);
      };
    },
    draining: () => draining,
    drain(server, drainMs) {
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve('timed out');
        }, drainMs);
        server.close(() => {
          clearTimeout(timer);
          resolve('drained');
        });
        // Kept-alive connections with nothing in flight end now; busy ones after their answer (Connection: close).
        server.closeIdleConnections();
      });
    },
  };
}
