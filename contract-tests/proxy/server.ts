// The validation proxy: forwards every request unchanged to the target (the body streamed as it arrives, over a
// keep-alive agent, no header added; hop-by-hop headers dropped and Host set to the target's), passes the answer back
// unchanged, and checks each exchange of an operation of the spec with the suite's core (check.ts). An answer that
// broke the contract gets `X-Contract-Violations: <count>`; the exchange goes to the log (log.ts) with the request as a
// curl line whose tokens are $VARIABLES. `/__proxy/violations`, `/__proxy/summary` and `POST /__proxy/reset` are the
// proxy's own. No console output here: `onViolation` is the caller's (main.ts prints).
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { curlLine } from '../lib/client.ts';
import { mediaTypeOf } from '../lib/conformance.ts';
import { operationModels } from '../lib/profiles.ts';
import { MOCK_SESSION_HEADER } from '../lib/target.ts';
import { firstHeader, tokenOf, type RawRequest } from '../lib/predict.ts';
import { createMasker } from '../lib/mask.ts';
import { RecordMemory } from '../lib/memory.ts';
import { excerpt, violation } from '../lib/violations.ts';
import { controlOriginAllowed, crossOrigin, misdirected } from '../../mock/src/guard.ts';
import { apiRequest, checkExchange, type FiledViolation, type Received } from './check.ts';
import { TokenKnowledge } from './knowledge.ts';
import { DEFAULT_CAPACITY, ViolationLog, type Entry } from './log.ts';

export const VIOLATIONS_HEADER = 'X-Contract-Violations';
export const DEFAULT_MAX_BODY = 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;

export type ProxyOptions = {
  /** The server to check: an origin, optionally with a path prefix (requests are forwarded under it). */
  target: string;
  knowledge?: TokenKnowledge;
  /** Exchanges with violations kept for GET /__proxy/violations (a ring buffer). */
  capacity?: number;
  /** Bodies up to this size are checked; larger ones are forwarded unchecked. */
  maxBodyBytes?: number;
  /** An answer that has not come within this time is a 504 and a violation. */
  timeoutMs?: number;
  /** Called with each exchange that broke the contract (already free of tokens). */
  onViolation?: (entry: Entry) => void;
  /**
   * The Host values answered, given the port listened on (mock/src/hosts.ts): any other Host gets 421, before
   * anything is forwarded (a DNS-rebinding page cannot reach the target through the proxy). Unset: any Host.
   */
  allowedHosts?: (port: number) => ReadonlySet<string>;
  /** Every credential the run holds (the --tokens file's), and the variable shown instead: masked in all output. */
  secrets?: ReadonlyArray<readonly [string, string]>;
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

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded in either direction. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function hopByHop(raw: ReadonlyArray<string>): Set<string> {
  const out = new Set(HOP_BY_HOP);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if ((raw[i] ?? '').toLowerCase() === 'connection') for (const name of (raw[i + 1] ?? '').split(',')) if (name.trim()) out.add(name.trim().toLowerCase());
  }
  return out;
}

/** Raw header pairs without the hop-by-hop ones. */
function endToEnd(raw: ReadonlyArray<string>): Array<[string, string]> {
  const skip = hopByHop(raw);
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (!skip.has(name.toLowerCase())) out.push([name, raw[i + 1] ?? '']);
  }
  return out;
}

function lowerJoined(pairs: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    out[lower] = Object.hasOwn(out, lower) ? `${out[lower]}, ${value}` : value;
  }
  return out;
}

const flat = (pairs: ReadonlyArray<readonly [string, string]>): string[] => pairs.flat();

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = `${JSON.stringify(value, null, 2)}\n`;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The proxy's own answer (502, 504): one line of plain text; `violations` counted in the header when there are some. */
function sendLine(res: ServerResponse, status: number, line: string, violations = 0): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${line}\n`;
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(violations > 0 ? { [VIOLATIONS_HEADER]: String(violations) } : {}),
  });
  res.end(body);
}

export function createValidationProxy(options: ProxyOptions): ValidationProxy {
  const target = new URL(options.target);
  const prefix = target.pathname.replace(/\/+$/, '');
  const secure = target.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const knowledge = options.knowledge ?? new TokenKnowledge();
  const log = new ViolationLog(options.capacity ?? DEFAULT_CAPACITY);
  /** Each record's last answer per caller and mock session, for the left-alone rule. */
  const memory = new RecordMemory();
  const operationPaths: ReadonlySet<string> = new Set(operationModels().map((o) => o.path));
  /**
   * Scopes whose fixture records were read from the mock before their first write, as many as the memory keeps
   * records (the oldest go first: a client inventing sessions cannot grow it); mockTarget false: the target is no mock.
   */
  const baselined = new Set<string>();
  let mockTarget = true;

  /** The mock session a request names ('' for none): the first X-Mock-Session header. */
  const sessionOf = (headers: RawRequest['headers']): string => firstHeader(headers, MOCK_SESSION_HEADER) ?? '';
  /** Whose view of the records an exchange is: the mock session and the caller (knowledge.ts scope). */
  const scopeOf = (headers: RawRequest['headers']): string => `${sessionOf(headers)} ${knowledge.scope(tokenOf(firstHeader(headers, 'authorization')))}`;

  /**
   * When the --tokens file is the mock's fixtures document (the target is this package's mock), before the first
   * write of a caller in a session: each fixture record as the write would answer it (GET /__mock/records/{id}?as=…,
   * nothing written), so that what the first write leaves alone is compared too. Against another target: nothing.
   */
  async function readBaselines(req: IncomingMessage, pathname: string): Promise<void> {
    if (!mockTarget || req.method !== 'POST' || !operationPaths.has(pathname)) return;
    const ids = knowledge.recordIds;
    const headers = endToEnd(req.rawHeaders);
    const token = tokenOf(firstHeader(headers, 'authorization'));
    const persona = token === undefined ? undefined : knowledge.who(token)?.persona;
    if (ids.length === 0 || persona === undefined) return;
    const session = sessionOf(headers);
    const scope = scopeOf(headers);
    if (baselined.has(scope)) return;
    baselined.add(scope);
    if (baselined.size > memory.capacity) baselined.delete(baselined.values().next().value ?? scope);
    await Promise.all(
      ids.map(
        (id) =>
          new Promise<void>((resolve) => {
            const view = send(
              {
                host: target.hostname,
                port: target.port,
                method: 'GET',
                path: `${prefix}/__mock/records/${encodeURIComponent(id)}?as=${persona}`,
                headers: { host: target.host, accept: 'application/json', ...(session ? { [MOCK_SESSION_HEADER]: session } : {}) },
                agent,
                setHost: false,
              },
              (res) => {
                const chunks: Buffer[] = [];
                res.on('data', (chunk: Buffer) => chunks.push(chunk));
                res.on('end', () => {
                  if (res.statusCode === 200) {
                    try {
                      memory.baseline(scope, JSON.parse(Buffer.concat(chunks).toString('utf8')));
                    } catch {
                      // Not the mock's answer: no baseline.
                    }
                  } else if (res.statusCode === 404) mockTarget = false;
                  resolve();
                });
                res.on('error', () => resolve());
              },
            );
            view.setTimeout(timeoutMs, () => view.destroy());
            view.on('error', () => resolve());
            view.end();
          }),
      ),
    );
  }
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const origin = `${target.origin}${prefix}`;
  const operations = operationModels().map((o) => o.operationId);

  /** Secrets of one request (the credential of each Authorization header, cookies) and what to show instead. */
  function secretsOf(request: RawRequest): Map<string, string> {
    const out = new Map<string, string>();
    for (const [name, value] of request.headers) {
      const lower = name.toLowerCase();
      if (lower === 'authorization') {
        const token = tokenOf(value);
        const credential =
          token ??
          value
            .trim()
            .slice(value.trim().indexOf(' ') + 1)
            .trim();
        if (credential) out.set(credential, token ? knowledge.variable(token) : 'CREDENTIALS');
      } else if (lower === 'cookie' || lower === 'x-api-key') {
        if (value) out.set(value, lower === 'cookie' ? 'COOKIE' : 'API_KEY');
      }
    }
    return out;
  }

  /** Replaces every secret in a text by $VARIABLE (secrets shorter than 8 characters only where they are whole words). */
  function scrub(text: string, secrets: ReadonlyMap<string, string>): string {
    let out = text;
    for (const [secret, variable] of secrets) {
      if (secret.length >= 8) out = out.split(secret).join(`$${variable}`);
    }
    return out;
  }

  function curl(request: RawRequest, secrets: ReadonlyMap<string, string>): string {
    const shown = apiRequest(request, new Set(['host', 'content-length', ...HOP_BY_HOP]));
    // Each secret becomes a placeholder curlLine knows as a secret, so it prints `$VARIABLE` inside double quotes.
    const placeholders = new Map<string, string>();
    let i = 0;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(shown.headers)) {
      const mask = (v: string): string => {
        let masked = v;
        for (const [secret, variable] of secrets) {
          if (!masked.includes(secret)) continue;
          const placeholder = `@@proxy-secret-${i++}@@`;
          placeholders.set(placeholder, variable);
          masked = masked.split(secret).join(placeholder);
        }
        return masked;
      };
      headers[name] = typeof value === 'string' ? mask(value) : value.map(mask);
    }
    const body = shown.body === undefined ? undefined : Buffer.isBuffer(shown.body) ? shown.body : Buffer.from(shown.body);
    const line = curlLine(
      origin,
      { ...shown, headers, ...(body && body.length > 16_384 ? { body: `${body.subarray(0, 16_384).toString('utf8')}…` } : {}) },
      placeholders,
    );
    return scrub(line, secrets);
  }

  function file(request: RawRequest, received: Received): { count: number; entry: Entry | undefined } {
    const checked = checkExchange(request, received, knowledge, { memory, coverage: log.coverage, scope: scopeOf(request.headers) });
    if (!checked) {
      log.unchecked();
      return { count: 0, entry: undefined };
    }
    learn(request, received, checked.prediction.stage, checked.prediction.who !== undefined);
    return logged(request, received, checked.operationId, checked.rules, checked.violations, checked.prediction.rule);
  }

  function logged(
    request: RawRequest,
    received: Received | undefined,
    operationId: string,
    rules: Parameters<ViolationLog['record']>[1],
    violations: ReadonlyArray<FiledViolation>,
    expected: string,
  ): { count: number; entry: Entry | undefined } {
    const errors = violations.filter((v) => v.severity === 'error').length;
    // Only an exchange that broke the contract is described (and kept): the rest is counted. Whatever it says that
    // came from the target goes through the one masker (lib/mask.ts): every token the run holds, in any form.
    const secrets = violations.length > 0 ? secretsOf(request) : new Map<string, string>();
    const masker = createMasker([...(options.secrets ?? []), ...secrets]);
    if (violations.length > 0) masker.addFromRequest(request.headers, request.url);
    const clean = (v: FiledViolation): FiledViolation => ({ ...v, message: masker.mask(v.message) });
    const entry = log.record(operationId, rules, violations.length > 0 ? violations.map(clean) : violations, () => {
      const response = received
        ? `${received.status} ${mediaTypeOf(received.headers['content-type']) ?? '(no Content-Type)'}, ${received.body.length} bytes: ${excerpt(received.body.toString('utf8'), 300)}`
        : 'none';
      return {
        at: new Date().toISOString(),
        method: request.method,
        path: masker.mask(request.url.split('?')[0] ?? request.url),
        status: received?.status ?? 0,
        request: masker.mask(curl(request, secrets)),
        response: masker.mask(response),
        expected: masker.mask(expected),
      };
    });
    if (entry) options.onViolation?.(entry);
    return { count: errors, entry };
  }

  /** A token the file does not name, answered with the read-only 403 or a 401 after the inputs passed, stays so. */
  function learn(request: RawRequest, received: Received, stage: string, known: boolean): void {
    if (known || (stage !== 'missing-fields' && stage !== 'record')) return;
    const token = tokenOf(firstHeader(request.headers, 'authorization'));
    if (token === undefined) return;
    const text = received.body.toString('utf8');
    if (received.status === 403 && text === 'Read-only API tokens cannot execute mutations') knowledge.learn(token, 'read_only');
    else if (received.status === 401 && text === 'Unauthorized') knowledge.learn(token, 'suspended');
  }

  function control(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const route = `${req.method ?? 'GET'} ${url.pathname.replace(/\/+$/, '')}`;
    if (route === 'GET /__proxy/violations') {
      const since = Number(url.searchParams.get('since') ?? '0');
      const entries = log.entries(Number.isInteger(since) && since > 0 ? since : 0);
      sendJson(res, 200, { target: origin, broken: log.broken, kept: entries.length, violations: entries });
    } else if (route === 'GET /__proxy/summary') {
      sendJson(res, 200, log.summary(origin, knowledge.learned));
    } else if (route === 'POST /__proxy/reset') {
      const origin = firstHeader(endToEnd(req.rawHeaders), 'origin');
      if (!controlOriginAllowed(origin, undefined)) {
        const refused = crossOrigin('POST', '/__proxy/reset', origin ?? '');
        sendJson(res, refused.status, refused.body);
        return;
      }
      log.reset();
      knowledge.forget();
      memory.forget();
      baselined.clear();
      sendJson(res, 200, { reset: true });
    } else if (['/__proxy/violations', '/__proxy/summary', '/__proxy/reset'].includes(url.pathname.replace(/\/+$/, ''))) {
      sendJson(res, 405, {
        error: 'Method not allowed',
        message: `${route} is not a proxy endpoint; use GET /__proxy/violations, GET /__proxy/summary or POST /__proxy/reset`,
      });
    } else {
      sendJson(res, 404, { error: 'Not found', message: 'the proxy serves GET /__proxy/violations, GET /__proxy/summary and POST /__proxy/reset' });
    }
  }

  function forward(req: IncomingMessage, res: ServerResponse): void {
    const requestHeaders = endToEnd(req.rawHeaders);
    const upstreamHeaders = requestHeaders.map(([n, v]): [string, string] => (n.toLowerCase() === 'host' ? [n, target.host] : [n, v]));
    if (!upstreamHeaders.some(([n]) => n.toLowerCase() === 'host')) upstreamHeaders.unshift(['Host', target.host]);
    const chunks: Buffer[] = [];
    let kept = 0;
    let complete = false;
    let tooLarge = false;
    let finished = false;

    const raw = (): RawRequest => ({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: requestHeaders,
      body: tooLarge ? undefined : Buffer.concat(chunks),
    });
    const timer = setTimeout(() => {
      if (finished) return;
      finished = true;
      upstream?.destroy();
      const request = raw();
      const checked = checkExchange(request, { status: 504, headers: {}, body: Buffer.alloc(0) }, knowledge);
      let count = 0;
      if (checked) {
        const v: FiledViolation = { ...violation(['response'], 'timeout', `the target did not answer within ${timeoutMs} ms (--timeout)`), rule: 'timeout' };
        count = logged(request, undefined, checked.operationId, ['timeout'], [v], checked.prediction.rule).count;
      } else log.upstreamError();
      sendLine(res, 504, `proxy: ${origin} did not answer ${req.method ?? 'GET'} ${req.url ?? '/'} within ${timeoutMs} ms`, count);
    }, timeoutMs);
    timer.unref();

    let upstream: ReturnType<typeof send> | undefined;
    const open = (retry: boolean): void => {
      const request = send({
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: `${prefix}${req.url ?? '/'}`,
        headers: flat(upstreamHeaders),
        agent,
        setHost: false,
      });
      upstream = request;
      request.on('response', (upstreamRes) => respond(upstreamRes));
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (finished) return;
        // A kept-alive socket the target closed meanwhile: once more on a fresh one, when the whole body is at hand.
        if (!retry && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE') && complete && !tooLarge) {
          open(true);
          upstream?.end(Buffer.concat(chunks));
          return;
        }
        finished = true;
        clearTimeout(timer);
        log.upstreamError();
        sendLine(res, 502, `proxy: cannot reach ${origin} (${error.code ?? error.message})`);
      });
    };
    open(false);

    let uploadWaits = false;
    req.on('data', (chunk: Buffer) => {
      if (!tooLarge) {
        kept += chunk.length;
        if (kept > maxBody) {
          tooLarge = true;
          chunks.length = 0;
        } else chunks.push(chunk);
      }
      // Backpressure: a target that reads slowly (or not at all) slows the client down, instead of the proxy
      // holding the upload in memory.
      // A chunk already read while paused writes without a second listener: one 'drain' resumes.
      const sink = upstream;
      if (sink && !sink.write(chunk) && !uploadWaits) {
        uploadWaits = true;
        req.pause();
        sink.once('drain', () => {
          uploadWaits = false;
          req.resume();
        });
      }
    });
    req.on('end', () => {
      complete = true;
      upstream?.end();
    });
    res.on('close', () => {
      if (!res.writableFinished) {
        finished = true;
        clearTimeout(timer);
        upstream?.destroy();
      }
    });

    function respond(upstreamRes: IncomingMessage): void {
      const headers = endToEnd(upstreamRes.rawHeaders);
      const status = upstreamRes.statusCode ?? 502;
      const body: Buffer[] = [];
      let size = 0;
      let streaming = false;
      /** Writes to the client; a client that reads slowly pauses the target's answer until it has drained. */
      let answerWaits = false;
      const pass = (chunk: Buffer): void => {
        if (!res.write(chunk) && !answerWaits) {
          answerWaits = true;
          upstreamRes.pause();
          res.once('drain', () => {
            answerWaits = false;
            upstreamRes.resume();
          });
        }
      };
      let oversize = 0;
      upstreamRes.on('data', (chunk: Buffer) => {
        if (finished) return;
        if (streaming) {
          pass(chunk);
          return;
        }
        size += chunk.length;
        body.push(chunk);
        if (size > maxBody) {
          // Too large to hold for the check: the rest streams through, and the answer is a violation that says so
          // (an operation's documented answers are a few KB), counted in the header sent now.
          streaming = true;
          const request = raw();
          const checked = checkExchange(request, { status, headers: lowerJoined(headers), body: Buffer.alloc(0) }, knowledge);
          if (checked) {
            const v: FiledViolation = {
              ...violation(
                ['response', 'body'],
                'response.too-large',
                `the answer is larger than the ${maxBody} bytes the proxy checks (--max-body-bytes); it was forwarded unchecked`,
              ),
              rule: 'size',
            };
            oversize = logged(
              request,
              { status, headers: lowerJoined(headers), body: Buffer.concat(body).subarray(0, 300) },
              checked.operationId,
              ['size'],
              [v],
              checked.prediction.rule,
            ).count;
          } else log.unchecked();
          res.writeHead(status, upstreamRes.statusMessage, flat(oversize > 0 ? [...headers, [VIOLATIONS_HEADER, String(oversize)]] : headers));
          for (const part of body.splice(0)) pass(part);
        }
      });
      upstreamRes.on('end', () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        if (streaming) {
          res.end();
          return;
        }
        const bytes = Buffer.concat(body);
        const { count } = file(raw(), { status, headers: lowerJoined(headers), body: bytes });
        const out = count > 0 ? [...headers, [VIOLATIONS_HEADER, String(count)] as [string, string]] : headers;
        res.writeHead(status, upstreamRes.statusMessage, flat(out));
        res.end(bytes);
      });
      upstreamRes.on('error', () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        log.upstreamError();
        sendLine(res, 502, `proxy: the answer from ${origin} broke off`);
      });
    }
  }

  let hosts: ReadonlySet<string> | undefined;
  const server = createServer((req, res) => {
    const host = req.headers.host;
    if (hosts && host !== undefined && !hosts.has(host.toLowerCase())) {
      const refused = misdirected(host, hosts, 'This proxy');
      sendJson(res, refused.status, refused.body);
      return;
    }
    // An absolute-form target (`GET http://other.example/x HTTP/1.1`, RFC 9112 §3.2.2) is read for its path and
    // query and forwarded in origin form to --target: the request line never names another host upstream.
    if (req.url !== undefined && !req.url.startsWith('/')) {
      let path: string | undefined;
      try {
        const absolute = new URL(req.url);
        path = /^https?:$/.test(absolute.protocol) ? `${absolute.pathname}${absolute.search}` : undefined;
      } catch {
        path = undefined;
      }
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
    if (url.pathname === '/__proxy' || url.pathname.startsWith('/__proxy/')) return control(req, res, url);
    // A mock control that changes state (a reset, a new fixture) changes records unseen: their last answers go.
    if (url.pathname.startsWith('/__mock/') && req.method !== 'GET' && req.method !== 'HEAD') {
      const prefixOfSession = `${sessionOf(endToEnd(req.rawHeaders))} `;
      memory.forget(prefixOfSession);
      for (const scope of baselined) if (scope.startsWith(prefixOfSession)) baselined.delete(scope);
    }
    // The request waits (its body unread, so the client is held back by TCP) while the baselines are read.
    void readBaselines(req, url.pathname).then(() => forward(req, res));
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
        agent.destroy();
      }),
    junit: () => log.junit(origin, operations),
  };
}
