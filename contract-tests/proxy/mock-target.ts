// Whether the target is this package's mock: what lets a rehearsed answer (X-Mock-Rehearsal, model/rehearsal.ts) be
// excused. Learned only from the mock's own fixtures document: an answer to GET /__mock/fixtures that passed through
// the proxy, or, the first time an answer carries the mark before the proxy knows, one bounded read of the target's
// GET /__mock/fixtures (a production server answers it 404). Until then, and for any other target, the mark excuses
// nothing and is itself a violation.
import { REHEARSAL_HEADER } from '../model/rehearsal.ts';
import { readBounded, type Bounds } from './body.ts';
import { parseFixtures } from './knowledge.ts';
import type { Upstream } from './upstream.ts';

const FIXTURES_ROUTE = /^\/__mock\/fixtures\/?$/i;

export class MockTarget {
  readonly #upstream: Upstream;
  readonly #bounds: Bounds;
  /** true: the target answered with the mock's fixtures; false: it was asked and did not; undefined: not known yet. */
  #known: boolean | undefined;
  #asking: Promise<void> | undefined;

  constructor(upstream: Upstream, bounds: Bounds) {
    this.#upstream = upstream;
    this.#bounds = bounds;
  }

  /** Whether the target showed it is this package's mock. */
  get known(): boolean {
    return this.#known === true;
  }

  /** Learns from an answer that passed through the proxy: the mock's fixtures document for GET /__mock/fixtures. */
  learn(method: string, url: string, status: number, body: Buffer): void {
    const path = url.split('?')[0] ?? '';
    const under = this.#upstream.prefix && path.startsWith(this.#upstream.prefix) ? path.slice(this.#upstream.prefix.length) : path;
    if (this.#known === true || method !== 'GET' || status !== 200 || !FIXTURES_ROUTE.test(under)) return;
    if (parseFixtures(body.toString('utf8')).ok) this.#known = true;
  }

  /**
   * Settles when the question an answer raises is answered: an answer marked X-Mock-Rehearsal from a target not known
   * yet makes the proxy read GET /__mock/fixtures once (bounded by --max-body-bytes and --timeout); nothing otherwise.
   */
  settle(headers: Readonly<Record<string, string>>): Promise<void> | undefined {
    if (headers[REHEARSAL_HEADER] === undefined || this.#known !== undefined) return undefined;
    this.#asking ??= this.#ask();
    return this.#asking;
  }

  async #ask(): Promise<void> {
    const { target, prefix, agent, send } = this.#upstream;
    const read = await readBounded(
      send,
      {
        host: target.hostname,
        port: target.port,
        method: 'GET',
        path: `${prefix}/__mock/fixtures`,
        headers: { host: target.host, accept: 'application/json', 'accept-encoding': 'identity' },
        agent,
        setHost: false,
      },
      this.#bounds,
    );
    // A failed read decides nothing for good: the next marked answer asks again.
    if (!read.ok) {
      this.#asking = undefined;
      return;
    }
    if (this.#known === undefined) this.#known = read.status === 200 && parseFixtures(read.body.toString('utf8')).ok;
  }

  /** Forgets what was learned (POST /__proxy/reset). */
  forget(): void {
    this.#known = undefined;
    this.#asking = undefined;
  }
}
