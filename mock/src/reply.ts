// A reply is what the mock answers, before it is framed: status, body and production's framing. Every reply passes
// `checkReply` (the response self-check against the spec) and is framed by `frameReply`, nowhere else.
import { validators } from '../../generated/response-validators.js';
import { createSchemaValidator, documentedResponses, formatErrors, isObject, listOperations, loadDocument, responseSchemaPointer, type SchemaValidator } from '../../spec/lib/openapi.ts';
import { randomBytes, toBase64Url } from './digest.ts';
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

/**
 * A validator that answers "valid" from the code `npm run generate` precompiled (generated/response-validators.js:
 * no schema compilation at start-up), and compiles the detailed one (every error) only for a value that fails, or
 * for a schema the precompiled code does not hold.
 */
function defaultValidator(): SchemaValidator {
  let detailed: SchemaValidator | undefined;
  const slow = (): SchemaValidator => (detailed ??= createSchemaValidator(loadDocument(), { fastCompile: true }));
  return { validate: (pointer, value) => (validators[pointer]?.(value) === true ? [] : slow().validate(pointer, value)) };
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
const REQUEST_ID_PREFIX = toBase64Url(randomBytes(6));
let requestCounter = 0;
function requestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `${REQUEST_ID_PREFIX}${requestCounter.toString(36).padStart(12, '0')}`;
}

/** An answer as it goes on the wire: status, headers (lower-case names, in order) and the body text. */
export type Framed = { status: number; headers: Array<[string, string]>; body: string };

/** Frames a reply as production does: no Content-Type where production sets none, JSON bytes in key order. */
export function frameReply(reply: Reply, options: ReplyOptions = {}, headers: Array<[string, string]> = []): Framed {
  headers.push(['cache-control', 'max-age=0, private, must-revalidate']);
  if (!options.entry) headers.push(['x-request-id', requestId()]);
  const contentType = CONTENT_TYPES[reply.framing];
  if (contentType) headers.push(['content-type', contentType]);
  return { status: reply.status, headers, body: typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body) };
}
