// The suite's HTTP client: sends exactly the headers it is given (fetch would add a Content-Type and an Accept of
// its own), bounds every exchange with a timeout, and turns each request into a curl line that reproduces it.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ApiRequest, ApiResponse, Exchange } from '../model/exchange.ts';
import { isPrintable } from '../../spec/lib/violations.ts';

export type { ApiRequest, ApiResponse, Exchange };

/** The server did not answer within the configured time. */
export class RequestTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestTimeout';
  }
}

/** The request failed below HTTP (refused, reset, DNS, TLS). */
/**
 * The most the suite reads of one answer: an operation's documented answers are a few KB (the largest, a closed goal
 * with its projects, about 20 KB), so anything near this is no answer of the API. A larger one is stopped there and
 * fails its test as `response.too-large`, never read into memory whole.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export class TransportError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined) {
    super(message);
    this.name = 'TransportError';
    this.code = code;
  }
}

export type ClientOptions = {
  baseUrl: string;
  timeoutMs: number;
  /** Secret values (tokens) by the variable that holds them: curl lines show `$VARIABLE`, never the secret. */
  secrets?: ReadonlyMap<string, string>;
  /**
   * A harmless request that any live server answers at once. After a timeout it is sent to tell a request the server
   * will not answer (that test fails, the run goes on) from a server that answers nothing any more: then requests
   * fail at once, except one let through every few seconds to see whether it is back.
   */
  probe?: ApiRequest;
};

export type Client = {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  send(request: ApiRequest): Promise<ApiResponse>;
  curl(request: ApiRequest): string;
};

function headersOf(message: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const value = raw[i + 1] ?? '';
    out[name] = Object.hasOwn(out, name) ? `${out[name]}, ${value}` : value;
  }
  return out;
}

function describeError(error: unknown): { message: string; code: string | undefined } {
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return { message: code && !message.includes(code) ? `${code}: ${message}` : message, code };
}

export function createClient(options: ClientOptions): Client {
  const base = new URL(options.baseUrl);
  const secure = base.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 8 }) : new HttpAgent({ keepAlive: true, maxSockets: 8 });
  /** Set while the server answers nothing at all: when that was noticed. */
  let hungSince: number | undefined;
  let lastAttempt = 0;
  const retryEvery = Math.max(2000, options.timeoutMs);

  function once(request: ApiRequest): Promise<{ response: ApiResponse } | { retry: true }> {
    const url = new URL(`${options.baseUrl}${request.path}`);
    const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name] = typeof value === 'string' ? value : [...value];
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) headers['content-length'] = String(body.length);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const send = secure ? httpsRequest : httpRequest;
      const req = send(url, { method: request.method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            const error = new TransportError(
              `response.too-large: the answer to ${request.method} ${url.pathname} passed ${MAX_RESPONSE_BYTES} bytes, the most the suite reads (the API's documented answers are a few KB); it was not read further`,
              'ETOOLARGE',
            );
            fail(error);
            req.destroy(error);
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (error) => fail(error));
        res.on('end', () => {
          clearTimeout(timer);
          const bytes = Buffer.concat(chunks);
          resolve({
            response: {
              status: res.statusCode ?? 0,
              headers: headersOf(res),
              text: bytes.toString('utf8'),
              bytes,
              durationMs: Math.round(performance.now() - started),
            },
          });
        });
      });
      let settled = false;
      const fail = (error: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const { message, code } = describeError(error);
        // A kept-alive socket the server closed meanwhile: send once more on a fresh one.
        if (req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) resolve({ retry: true });
        else
          reject(
            error instanceof RequestTimeout || error instanceof TransportError
              ? error
              : new TransportError(`${request.method} ${url.href} failed: ${message}`, code),
          );
      };
      const timer = setTimeout(() => {
        const timeout = new RequestTimeout(`no complete response to ${request.method} ${url.pathname} within ${options.timeoutMs} ms (CONTRACT_TIMEOUT_MS)`);
        fail(timeout);
        req.destroy(timeout);
      }, options.timeoutMs);
      req.on('error', fail);
      if (body !== undefined) req.end(body);
      else req.end();
    });
  }

  async function exchange(request: ApiRequest): Promise<ApiResponse> {
    let result = await once(request);
    if ('retry' in result) result = await once(request);
    if ('retry' in result) throw new TransportError(`${request.method} ${request.path} failed: the connection was reset twice`, 'ECONNRESET');
    return result.response;
  }

  async function sendRequest(request: ApiRequest): Promise<ApiResponse> {
    if (hungSince !== undefined && performance.now() - lastAttempt < retryEvery) {
      throw new RequestTimeout(
        `not sent: the server has answered nothing for ${Math.round((performance.now() - hungSince) / 1000)} s (not even a request without a token); it looks hung`,
      );
    }
    lastAttempt = performance.now();
    try {
      const response = await exchange(request);
      hungSince = undefined;
      return response;
    } catch (error) {
      if (error instanceof RequestTimeout && hungSince === undefined && options.probe) {
        // Does the server still answer anything? If not, stop waiting on it for every request.
        try {
          await exchange(options.probe);
        } catch (probeError) {
          if (probeError instanceof RequestTimeout) hungSince = lastAttempt;
        }
      }
      throw error;
    }
  }

  return {
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs,
    send: sendRequest,
    curl: (request) => curlLine(options.baseUrl, request, options.secrets ?? new Map()),
  };
}

/**
 * A text as bash's ANSI-C quoting (`$'…'`): what a curl line holds from outside that is no printable text (a newline or
 * an ESC in a body or a header) stays the same bytes when the line is run, and is never printed raw (a forged line in
 * a CI log, a live ANSI sequence).
 */
const ANSI_C_NAMES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const ansiC = (text: string): string =>
  `$'${[...text]
    .map((c) => {
      if (c === '\\' || c === "'") return `\\${c}`;
      if (isPrintable(c)) return c;
      const named = ANSI_C_NAMES[c];
      if (named !== undefined) return named;
      const code = c.codePointAt(0) ?? 0;
      return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    })
    .join('')}'`;
const singleQuoted = (text: string): string => (isPrintable(text) ? `'${text.replaceAll("'", `'\\''`)}'` : ansiC(text));
const doubleQuoted = (text: string): string => {
  const quoted = `"${text.replace(/["\\`$]/g, (c) => `\\${c}`)}"`;
  // An unprintable character leaves the double quotes for an ANSI-C quoted piece: "a"$'\x1b'"b".
  // (NUL is curlLine's own marker around a secret's variable, replaced after.)
  return isPrintable(quoted) ? quoted : [...quoted].map((c) => (c === '\u0000' || isPrintable(c) ? c : `"${ansiC(c)}"`)).join('');
};

/** A curl command that sends the same request; secrets appear as `$VARIABLE` (set them in your shell to replay). */
export function curlLine(baseUrl: string, request: ApiRequest, secrets: ReadonlyMap<string, string>): string {
  const parts = ['curl', '-sS', '-i', '-X', request.method, singleQuoted(`${baseUrl}${request.path}`)];
  const names = Object.keys(request.headers).map((h) => h.toLowerCase());
  const each = Object.entries(request.headers).flatMap(([name, value]) =>
    typeof value === 'string' ? [[name, value] as const] : value.map((v) => [name, v] as const),
  );
  for (const [name, value] of each) {
    let secretValue = value;
    let usesSecret = false;
    for (const [secret, variable] of secrets) {
      if (secret && secretValue.includes(secret)) {
        secretValue = secretValue.split(secret).join(`\u0000${variable}\u0000`);
        usesSecret = true;
      }
    }
    const header = `${name}: ${secretValue}`;
    parts.push('-H', usesSecret ? doubleQuoted(header).replace(/\u0000(\w+)\u0000/g, '$$$1') : singleQuoted(header));
  }
  if (request.body !== undefined && !names.includes('content-type')) parts.push('-H', singleQuoted('Content-Type:'));
  if (!names.includes('accept')) parts.push('-H', singleQuoted('Accept:'));
  if (request.body !== undefined) {
    const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) parts.push('--data-binary', singleQuoted(text));
    else return `printf '${[...bytes].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}' | ${parts.join(' ')} --data-binary @-`;
  }
  return parts.join(' ');
}
