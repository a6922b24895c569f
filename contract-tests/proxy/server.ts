// The validation proxy: forwards every request unchanged to the target and passes the answer back unchanged
// (forward-request.ts), and checks each exchange of an operation of the spec with the suite's core (check.ts). An
// answer that broke the contract gets `X-Contract-Violations: <count>`; the exchange goes to the log (log.ts) with the
// request as a curl line whose tokens are $VARIABLES (file-exchange.ts). `/__proxy/violations`, `/__proxy/summary`
// and `POST /__proxy/reset` are the proxy's own (control-endpoints.ts). No console output here: `onViolation` is the
// caller's (main.ts prints). This file composes the parts: the Host check, the request target, the routing.
import { createServer, type Server } from 'node:http';
import { misdirected } from '../../mock/src/core/guard.ts';
import { RequestIds } from '../model/headers.ts';
import { RecordMemory } from '../model/memory.ts';
import { operationModels } from '../model/profiles.ts';
import type { RawRequest } from '../model/predict.ts';
import type { Received } from './check.ts';
import { BaselineReads } from './baseline-reads.ts';
import { answerControl } from './control-endpoints.ts';
import { endToEnd } from './end-to-end.ts';
import { createFiling } from './file-exchange.ts';
import { forwardRequest } from './forward-request.ts';
import { TokenKnowledge } from './knowledge.ts';
import { DEFAULT_CAPACITY, DEFAULT_MAX_BYTES, ViolationLog, type Entry } from './log.ts';
import { MockTarget } from './mock-target.ts';
import { sessionOf } from './scope-of.ts';
import { sendJson } from './send-answer.ts';
import { createUpstream } from './upstream.ts';

export { VIOLATIONS_HEADER } from './send-answer.ts';
export const DEFAULT_MAX_BODY = 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;

export type ProxyOptions = {
  /** The server to check: an origin, optionally with a path prefix (requests are forwarded under it). */
  target: string;
  knowledge?: TokenKnowledge;
  /** Exchanges with violations kept for GET /__proxy/violations (the oldest go first). */
  capacity?: number;
  /** The most bytes those exchanges take (the oldest go first; at least log.ts's MIN_MAX_BYTES). */
  maxLogBytes?: number;
  /** Bodies up to this size are checked; larger ones are forwarded unchecked. */
  maxBodyBytes?: number;
  /** An answer that has not come within this time is a 504 and a violation. */
  timeoutMs?: number;
  /** Called with each exchange that broke the contract (already free of tokens). */
  onViolation?: (entry: Entry) => void;
  /**
   * The Host values answered, given the port listened on (mock/src/server/hosts.ts): any other Host gets 421, before
   * anything is forwarded (a DNS-rebinding page cannot reach the target through the proxy). Unset: any Host.
   */
  allowedHosts?: (port: number) => ReadonlySet<string>;
  /** Every credential the run holds (the --tokens file's), and the variable shown instead: masked in all output. */
  secrets?: ReadonlyArray<readonly [string, string]>;
  /** Each complete exchange forwarded (not /__proxy/ calls), as checked: `proxy --record` (har/recorder.ts). */
  onExchange?: (request: RawRequest, received: Received) => void;
};

export type ValidationProxy = {
  server: Server;
  log: ViolationLog;
  knowledge: TokenKnowledge;
  /** Listens; resolves with the proxy's URL. */
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
  /** The JUnit report of everything seen since the start (or the last reset). */
  junit(): string;
};

/**
 * The path and query of a request target: an absolute-form target (`GET http://other.example/x HTTP/1.1`, RFC 9112
 * §3.2.2) is read for its path and query and forwarded in origin form to --target, so the request line never names
 * another host upstream; undefined for one that is neither a path nor an http(s) URL.
 */
function originForm(requestTarget: string): string | undefined {
  if (requestTarget.startsWith('/')) return requestTarget;
  try {
    const absolute = new URL(requestTarget);
    return /^https?:$/.test(absolute.protocol) ? `${absolute.pathname}${absolute.search}` : undefined;
  } catch {
    return undefined;
  }
}

export function createValidationProxy(options: ProxyOptions): ValidationProxy {
  const upstream = createUpstream(options.target);
  const knowledge = options.knowledge ?? new TokenKnowledge();
  const log = new ViolationLog(options.capacity ?? DEFAULT_CAPACITY, options.maxLogBytes ?? DEFAULT_MAX_BYTES);
  /** Each record's last answer per caller and mock session, for the left-alone rule. */
  const memory = new RecordMemory();
  /** The request ids of the answers forwarded (bounded): no two may share one. */
  const requestIds = new RequestIds();
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { origin } = upstream;
  const operations = operationModels().map((o) => o.operationId);
  const baselines = new BaselineReads({ upstream, knowledge, memory, bounds: { maxBytes: maxBody, timeoutMs } });
  const mockTarget = new MockTarget(upstream, { maxBytes: maxBody, timeoutMs });
  const filed = createFiling({ origin, knowledge, log, memory, requestIds, secrets: options.secrets, onViolation: options.onViolation, mockTarget });
  const { onExchange } = options;
  const filing: typeof filed = onExchange
    ? {
        ...filed,
        file: (request, received, notes) => {
          onExchange(request, received);
          return filed.file(request, received, notes);
        },
      }
    : filed;
  const forwarding = { upstream, knowledge, log, filing, maxBody, timeoutMs, mockTarget };
  const control = {
    origin,
    log,
    knowledge,
    reset(): void {
      log.reset();
      knowledge.forget();
      memory.forget();
      requestIds.forget();
      baselines.clear();
      mockTarget.forget();
    },
  };

  let hosts: ReadonlySet<string> | undefined;
  const server = createServer((req, res) => {
    const host = req.headers.host;
    if (hosts && host !== undefined && !hosts.has(host.toLowerCase())) {
      const refused = misdirected(host, hosts, 'This proxy');
      sendJson(res, refused.status, refused.body);
      return;
    }
    if (req.url !== undefined && !req.url.startsWith('/')) {
      const path = originForm(req.url);
      if (path === undefined) {
        sendJson(res, 400, {
          error: 'Bad request',
          message: `the request target ${JSON.stringify(req.url.slice(0, 100))} is neither a path nor an http(s) URL`,
        });
        return;
      }
      req.url = path;
    }
    const url = new URL(req.url ?? '/', 'http://proxy.invalid');
    if (url.pathname === '/__proxy' || url.pathname.startsWith('/__proxy/')) return answerControl(req, res, url, control);
    // A mock control that changes state (a reset, a new fixture) changes records unseen: their last answers go.
    if (url.pathname.startsWith('/__mock/') && req.method !== 'GET' && req.method !== 'HEAD') {
      const prefixOfSession = `${sessionOf(endToEnd(req.rawHeaders))} `;
      memory.forget(prefixOfSession);
      baselines.forget(prefixOfSession);
    }
    // The request waits (its body unread, so the client is held back by TCP) while the baselines are read.
    void baselines.read(req, url.pathname).then((notes) => forwardRequest(req, res, notes, forwarding));
  });
  server.keepAliveTimeout = 65_000;

  return {
    server,
    log,
    knowledge,
    listen: (port, host = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address();
          if (address === null || typeof address === 'string') return reject(new Error(`the proxy listens on ${String(address)}, not a TCP port`));
          hosts = options.allowedHosts?.(address.port);
          resolve(`http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`);
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        upstream.agent.destroy();
      }),
    junit: () => log.junit(origin, operations),
  };
}
