// The rules every answer's headers keep, whatever its status (RULES.md#headers): the suite applies them to each
// exchange it sends, the validation proxy to each one it forwards. What the spec documents per status (the
// Cache-Control value, the form of an x-request-id) is the spec's check (spec/lib/conformance.ts); these are the rules across
// answers and across headers: a fresh request id per answer, no answer a shared cache may store, no authentication
// challenge, one copy of each header production sends once.
import { violation, type Violation } from '../../spec/lib/violations.ts';

/** Headers production sends at most once per answer (a repeat is another server's doing: RULES.md#headers). */
const SINGLE = ['content-type', 'cache-control', 'x-request-id'] as const;

/** How many request ids are remembered (the oldest forgotten first): a run of the suite sends a few thousand. */
const REQUEST_IDS_KEPT = 20_000;

/** The request ids of the answers seen so far, bounded: no two answers may share one. */
export class RequestIds {
  readonly #seen = new Map<string, string>();
  readonly #capacity: number;

  constructor(capacity = REQUEST_IDS_KEPT) {
    this.#capacity = capacity;
  }

  /** Where `id` was seen before (the earlier answer's description), and remembers it for `where` now. */
  seen(id: string, where: string): string | undefined {
    const earlier = this.#seen.get(id);
    if (earlier === undefined) {
      this.#seen.set(id, where);
      if (this.#seen.size > this.#capacity) {
        const oldest = this.#seen.keys().next().value;
        if (oldest !== undefined) this.#seen.delete(oldest);
      }
    }
    return earlier;
  }

  forget(): void {
    this.#seen.clear();
  }
}

/** Whether a joined header value (repeats are joined with ", ") is two or more copies of one value. */
function repeated(value: string): boolean {
  const parts = value.split(', ');
  for (let copies = 2; copies <= parts.length; copies++) {
    if (parts.length % copies !== 0) continue;
    const size = parts.length / copies;
    const first = parts.slice(0, size).join(', ');
    if (Array.from({ length: copies }, (_, i) => parts.slice(i * size, (i + 1) * size).join(', ')).every((p) => p === first)) return true;
  }
  return false;
}

/** Whether a Cache-Control value lets a shared cache store the answer (RFC 9111 §5.2.2: `private` or `no-store` forbid it). */
function sharedCacheable(value: string | undefined): boolean {
  if (value === undefined) return true;
  const directives = value.split(',').map((d) => d.trim().toLowerCase().split('=')[0] ?? '');
  if (directives.includes('public') || directives.includes('s-maxage')) return true;
  return !directives.includes('private') && !directives.includes('no-store');
}

/**
 * The header rules of one answer. `where` describes it for a later message ("401 to POST /…"); `ids` is the run's (or
 * the proxy's) memory of request ids; `sent` the x-request-id the request itself carried, if any (Plug.RequestId keeps
 * a client's id of 20-200 characters, so a client that repeats its own id gets it back: not the server's doing).
 */
export function headerRules(status: number, headers: Readonly<Record<string, string | undefined>>, ids: RequestIds, where: string, sent?: string): Violation[] {
  const out: Violation[] = [];
  const challenge = headers['www-authenticate'];
  if (challenge !== undefined)
    out.push(
      violation(
        ['response', 'header', 'www-authenticate'],
        'header.challenge',
        `production sends no authentication challenge (a browser would open a login dialog; RULES.md#headers); got WWW-Authenticate ${JSON.stringify(challenge)}`,
      ),
    );
  const cacheControl = headers['cache-control'];
  if (sharedCacheable(cacheControl))
    out.push(
      violation(
        ['response', 'header', 'cache-control'],
        'header.cacheable',
        `${status >= 400 ? 'an error answer' : 'an answer'} must never be stored by a shared cache: production sends Cache-Control "private" on every answer (RULES.md#headers); got ${cacheControl === undefined ? 'no Cache-Control' : JSON.stringify(cacheControl)}`,
      ),
    );
  for (const name of SINGLE) {
    const value = headers[name];
    if (value !== undefined && repeated(value))
      out.push(
        violation(
          ['response', 'header', name],
          'header.repeated',
          `production sends ${name} once; it came repeated: ${JSON.stringify(value)} (RULES.md#headers)`,
        ),
      );
  }
  const id = headers['x-request-id'];
  if (id !== undefined && id !== sent) {
    const earlier = ids.seen(id, `${status} to ${where}`);
    if (earlier !== undefined)
      out.push(
        violation(
          ['response', 'header', 'x-request-id'],
          'header.request-id-reused',
          `every answer has a fresh x-request-id (RULES.md#headers); ${JSON.stringify(id)} was already the id of an earlier answer (${earlier})`,
        ),
      );
  }
  return out;
}
