// A reply is what the mock answers, before it is written: status, body and production's framing. Every reply passes
// `checkReply` (the response self-check against the spec) and is written by `writeReply`, nowhere else.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Response } from 'express';
import { createSchemaValidator, documentedResponses, formatErrors, isObject, listOperations, loadDocument, responseSchemaPointer, type SchemaValidator } from '../../spec/lib/openapi.ts';
import * as errors from './errors.ts';

export type Reply = errors.ErrorReply | { code: 'OK'; status: 200; body: Record<string, unknown>; framing: 'json' };

export type ReplyOptions = {
  /** The operation the request reached, when it reached one: the reply is checked against its responses. */
  operationId?: string;
  /** Errors raised before the router (invalid JSON, 413, 406) are rendered from the entry connection: no request id. */
  entry?: boolean;
  /** The reply already passed the self-check (openapi-backend's postResponseHandler). */
  checked?: boolean;
};

/** The media type a reply is documented under: plain-text and JSON bodies sent without a Content-Type included. */
export function mediaTypeOf(reply: Reply): string {
  if (reply.framing === 'html') return 'text/html';
  return typeof reply.body === 'string' ? 'text/plain' : 'application/json';
}

export type ReplyChecker = (reply: Reply, operationId: string | undefined) => string[];

type Precompiled = { validate(pointer: string, value: unknown): boolean | undefined };

/**
 * The response validators `npm run generate` precompiled (generated/response-validators.cjs): no schema compilation at
 * start-up. `undefined` for a pointer it does not hold.
 */
function loadPrecompiled(): Precompiled {
  const module: unknown = createRequire(import.meta.url)('../../generated/response-validators.cjs');
  const table = isObject(module) ? module : {};
  const names = isObject(table['pointers']) ? table['pointers'] : {};
  return {
    validate(pointer, value) {
      const name = names[pointer];
      const fn = typeof name === 'string' ? table[name] : undefined;
      return typeof fn === 'function' ? Boolean(fn(value)) : undefined;
    },
  };
}

/**
 * A validator that answers "valid" from the precompiled code, and compiles the detailed one (every error) only for
 * a value that fails, or for a schema the precompiled code does not hold.
 */
function defaultValidator(): SchemaValidator {
  const precompiled = loadPrecompiled();
  let detailed: SchemaValidator | undefined;
  const slow = (): SchemaValidator => (detailed ??= createSchemaValidator(loadDocument(), { fastCompile: true }));
  return { validate: (pointer, value) => (precompiled.validate(pointer, value) === true ? [] : slow().validate(pointer, value)) };
}

/** Checks replies against generated/openapi.json: documented status, documented media type, body schema. */
export function createReplyChecker(validator: SchemaValidator = defaultValidator()): ReplyChecker {
  const document = loadDocument();
  const operations = new Map(listOperations(document).map((o) => [o.operationId, { pointer: o.pointer, documented: documentedResponses(document, o.pointer) }]));
  // The schema pointer of each (operation, status, media type), looked up once.
  const schemas = new Map<string, string | undefined>();
  return (reply, operationId) => {
    if (!operationId) return [];
    const operation = operations.get(operationId);
    if (!operation) return [`operation ${operationId} is not in the spec`];
    const mediaTypes = operation.documented.get(String(reply.status));
    if (!mediaTypes) return [`status ${reply.status} is not documented for ${operationId}; documented: ${[...operation.documented.keys()].join(', ')}`];
    const mediaType = mediaTypeOf(reply);
    const key = `${operationId} ${reply.status} ${mediaType}`;
    if (!schemas.has(key)) schemas.set(key, responseSchemaPointer(document, operation.pointer, reply.status, mediaType));
    const schema = schemas.get(key);
    if (!schema) return [`${mediaType} is not documented for ${operationId} ${reply.status}; documented: ${mediaTypes.join(', ')}`];
    const problems = validator.validate(schema, reply.body);
    return problems.length ? [`${key}: ${formatErrors(problems)}`] : [];
  };
}

const CONTENT_TYPES = { json: 'application/json; charset=utf-8', html: 'text/html; charset=utf-8', none: undefined } as const;

// Request ids: a random per-process prefix and a counter, 20 characters like Plug.RequestId's.
const REQUEST_ID_PREFIX = randomBytes(6).toString('base64url');
let requestCounter = 0;
function requestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `${REQUEST_ID_PREFIX}${requestCounter.toString(36).padStart(12, '0')}`;
}

/** Writes a reply as production frames it: no Content-Type where production sets none, JSON bytes in key order. */
export function writeReply(res: Response, reply: Reply, options: ReplyOptions = {}): void {
  const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.status(reply.status);
  res.setHeader('cache-control', 'max-age=0, private, must-revalidate');
  if (!options.entry) res.setHeader('x-request-id', requestId());
  const contentType = CONTENT_TYPES[reply.framing];
  if (contentType) res.setHeader('content-type', contentType);
  res.end(body);
}
