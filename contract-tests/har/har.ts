// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), as the proxy writes it (--record) and as drift and replay
// read it: from this package's proxy, from `redocly proxy`, or from a browser's "Save all as HAR" (extra fields,
// `_`-prefixed keys, base64 bodies with `content.encoding`, no postData, absolute URLs). Reading is bounded like every
// input from outside: the file's size, its nesting depth, the number of entries and the time spent; what is not HAR is
// refused with one line (HarError). An entry becomes the exchange the proxy's checks take (RawRequest + Received).
import type { RawRequest } from '../model/predict.ts';
import { operationModels } from '../model/profiles.ts';
import { FileReadError, readFileBounded } from '../../spec/lib/read-file.ts';

export type HarHeader = { name: string; value: string };
type HarPostData = { mimeType: string; text: string; encoding?: string };
type HarContent = { size: number; mimeType: string; text?: string; encoding?: string };
type HarRequest = {
  method: string;
  url: string;
  httpVersion: string;
  headers: HarHeader[];
  queryString: HarHeader[];
  cookies: HarHeader[];
  headersSize: number;
  bodySize: number;
  postData?: HarPostData;
};
type HarResponse = {
  status: number;
  statusText: string;
  httpVersion: string;
  headers: HarHeader[];
  cookies: HarHeader[];
  content: HarContent;
  redirectURL: string;
  headersSize: number;
  bodySize: number;
};
export type HarEntry = {
  startedDateTime: string;
  time: number;
  request: HarRequest;
  response: HarResponse;
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
};
/** `_tokens`: which masked credential (`token-3`) was a token in production's form ("opk"), which was not ("other"). */
export type HarLog = {
  version: string;
  creator: { name: string; version: string };
  entries: HarEntry[];
  _tokens?: Record<string, 'opk' | 'other'>;
  /** The fixture records and people of the --tokens file (ids, no token), so that drift knows what the proxy knew. */
  _fixtures?: { projects?: unknown; goals?: unknown; people?: unknown };
};
export type Har = { log: HarLog };

/** One exchange read from a HAR entry, as the proxy's checks take it. */
export type RecordedExchange = {
  index: number;
  startedDateTime: string;
  /** The URL as recorded (absolute). */
  url: string;
  request: RawRequest;
  received: Received;
};

/** An answer as the proxy's checks take it (proxy/check.ts Received): status, lower-case headers, decoded body. */
export type Received = { status: number; headers: Record<string, string>; body: Buffer };

export class HarError extends Error {}

export type HarBounds = { maxBytes: number; maxDepth: number; maxEntries: number; timeoutMs: number };
export const HAR_BOUNDS: HarBounds = { maxBytes: 256 * 1024 * 1024, maxDepth: 64, maxEntries: 200_000, timeoutMs: 30_000 };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The nesting depth of a JSON text (brackets outside strings), without parsing it. */
function depthOf(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

function headerList(value: unknown, where: string): HarHeader[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new HarError(`${where} is not a list of {name, value}`);
  return value.map((h, i) => {
    if (!isRecord(h) || typeof h['name'] !== 'string') throw new HarError(`${where}[${i}] has no name`);
    return { name: h['name'], value: typeof h['value'] === 'string' ? h['value'] : String(h['value'] ?? '') };
  });
}

/** Checks a parsed document is HAR and returns its entries as exchanges (unknown and `_` fields are ignored). */
function harFromJson(value: unknown, bounds: HarBounds = HAR_BOUNDS, started = performance.now()): { har: Har; exchanges: RecordedExchange[] } {
  if (!isRecord(value) || !isRecord(value['log'])) throw new HarError('is not HAR: no "log" object at the top');
  const log = value['log'];
  if (!Array.isArray(log['entries'])) throw new HarError('is not HAR: log.entries is not a list');
  if (log['entries'].length > bounds.maxEntries) throw new HarError(`has ${log['entries'].length} entries, more than the ${bounds.maxEntries} read`);
  const tokens: Record<string, 'opk' | 'other'> = {};
  if (isRecord(log['_tokens'])) for (const [k, v] of Object.entries(log['_tokens'])) if (v === 'opk' || v === 'other') tokens[k] = v;
  const entries: HarEntry[] = [];
  const exchanges: RecordedExchange[] = [];
  log['entries'].forEach((raw: unknown, index: number) => {
    if (performance.now() - started > bounds.timeoutMs) throw new HarError(`took longer than ${bounds.timeoutMs} ms to read`);
    const where = `log.entries[${index}]`;
    if (!isRecord(raw) || !isRecord(raw['request']) || !isRecord(raw['response'])) throw new HarError(`is not HAR: ${where} has no request and response`);
    const rq = raw['request'];
    const rs = raw['response'];
    if (typeof rq['method'] !== 'string' || typeof rq['url'] !== 'string') throw new HarError(`is not HAR: ${where}.request has no method and url`);
    const status = rs['status'];
    if (typeof status !== 'number' || !Number.isInteger(status)) throw new HarError(`is not HAR: ${where}.response.status is not a number`);
    const post = isRecord(rq['postData']) ? rq['postData'] : undefined;
    const content = isRecord(rs['content']) ? rs['content'] : {};
    const postData: HarPostData | undefined =
      post === undefined
        ? undefined
        : {
            mimeType: typeof post['mimeType'] === 'string' ? post['mimeType'] : '',
            text: typeof post['text'] === 'string' ? post['text'] : '',
            ...(typeof post['encoding'] === 'string' ? { encoding: post['encoding'] } : {}),
          };
    const entry: HarEntry = {
      startedDateTime: typeof raw['startedDateTime'] === 'string' ? raw['startedDateTime'] : '',
      time: typeof raw['time'] === 'number' ? raw['time'] : 0,
      request: {
        method: rq['method'],
        url: rq['url'],
        httpVersion: typeof rq['httpVersion'] === 'string' ? rq['httpVersion'] : 'HTTP/1.1',
        headers: headerList(rq['headers'], `${where}.request.headers`),
        queryString: headerList(rq['queryString'], `${where}.request.queryString`),
        cookies: [],
        headersSize: -1,
        bodySize: -1,
        ...(postData ? { postData } : {}),
      },
      response: {
        status,
        statusText: typeof rs['statusText'] === 'string' ? rs['statusText'] : '',
        httpVersion: typeof rs['httpVersion'] === 'string' ? rs['httpVersion'] : 'HTTP/1.1',
        headers: headerList(rs['headers'], `${where}.response.headers`),
        cookies: [],
        content: {
          size: typeof content['size'] === 'number' ? content['size'] : -1,
          mimeType: typeof content['mimeType'] === 'string' ? content['mimeType'] : '',
          ...(typeof content['text'] === 'string' ? { text: content['text'] } : {}),
          ...(typeof content['encoding'] === 'string' ? { encoding: content['encoding'] } : {}),
        },
        redirectURL: '',
        headersSize: -1,
        bodySize: -1,
      },
      cache: {},
      timings: { send: 0, wait: 0, receive: 0 },
    };
    entries.push(entry);
    exchanges.push(exchangeOf(entry, index));
  });
  const creator = isRecord(log['creator']) ? log['creator'] : {};
  return {
    har: {
      log: {
        version: typeof log['version'] === 'string' ? log['version'] : '1.2',
        creator: { name: String(creator['name'] ?? ''), version: String(creator['version'] ?? '') },
        entries,
        ...(Object.keys(tokens).length > 0 ? { _tokens: tokens } : {}),
        ...(isRecord(log['_fixtures']) ? { _fixtures: log['_fixtures'] } : {}),
      },
    },
    exchanges,
  };
}

/** Reads a HAR file within bounds; a file that cannot be read or is not HAR is a HarError of one line. */
export function readHar(file: string, bounds: HarBounds = HAR_BOUNDS): { har: Har; exchanges: RecordedExchange[] } {
  const started = performance.now();
  let text: string;
  try {
    text = readFileBounded(file, bounds.maxBytes, file, `is more than the ${bounds.maxBytes} bytes read`);
  } catch (error) {
    throw error instanceof FileReadError ? new HarError(error.reason) : error;
  }
  return harFromText(text.replace(/^\uFEFF/, ''), bounds, started);
}

/** Parses a HAR text within bounds. */
export function harFromText(text: string, bounds: HarBounds = HAR_BOUNDS, started = performance.now()): { har: Har; exchanges: RecordedExchange[] } {
  if (Buffer.byteLength(text) > bounds.maxBytes) throw new HarError(`is more than the ${bounds.maxBytes} bytes read`);
  if (depthOf(text, bounds.maxDepth) > bounds.maxDepth) throw new HarError(`nests deeper than ${bounds.maxDepth} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HarError(`is not HAR: not JSON (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  }
  return harFromJson(value, bounds, started);
}

/** A body as HAR stores it: text, or base64 with `encoding`. */
function bodyOf(text: string | undefined, encoding: string | undefined): Buffer {
  if (text === undefined) return Buffer.alloc(0);
  return encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
}

/** The operation's path when the recorded path ends with it (a target with a path prefix records it in the URL). */
function apiPath(pathname: string): string {
  const segments = pathname.split('/').filter(Boolean);
  for (const op of operationModels()) {
    const own = op.path.split('/').filter(Boolean);
    if (segments.length > own.length && segments.slice(-own.length).join('/') === own.join('/')) return op.path;
  }
  return pathname;
}

/** An entry as the exchange the proxy's checks take. */
function exchangeOf(entry: HarEntry, index: number): RecordedExchange {
  let url: URL;
  try {
    url = new URL(entry.request.url, 'http://recorded.invalid');
  } catch {
    throw new HarError(`log.entries[${index}].request.url is not a URL`);
  }
  const headers: Array<[string, string]> = entry.request.headers
    // HTTP/2 pseudo-headers (a browser's export) are not headers the service reads.
    .filter((h) => !h.name.startsWith(':'))
    .map((h) => [h.name, h.value]);
  const body = entry.request.postData ? bodyOf(entry.request.postData.text, entry.request.postData.encoding) : undefined;
  // The headers are what went over the wire: postData.mimeType and content.mimeType are not read in their place (a
  // recorder writes application/octet-stream for an answer that came without a Content-Type, as production's errors do).
  const responseHeaders: Record<string, string> = {};
  for (const h of entry.response.headers) {
    if (h.name.startsWith(':')) continue;
    const name = h.name.toLowerCase();
    responseHeaders[name] = responseHeaders[name] === undefined ? h.value : `${responseHeaders[name]}, ${h.value}`;
  }
  const content = entry.response.content;
  return {
    index,
    startedDateTime: entry.startedDateTime,
    url: entry.request.url,
    request: { method: entry.request.method.toUpperCase(), url: `${apiPath(url.pathname)}${url.search}`, headers, body: body ?? Buffer.alloc(0) },
    received: { status: entry.response.status, headers: responseHeaders, body: bodyOf(content.text, content.encoding) },
  };
}
