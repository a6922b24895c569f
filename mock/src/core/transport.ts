// The parts of HTTP the real service handles before its API code: content negotiation (Phoenix accepts/2 and
// render_errors), content types and body decoding (Plug.Parsers), form and query decoding (Plug.Conn.Query).
import { isObject } from '../../../spec/lib/openapi.ts';
import { memoized } from '../domain/memo.ts';

/** MIME extensions of the types that matter here (MIME.extensions/1). */
const EXTENSIONS: Record<string, string[]> = { 'application/json': ['json'], 'text/html': ['html', 'htm'] };

type MediaRange = { type: string; subtype: string; q: number };

function parseMediaRange(entry: string): MediaRange | undefined {
  const [range, ...params] = entry.split(';');
  const match = /^\s*([\w.+*-]+)\/([\w.+*-]+)\s*$/.exec(range ?? '');
  if (!match?.[1] || !match[2]) return undefined;
  let q = 1;
  for (const param of params) {
    const [key, value] = param.split('=').map((s) => s.trim());
    if (key === 'q' && value !== undefined && /^\d(\.\d+)?$/.test(value)) q = Number(value);
  }
  return { type: match[1].toLowerCase(), subtype: match[2].toLowerCase(), q };
}

function findFormat(range: MediaRange, accepted: ReadonlyArray<string>): string | undefined {
  if (range.type === '*' && range.subtype === '*') return accepted[0];
  if (range.subtype === '*')
    return accepted.find((format) => Object.entries(EXTENSIONS).some(([mime, exts]) => exts.includes(format) && mime.startsWith(`${range.type}/`)));
  const exts = EXTENSIONS[`${range.type}/${range.subtype}`] ?? [];
  return exts.find((ext) => accepted.includes(ext));
}

/**
 * The format Phoenix picks from an Accept header among `accepted`, or undefined when none fits: no header takes
 * the first; the first entry with q=1 that fits wins; otherwise the best of the rest by q (q=0 included).
 */
export function negotiate(accept: string | undefined, accepted: ReadonlyArray<string>): string | undefined {
  if (accept === undefined || accept.trim() === '') return accepted[0];
  const rest: Array<{ q: number; index: number; range: MediaRange }> = [];
  const entries = accept.split(',');
  for (const [index, entry] of entries.entries()) {
    const range = parseMediaRange(entry);
    if (!range) continue;
    const format = range.q === 1 ? findFormat(range, accepted) : undefined;
    if (format) return format;
    rest.push({ q: range.q, index, range });
  }
  rest.sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { range } of rest) {
    const format = findFormat(range, accepted);
    if (format) return format;
  }
  return undefined;
}

/** A pure function of one header value (or of its absence), remembered per value: clients repeat their headers. */
function perHeaderValue<T>(fn: (value: string | undefined) => T): (value: string | undefined) => T {
  const remembered = memoized(fn, { entries: 256, keyLength: 256 });
  return (value) => (value === undefined ? fn(undefined) : remembered(value));
}

/** Error views render JSON only when Accept picks json over html (render_errors.ex, formats [html, json]). */
export const errorViewIsJson = perHeaderValue((accept) => negotiate(accept, ['html', 'json']) === 'json');

/** Whether `plug :accepts, ["json"]` lets the request through. */
export const acceptsJson = perHeaderValue((accept) => negotiate(accept, ['json']) !== undefined);

export type BodyKind = 'json' | 'form' | 'multipart' | 'none' | 'unsupported';

/** How Plug.Parsers treats a Content-Type: JSON (`application/json`, `application/*+json`), forms, none, other. */
export const bodyKind = perHeaderValue(bodyKindOf);

function bodyKindOf(contentType: string | undefined): BodyKind {
  if (contentType === undefined) return 'none';
  const match = /^\s*([\w.+-]+)\/([\w.+-]+)\s*(;.*)?$/.exec(contentType);
  if (!match?.[1] || !match[2]) return 'unsupported';
  const type = match[1].toLowerCase();
  const subtype = match[2].toLowerCase();
  if (type === 'application' && (subtype === 'json' || subtype.endsWith('+json'))) return 'json';
  if (type === 'application' && subtype === 'x-www-form-urlencoded') return 'form';
  if (type === 'multipart' && (subtype === 'form-data' || subtype === 'mixed')) return 'multipart';
  return 'unsupported';
}

export type Params = Record<string, unknown>;

/**
 * Decodes `a=1&b[]=2&c[d]=3` as Plug.Conn.Query does: `b` a list, `c` a map, the last of repeated plain keys wins.
 * Objects are built with defineProperty semantics, so a `__proto__` key is an ordinary key.
 */
export function decodeQuery(text: string): Params {
  const out: Params = {};
  if (text === '') return out;
  const set = (target: Params, key: string, value: unknown): void => {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  };
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
    const base = match?.[1] ?? rawKey;
    const parts = match?.[2] ? [...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? '') : [];
    if (parts.length === 0) {
      set(out, base, value);
    } else if (parts.length === 1 && parts[0] === '') {
      const list = Object.hasOwn(out, base) && Array.isArray(out[base]) ? out[base] : [];
      list.push(value);
      set(out, base, list);
    } else {
      let target: Params = out;
      let key = base;
      for (const part of parts) {
        const next = Object.hasOwn(target, key) ? target[key] : undefined;
        const child: Params = isObject(next) ? next : {};
        set(target, key, child);
        target = child;
        key = part;
      }
      set(target, key, value);
    }
  }
  return out;
}

export type ParsedBody = { ok: true; params: Params } | { ok: false; tooLarge: boolean };

/**
 * The most JSON tokens (`{`, `[`, `,` and `:` outside strings) the mock parses in one body, or in one rich-text
 * document inside it; more is answered with production's 413, as a body over the byte limit is. Not production's limit
 * (its only one is 256 MB): what JSON.parse builds from a body can be twenty times its bytes (`[{},{},…]`), so bytes
 * alone do not bound the mock's memory. A 10,000-paragraph document has about 150,000 tokens.
 */
export const MAX_JSON_TOKENS = 500_000;
/** Likewise for a form body: at most this many `&`-separated pairs. */
const MAX_FORM_PAIRS = MAX_JSON_TOKENS;

/** Whether JSON text holds more than `limit` tokens (MAX_JSON_TOKENS), counted in one pass that stops past it. */
export function tooManyTokens(text: string, limit = MAX_JSON_TOKENS): boolean {
  let count = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if ((c === 0x7b || c === 0x5b || c === 0x2c || c === 0x3a) && ++count > limit) return true;
  }
  return false;
}

function tooManyPairs(text: string): boolean {
  let count = 0;
  for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1)) if (++count > MAX_FORM_PAIRS) return true;
  return false;
}

/**
 * Plug.Parsers at the endpoint: JSON (zero bytes is `{}`, a non-object top level goes under `_json`, invalid JSON or
 * UTF-8 fails), URL-encoded forms; no Content-Type means the body is ignored; other types are left unparsed here.
 * Multipart bodies are not decoded by the mock (their fields are ignored).
 */
// Decoders are stateless between whole-buffer decode() calls: one of each for every request. A byte-order mark is
// kept, as Jason and Plug keep the bytes they are given: before JSON it is invalid JSON (400), before a form it is part
// of the first key.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

export function parseBody(kind: BodyKind, body: Uint8Array): ParsedBody {
  if (kind === 'json') {
    if (body.length === 0) return { ok: true, params: {} };
    let value: unknown;
    try {
      const text = STRICT_UTF8.decode(body);
      if (tooManyTokens(text)) return { ok: false, tooLarge: true };
      value = JSON.parse(text);
    } catch {
      return { ok: false, tooLarge: false };
    }
    if (isObject(value)) return { ok: true, params: value };
    return { ok: true, params: { _json: value } };
  }
  if (kind === 'form') {
    const text = UTF8.decode(body);
    return tooManyPairs(text) ? { ok: false, tooLarge: true } : { ok: true, params: decodeQuery(text) };
  }
  return { ok: true, params: {} };
}

/** The query merged with the body parameters, the body winning (Plug.Parsers.merge_params). */
export function mergeParams(query: Params, body: Params): Params {
  const out: Params = {};
  for (const source of [query, body]) {
    for (const [key, value] of Object.entries(source)) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
