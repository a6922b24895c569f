// A reply is what the mock answers, before it is framed: status, body and production's framing. Every reply passes
// `checkReply` (the response self-check against the spec) and is framed by `frameReply`, nowhere else.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { checkResponse } from '../../../spec/lib/conformance.ts';
import { loadDocument, type SchemaValidator } from '../../../spec/lib/openapi.ts';
import { errorsOf } from '../../../spec/lib/violations.ts';
import { contentTypes, texts } from '../../../spec/lib/messages.ts';
import { randomBytes, toBase64Url } from '../domain/digest.ts';
import type * as errors from './errors.ts';
import type { Fault } from './faults.ts';
import { isSelfCheckMode, SAMPLE_EVERY, SAMPLE_FIRST, SELF_CHECK_MODES, type SelfCheckMode } from '../limits.ts';
import { productionJson } from '../../../spec/lib/number-form.ts';

export type Reply = errors.ErrorReply | { code: 'OK'; status: 200; body: Record<string, unknown>; framing: 'json' };

export type ReplyOptions = {
  /** The operation the request reached, when it reached one: the reply is checked against its responses. */
  operationId?: string;
  /** Errors raised before the router (invalid JSON, 413, 406) are rendered from the entry connection: no request id. */
  entry?: boolean;
};

/** The media type a reply is documented under: plain-text and JSON bodies sent without a Content-Type included. */
function mediaTypeOf(reply: Reply): string {
  if (reply.framing === 'html') return 'text/html';
  return typeof reply.body === 'string' ? 'text/plain' : 'application/json';
}

/**
 * The self-check: what is wrong with a reply of an operation (its framed form when there is one), in one line each.
 * A reply that passes is answered at once; a failing one (or one checked before the validators have loaded) after
 * the detailed validator, loaded then, has said why.
 */
export type ReplyChecker = (reply: Reply, operationId: string | undefined, framed?: Framed) => string[] | Promise<string[]>;

type Verdicts = Readonly<Record<string, (data: unknown) => boolean>>;

let precompiled: Promise<Verdicts> | undefined;

/**
 * The validators `npm run generate` precompiled (generated/response-validators.js: valid or not, no compiler at
 * start-up), imported once per process, and not before a checker asks: a browser bundle loads them as a chunk of
 * their own while the app starts, after the entry's first line.
 */
function loadVerdicts(): Promise<Verdicts> {
  precompiled ??= import('../../../generated/response-validators.js').then((module) => module.validators);
  return precompiled;
}

/** Settles when the precompiled validators have loaded: with undefined, or with the error that kept them from loading. */
export function verdictsLoaded(): Promise<Error | undefined> {
  return loadVerdicts().then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
}

let detailed: Promise<SchemaValidator> | undefined;

/** Ajv's detailed validator (every error, spec/lib/ajv.ts), loaded and compiled only to explain a reply that fails. */
function loadDetailed(): Promise<SchemaValidator> {
  detailed ??= import('../../../spec/lib/ajv.ts').then(({ specValidator }) => specValidator(loadDocument()));
  return detailed;
}

/** What a precompiled verdict of "not valid" reads as, to the checker: an error, explained by the detailed validator. */
const NOT_VALID: ErrorObject[] = [{ instancePath: '', schemaPath: '', keyword: 'precompiled', params: {}, message: 'does not match the schema' }];

/**
 * Checks replies with the package's one response checker (spec/lib/conformance.ts): documented status, media type,
 * body schema and documented headers. Errors only (a warning, such as production's missing Content-Type on a
 * plain-text error, is what the spec says production does), each as one line naming where. With no validator given,
 * the precompiled verdicts decide and Ajv explains a failure.
 */
export function createReplyChecker(validator?: SchemaValidator): ReplyChecker {
  const check = (schemas: SchemaValidator, reply: Reply, operationId: string, framed: Framed | undefined): string[] => {
    // A reply checked before it is framed is checked as frameReply would send it (the headers of every answer).
    const wire = framed ?? frameReply(reply);
    const headers: Record<string, string> = {};
    for (const [name, value] of wire.headers) headers[name] = value;
    const text = wire.body;
    const violations = checkResponse(
      operationId,
      { status: reply.status, headers, text, body: reply.body },
      { validator: schemas, unknownFields: false, warnings: false },
    );
    const media = mediaTypeOf(reply);
    return errorsOf(violations).map((v) =>
      v.location[1] === 'body' ? `${operationId} ${reply.status} ${media}: /${v.location.slice(2).join('/')} ${v.message}` : v.message,
    );
  };
  if (validator) return (reply, operationId, framed) => (operationId ? check(validator, reply, operationId, framed) : []);
  let verdicts: Verdicts | undefined;
  const loading = loadVerdicts().then((loaded) => {
    verdicts = loaded;
  });
  // A load failure is the first check's to report, never an unhandled rejection.
  loading.catch(() => undefined);
  const quick: SchemaValidator = { validate: (pointer, value) => (verdicts?.[pointer]?.(value) === true ? [] : NOT_VALID) };
  return (reply, operationId, framed) => {
    if (!operationId) return [];
    if (verdicts && check(quick, reply, operationId, framed).length === 0) return [];
    return (async () => {
      await loading;
      if (check(quick, reply, operationId, framed).length === 0) return [];
      return check(await loadDetailed(), reply, operationId, framed);
    })();
  };
}

export { isSelfCheckMode, SAMPLE_EVERY, SAMPLE_FIRST, SELF_CHECK_MODES, type SelfCheckMode };

/**
 * The self-check of a mode: `always` checks every reply; `sample` the first SAMPLE_FIRST of each operation, status and
 * reply code (a fault every reply of a kind has is caught on its first), then one in SAMPLE_EVERY; `off` none.
 */
export function selfCheck(mode: SelfCheckMode, given?: ReplyChecker): ReplyChecker {
  if (!isSelfCheckMode(mode)) throw new TypeError(`selfCheck must be ${SELF_CHECK_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
  // Off loads nothing: no validators, no compiler (a page that runs the mock without a self-check pays for neither).
  if (mode === 'off') return () => [];
  const check = given ?? createReplyChecker();
  if (mode === 'always') return check;
  // Bounded: operations × documented statuses × the reply codes of errors.ts.
  const seen = new Map<string, number>();
  return (reply, operationId, framed) => {
    if (!operationId) return [];
    const key = `${operationId} ${reply.status} ${reply.code}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return count <= SAMPLE_FIRST || count % SAMPLE_EVERY === 0 ? check(reply, operationId, framed) : [];
  };
}

const CONTENT_TYPES = { ...contentTypes, none: undefined } as const;
const CACHE_CONTROL = texts.cacheControl;

// Request ids: a random per-process prefix and a counter, 20 characters like Plug.RequestId's.
const REQUEST_ID_PREFIX = toBase64Url(randomBytes(6));
let requestCounter = 0;
function requestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `${REQUEST_ID_PREFIX}${requestCounter.toString(36).padStart(12, '0')}`;
}

/** An answer as it goes on the wire: status, headers (lower-case names, in order) and the body text. */
/**
 * An answer as bytes go out. `fault` (faults.ts): no answer is sent at all, whatever `status` says (0): the adapter
 * drops the connection, at once or after holding it `holdMs`.
 */
export type Framed = { status: number; headers: Array<[string, string]>; body: string; fault?: Fault; holdMs?: number };

/**
 * Frames a reply as production does: no Content-Type where production sets none, JSON bytes in key order, numbers as
 * Jason writes them (spec/lib/number-form.ts: a float field's 70.0 as `70.0`).
 */
export function frameReply(reply: Reply, options: ReplyOptions = {}, headers: Array<[string, string]> = []): Framed {
  headers.push(['cache-control', CACHE_CONTROL]);
  if (!options.entry) headers.push(['x-request-id', requestId()]);
  const contentType = CONTENT_TYPES[reply.framing];
  if (contentType) headers.push(['content-type', contentType]);
  return { status: reply.status, headers, body: typeof reply.body === 'string' ? reply.body : productionJson(reply.body) };
}
