// The HAR masker: an exchange becomes a HAR entry with no credential left in it, through the one masker (io/mask.ts:
// every form it knows, raw, URL-encoded, base64, hex, in any case). The credential of an Authorization header keeps
// its place and its scheme (so `Bearer\t<token>` is still read as production reads it) and gets a name: a token the
// --tokens file gives becomes `$<persona>` (`Bearer $full_access`), any other `$token-<n>` (the same token, the same n,
// within a recording; only keyed digests are kept, never the token). Whether `token-<n>` was in production's form is
// noted in the log (`_tokens`), so that drift reads the request as the service did. Other credential-like headers,
// cookies and query parameters are masked as the masker names them; a JSON body is masked inside its strings only,
// so it stays the JSON it was.
import { createHmac, randomBytes } from 'node:crypto';
import { createMasker, type Masker } from '../io/mask.ts';
import { TOKEN_FORM } from '../model/fixtures.ts';
import type { RawRequest } from '../model/predict.ts';
import type { HarEntry, HarHeader, Received } from './har.ts';

const AUTHORIZATION = /^(authorization|proxy-authorization)$/i;
/** Headers the masker may read a credential from (io/mask.ts's list, and more): part of the key of a cached masker. */
const CREDENTIAL_LIKE = /auth|cookie|token|key|secret|session|password|csrf|xsrf|signature/i;
const SCHEME = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*$/;

/** The credential words of an Authorization value: every word but a leading scheme. */
function credentialWords(value: string): string[] {
  const words = value
    .trim()
    .split(/[ \t]+/)
    .filter(Boolean);
  if (words.length > 1 && SCHEME.test(words[0] ?? '') && !TOKEN_FORM.test(words[0] ?? '')) words.shift();
  else if (words.length === 1 && /^(bearer|basic|token|digest|negotiate)$/i.test(words[0] ?? '')) return [];
  return words;
}

/** Masks a body: inside the strings of a JSON text only; any other text whole. */
function maskBody(masker: Masker, text: string): string {
  try {
    JSON.parse(text);
  } catch {
    return masker.mask(text);
  }
  const masked = text.replace(/"(?:[^"\\]|\\.)*"/g, (literal) => `"${masker.mask(literal.slice(1, -1))}"`);
  try {
    JSON.parse(masked);
    return masked;
  } catch {
    return masker.mask(text);
  }
}

/** Whether the bytes are UTF-8 text (they survive a round trip). */
const isText = (bytes: Buffer): boolean => Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);

export type ExchangeTiming = { started: Date; durationMs: number };

export class ExchangeMasker {
  #personas: ReadonlyArray<readonly [string, string]>;
  readonly #key = randomBytes(32);
  readonly #numbers = new Map<string, number>();
  /** `token-<n>` → whether it was in production's form. */
  readonly forms: Record<string, 'opk' | 'other'> = {};

  /** `personas`: each token the --tokens file gives and its persona. */
  constructor(personas: Iterable<readonly [string, string]> = []) {
    this.#personas = [...personas].filter(([token]) => token.length > 0);
  }

  /**
   * Tokens the traffic showed to be a persona's (the mock's GET /__mock/fixtures answer passing through): named by
   * their persona from then on, as if the --tokens file had given them.
   */
  learn(pairs: Iterable<readonly [string, string]>): void {
    const known = new Set(this.#personas.map(([token]) => token));
    const added = [...pairs].filter(([token]) => token.length > 0 && !known.has(token));
    if (added.length === 0) return;
    this.#personas = [...this.#personas, ...added];
    this.#maskers.clear();
  }

  /** The name shown for a credential: its persona, or `token-<n>`. */
  nameOf(word: string): string {
    const persona = this.#personas.find(([token]) => token === word)?.[1];
    if (persona !== undefined) return persona;
    const digest = createHmac('sha256', this.#key).update(word, 'utf8').digest('base64url');
    let n = this.#numbers.get(digest);
    if (n === undefined) {
      n = this.#numbers.size + 1;
      this.#numbers.set(digest, n);
      this.forms[`token-${n}`] = TOKEN_FORM.test(word) ? 'opk' : 'other';
    }
    return `token-${n}`;
  }

  /** Maskers by the credentials a request carries (a few tokens make most traffic): building one compiles its forms. */
  readonly #maskers = new Map<string, Masker>();

  /** A masker that knows the personas' tokens and every credential the request carries. */
  maskerFor(request: RawRequest): Masker {
    const key = JSON.stringify([
      request.headers.filter(([name]) => CREDENTIAL_LIKE.test(name)),
      request.url.slice(request.url.indexOf('?') + 1 || request.url.length),
    ]);
    const known = this.#maskers.get(key);
    if (known) return known;
    const masker = this.#build(request);
    if (this.#maskers.size >= 256) this.#maskers.delete(this.#maskers.keys().next().value ?? key);
    this.#maskers.set(key, masker);
    return masker;
  }

  #build(request: RawRequest): Masker {
    const masker = createMasker(this.#personas.map(([token, persona]) => [token, persona] as const));
    for (const [name, value] of request.headers) if (AUTHORIZATION.test(name)) for (const word of credentialWords(value)) masker.add(word, this.nameOf(word));
    masker.addFromRequest(
      request.headers.filter(([name]) => !AUTHORIZATION.test(name)),
      request.url,
    );
    return masker;
  }

  /** The exchange as a HAR entry, masked; `origin`: the target's origin and path prefix. */
  entry(origin: string, request: RawRequest, received: Received, timing: ExchangeTiming): HarEntry {
    const masker = this.maskerFor(request);
    const headers = (pairs: Iterable<readonly [string, string]>): HarHeader[] => [...pairs].map(([name, value]) => ({ name, value: masker.mask(value) }));
    const url = masker.mask(`${origin}${request.url}`);
    const query = url.indexOf('?');
    const queryString = query < 0 ? [] : [...new URLSearchParams(url.slice(query + 1))].map(([name, value]) => ({ name, value }));
    const requestHeaders = headers(request.headers);
    const contentType = request.headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1] ?? '';
    const entry: HarEntry = {
      startedDateTime: timing.started.toISOString(),
      time: Math.max(0, Math.round(timing.durationMs)),
      request: {
        method: request.method,
        url,
        httpVersion: 'HTTP/1.1',
        headers: requestHeaders,
        queryString,
        cookies: [],
        headersSize: -1,
        bodySize: request.body?.length ?? -1,
      },
      response: {
        status: received.status,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        headers: headers(Object.entries(received.headers)),
        cookies: [],
        content: { size: received.body.length, mimeType: received.headers['content-type'] ?? '' },
        redirectURL: '',
        headersSize: -1,
        bodySize: received.body.length,
      },
      cache: {},
      timings: { send: 0, wait: Math.max(0, Math.round(timing.durationMs)), receive: 0 },
    };
    if (request.body !== undefined && (request.body.length > 0 || contentType !== '')) {
      entry.request.postData = this.#body(masker, request.body, contentType);
    }
    const content = this.#body(masker, received.body, received.headers['content-type'] ?? '');
    entry.response.content = {
      size: received.body.length,
      mimeType: content.mimeType,
      text: content.text,
      ...(content.encoding ? { encoding: content.encoding } : {}),
    };
    return entry;
  }

  #body(masker: Masker, bytes: Buffer, mimeType: string): { mimeType: string; text: string; encoding?: string } {
    if (isText(bytes)) return { mimeType, text: maskBody(masker, bytes.toString('utf8')) };
    const base64 = bytes.toString('base64');
    // The masker knows every base64 form of a credential: a binary body that holds one is left out, not half masked.
    return masker.mask(base64) === base64 ? { mimeType, text: base64, encoding: 'base64' } : { mimeType, text: '', encoding: 'base64' };
  }
}
