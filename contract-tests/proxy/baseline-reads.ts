// The baseline reads: when the --tokens file is the mock's fixtures document (the target is this package's mock),
// before the first write of a caller in a session, each fixture record as the write would answer it
// (GET /__mock/records/{id}?as=…, nothing written), so that what the first write leaves alone is compared too.
// Against another target (it answers such a read 404): nothing, from then on.
import type { IncomingMessage } from 'node:http';
import { firstHeader, tokenOf } from '../model/predict.ts';
import type { RecordMemory } from '../model/memory.ts';
import { operationModels } from '../model/profiles.ts';
import { MOCK_SESSION_HEADER } from '../io/target.ts';
import { violation } from '../../spec/lib/violations.ts';
import { readBounded, type Bounds } from './body.ts';
import type { FiledViolation } from './check.ts';
import { endToEnd } from './end-to-end.ts';
import type { TokenKnowledge } from './knowledge.ts';
import { scopeOf, sessionOf } from './scope-of.ts';
import type { Upstream } from './upstream.ts';

export type BaselineContext = {
  upstream: Upstream;
  knowledge: TokenKnowledge;
  /** Where the records read go (memory.baseline), and how many scopes are remembered (its capacity). */
  memory: RecordMemory;
  /** Each read is bounded like an answer: at most --max-body-bytes, within --timeout. */
  bounds: Bounds;
};

export class BaselineReads {
  readonly #context: BaselineContext;
  readonly #operationPaths: ReadonlySet<string> = new Set(operationModels().map((o) => o.path));
  /**
   * Scopes whose fixture records were read from the mock before their first write, as many as the memory keeps
   * records (the oldest go first: a client inventing sessions cannot grow it).
   */
  readonly #baselined = new Set<string>();
  /** false: the target is no mock. */
  #mockTarget = true;

  constructor(context: BaselineContext) {
    this.#context = context;
  }

  /** Reads the baselines a request needs, if any: a failed read is a warning for its exchange. */
  async read(req: IncomingMessage, pathname: string): Promise<FiledViolation[]> {
    const { upstream, knowledge, memory, bounds } = this.#context;
    if (!this.#mockTarget || req.method !== 'POST' || !this.#operationPaths.has(pathname)) return [];
    const ids = knowledge.recordIds;
    const headers = endToEnd(req.rawHeaders);
    const token = tokenOf(firstHeader(headers, 'authorization'));
    const persona = token === undefined ? undefined : knowledge.who(token)?.persona;
    if (ids.length === 0 || persona === undefined) return [];
    const session = sessionOf(headers);
    const scope = scopeOf(headers, knowledge);
    if (this.#baselined.has(scope)) return [];
    this.#baselined.add(scope);
    if (this.#baselined.size > memory.capacity) this.#baselined.delete(this.#baselined.values().next().value ?? scope);
    const { target, prefix, agent, send } = upstream;
    // Each read is bounded like an answer (body.ts): an endless or slow records answer costs at most --max-body-bytes
    // and --timeout, and the client's own request goes on either way, with the failed baseline as a warning.
    const reads = await Promise.all(
      ids.map(async (id) => {
        const path = `${prefix}/__mock/records/${encodeURIComponent(id)}?as=${persona}`;
        const read = await readBounded(
          send,
          {
            host: target.hostname,
            port: target.port,
            method: 'GET',
            path,
            headers: { host: target.host, accept: 'application/json', 'accept-encoding': 'identity', ...(session ? { [MOCK_SESSION_HEADER]: session } : {}) },
            agent,
            setHost: false,
          },
          bounds,
        );
        if (read.ok && read.status === 404) this.#mockTarget = false;
        if (read.ok && read.status !== 200) return undefined;
        if (read.ok) {
          try {
            memory.baseline(scope, JSON.parse(read.body.toString('utf8')));
            return undefined;
          } catch {
            return `GET ${path}: not JSON`;
          }
        }
        return `GET ${path}: ${read.message}`;
      }),
    );
    return reads
      .filter((failure) => failure !== undefined)
      .map((failure) => ({
        ...violation(
          ['request'],
          'left-alone.baseline',
          `the record was not read before the first write, so what that write leaves alone is not compared: ${failure}`,
          'warning',
        ),
        rule: 'left-alone' as const,
      }));
  }

  /** The scopes of one mock session (`prefix`: its name and a space) are read again before their next write. */
  forget(prefix: string): void {
    for (const scope of this.#baselined) if (scope.startsWith(prefix)) this.#baselined.delete(scope);
  }

  /** Every scope is read again before its next write. */
  clear(): void {
    this.#baselined.clear();
  }
}
