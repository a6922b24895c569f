// The order of checks, written once. Each step is the real service's, in its order
// (transport-auth-errors.md, "Order of checks"; REFERENCE.md decision 2), and the first failing step answers:
//   1. Endpoint   body parsing: invalid JSON 400, body too large 413 (rendered from the entry connection)
//   2. Router     the /api/external/v1 forward: 404 outside it; `accepts json`: 406
//   3. Parser     TurboConnect's Plug.Parsers: 415 for a Content-Type it cannot parse
//   4. Match      method 405; operation name 400 (missing / too many segments); lookup 404 Mutation/Query not found
//   5. Inputs     ParseInputs: unknown field 400, type 400/500, id 404/500, rich text 500, null 400 (decode.ts)
//   6. Token      RequireApiToken: 401 (backend.ts security handler + unauthorizedHandler)
//   7. Read-only  EnforceTokenAccessMode: 403 text (backend.ts, before validation)
//   8. Required   RequiredFieldValidator: 400 Missing required fields (backend.ts validationFail)
//   9. Handler    404 not visible, 403 cannot edit, 500 operation failed, 200 (handlers/, store.ts)
// Steps 1–5 run before the token is looked at, so a request without a token can get 400, 404, 405, 415 or 500.
import type { Request } from 'express';
import type { OpenAPIBackend } from 'openapi-backend';
import { isObject, listOperations, loadDocument } from '../../spec/lib/openapi.ts';
import type { Call } from './backend.ts';
import { decodeInputs, inputSpecFrom, type InputSpec } from './decode.ts';
import * as errors from './errors.ts';
import type { Reply, ReplyOptions } from './reply.ts';
import type { Store } from './store.ts';
import { bodyKind, decodeQuery, errorViewIsJson, mergeParams, negotiate, parseBody } from './transport.ts';

/**
 * The internal API (`forward "/v2"` under `scope "/api"`, router.ex) serves the same mutations to browser sessions:
 * the same parsing and input checks, then RequireAuthenticatedAccount. The mock has no browser sessions, so a request
 * that passes the input checks there is 401, as production answers an API token sent to it (auth_test.exs,
 * "internal_with_token").
 */
const INTERNAL_PREFIX = ['api', 'v2'];

/** The methods Plug.Parsers reads a body for. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export type Answer = { reply: Reply; options: ReplyOptions };

/** URI.decode/1: every `%XX` becomes its byte; a `%` without two hex digits after it is malformed (undefined). */
function percentDecode(segment: string): string | undefined {
  if (!segment.includes('%')) return segment;
  if (/%(?![0-9A-Fa-f]{2})/.test(segment)) return undefined;
  return Buffer.from(segment.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('latin1');
}

export type Operations = { prefix: string[]; inputs: Map<string, InputSpec>; ids: Map<string, string> };

/** The operations of the spec: the shared path prefix (the forward), each operation's inputs, and its name. */
export function readOperations(): Operations {
  const document = loadDocument();
  const inputs = new Map<string, InputSpec>();
  const ids = new Map<string, string>();
  let prefix: string[] | undefined;
  for (const operation of listOperations(document)) {
    const segments = operation.path.split('/').filter(Boolean);
    const own = segments.slice(0, -2);
    if (prefix && prefix.join('/') !== own.join('/')) throw new Error(`${operation.path} is not under /${prefix.join('/')}`);
    prefix = own;
    ids.set(segments.slice(-2).join('/'), operation.operationId);
    inputs.set(operation.operationId, inputSpecFrom(document, `${operation.pointer}/requestBody/content/application~1json/schema`));
    if (!isObject(operation.operation['requestBody'])) throw new Error(`${operation.operationId} has no request body`);
  }
  return { prefix: prefix ?? [], inputs, ids };
}

export type PipelineDeps = {
  api: OpenAPIBackend;
  operations: Operations;
  store: Store;
  /** The mock's forced answer for an operation (Prefer: code / example), checked once the operation is known. */
  force?: (operationId: string) => Reply | undefined;
};

export async function answer(req: Request, rawBody: Buffer, deps: PipelineDeps): Promise<Answer> {
  const accept = req.headers['accept'];
  const errorsAsJson = errorViewIsJson(accept);
  // Concatenated, not resolved: a path that starts with // is a path here, not a protocol-relative URL.
  const url = new URL(`http://mock.invalid${req.originalUrl}`);

  // 1. Endpoint: Plug.Parsers (pass */*), then Plug.MethodOverride. (The 413 is answered while reading the body.)
  const kind = bodyKind(req.headers['content-type']);
  const parsed = parseBody(kind, rawBody);
  if (!parsed.ok) return { reply: errors.INVALID_JSON(errorsAsJson), options: { entry: true } };
  let method = req.method.toUpperCase();
  const override = parsed.params['_method'];
  if (method === 'POST' && typeof override === 'string' && ['PUT', 'PATCH', 'DELETE'].includes(override.toUpperCase())) method = override.toUpperCase();

  // 2. Router: the forward (any method), then `plug :accepts, ["json"]`. Phoenix matches routes on percent-decoded
  // segments (URI.decode raises on a malformed escape: 500), then the forward strips its own segments from the raw
  // ones (a prefix that matches only once decoded crashes there: 500), and TurboConnect reads the raw rest, so
  // `projects/%72esume` names no mutation. Empty segments are dropped throughout.
  const segments = url.pathname.split('/').filter(Boolean);
  const routed = segments.map(percentDecode);
  if (routed.some((s) => s === undefined)) return { reply: errors.ROUTER_CRASH(errorsAsJson), options: {} };
  const under = (forward: ReadonlyArray<string>, path: ReadonlyArray<string | undefined>): boolean => path.length >= forward.length && forward.every((p, i) => path[i] === p);
  const internal = !under(deps.operations.prefix, routed) && under(INTERNAL_PREFIX, routed);
  const prefix = internal ? INTERNAL_PREFIX : deps.operations.prefix;
  if (!under(prefix, routed)) return { reply: errors.ROUTE_NOT_FOUND(errorsAsJson), options: {} };
  if (!under(prefix, segments)) return { reply: errors.ROUTER_CRASH(errorsAsJson), options: {} };
  const query = decodeQuery(url.search.slice(1));
  const format = query['_format'];
  if (negotiate(accept, ['json']) === undefined || (format !== undefined && format !== 'json')) return { reply: errors.NOT_ACCEPTABLE, options: { entry: true } };

  // 3. TurboConnect's own Plug.Parsers has no :pass, so a body it cannot parse is 415.
  if (BODY_METHODS.has(method) && kind === 'unsupported') return { reply: errors.UNSUPPORTED_MEDIA_TYPE, options: {} };

  // 4. Match: GET/HEAD are queries, POST mutations, anything else 405; then the name; then the lookup.
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return { reply: errors.METHOD_NOT_ALLOWED, options: {} };
  const name = segments.slice(prefix.length);
  if (name.length === 0) return { reply: errors.MISSING_QUERY_NAME, options: {} };
  if (name.length > 2) return { reply: errors.INVALID_QUERY_NAME(name), options: {} };
  if (method !== 'POST') return { reply: errors.QUERY_NOT_FOUND, options: {} };
  const operationId = deps.operations.ids.get(name.join('/'));
  const spec = operationId ? deps.operations.inputs.get(operationId) : undefined;
  if (!operationId || !spec) return { reply: errors.MUTATION_NOT_FOUND, options: {} };

  // (Mock only: a forced answer replaces everything from here on, so it never changes the state.)
  const forced = internal ? undefined : deps.force?.(operationId);
  if (forced) return { reply: forced, options: { operationId } };

  // 5. ParseInputs over the query merged with the body.
  const params = mergeParams(query, parsed.params);
  const decoded = decodeInputs(spec, params);
  if (!decoded.ok) return { reply: decoded.error, options: internal ? {} : { operationId } };
  if (internal) return { reply: errors.UNAUTHORIZED, options: {} };

  // 6–9. openapi-backend: security (401), read-only guard (403), validation (400 missing fields), handler.
  const call: Call = { store: deps.store, inputs: decoded.inputs, missing: decoded.missing };
  const path = `/${[...deps.operations.prefix, ...name].join('/')}`;
  const headers: Record<string, string | string[]> = {};
  const authorization = req.headers['authorization'];
  if (authorization !== undefined) headers['authorization'] = authorization;
  const reply: Reply = await deps.api.handleRequest({ method: 'post', path, headers, body: params, query: {} }, call);
  return { reply, options: { operationId, checked: true } };
}
