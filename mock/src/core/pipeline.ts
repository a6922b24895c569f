// The order of checks, written once. Each step is the real service's, in its order
// (RULES.md#order-of-checks; RULES.md#decision-2), and the first failing step answers:
//   1. Endpoint   body reading and parsing: 413 too large, invalid JSON 400 (rendered from the entry connection)
//   2. Router     the /api/external/v1 forward: 404 outside it; `accepts json`: 406
//   3. Parser     TurboConnect's Plug.Parsers: 415 for a Content-Type it cannot parse
//   4. Match      method 405; operation name 400 (missing / too many segments); lookup 404 (mutation / query not found)
//                 (the spec's operations by path: spec/lib/operations.ts)
//   5. Inputs     ParseInputs: unknown field 400, type 400/500, id 404/500, rich text 500, null 400 (decode.ts)
//   6. Token      RequireApiToken: 401 (when the operation's security requires the bearer token; security.ts)
//   7. Read-only  EnforceTokenAccessMode: 403 text
//   8. Required   RequiredFieldValidator: 400 naming the missing fields (the request schema's required fields)
//   9. Handler    404 not visible, 403 cannot edit, 500 operation failed, 200 (operations/, storage/store.ts)
// Steps 1–5 run before the token is looked at, so a request without a token can get 400, 404, 405, 413, 415 or 500.
// Nothing here is framework- or Node-specific: the request is a method, a target, headers and the body's bytes.
import { operationModels, type OperationId, type OperationModel } from '../../../spec/lib/operations.ts';
import { decodeInputs } from './decode.ts';
import * as errors from '../answers/errors.ts';
import { handlers } from '../operations/index.ts';
import type { Handler } from '../operations/types.ts';
import type { Reply, ReplyOptions } from '../answers/reply.ts';
import { tokenFromAuthorization, type Principal } from '../domain/security.ts';
import type { Sessions } from '../storage/sessions.ts';
import type { Store } from '../storage/store.ts';
import type { OperationInputs } from '../operations/index.ts';
import { mark } from '../stages.ts';
import { acceptsJson, bodyKind, decodeQuery, errorViewIsJson, mergeParams, parseBody, tooManyTokens } from './transport.ts';

/** A request as the core reads it, from any runtime: what the adapters hand over. */
export type MockRequest = {
  method: string;
  /** The request target as sent: the path and query (`/api/external/v1/projects/resume?x=1`). */
  target: string;
  /** A header's value (repeated headers as the HTTP layer joins them; Authorization and Content-Type: the first). */
  header(name: string): string | undefined;
  body: Uint8Array;
  /** Set when the body could not be read whole: larger than the limit, or in a Content-Encoding the API does not read. */
  bodyError?: 'too-large' | 'unreadable';
  /** When the request arrived (performance.now()), if before the core saw it: the journal's duration counts from here. */
  receivedAt?: number;
  /** Aborts when the client has gone (the connection closed): a delayed request stops waiting and changes nothing. */
  signal?: AbortSignal;
};

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

/** URI.decode/1: every `%XX` becomes its byte (as a latin-1 character); a `%` without two hex digits is malformed. */
function percentDecode(segment: string): string | undefined {
  if (!segment.includes('%')) return segment;
  if (/%(?![0-9A-Fa-f]{2})/.test(segment)) return undefined;
  return segment.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export type Operations = {
  /** The shared path prefix the operations sit under (the forward), as segments. */
  prefix: string[];
  /** Each operation by the path a POST names it with: the lookup of step 4. */
  byPath: Map<string, OperationModel>;
};

/** The operations of the spec (spec/lib/operations.ts) by path, and the shared path prefix they sit under. */
export function readOperations(): Operations {
  let prefix: string[] | undefined;
  const byPath = new Map<string, OperationModel>();
  for (const model of operationModels()) {
    if (model.method !== 'POST') throw new Error(`${model.operationId} is a ${model.method}; the service's external API is mutations, all POST`);
    const other = model.security.find((scheme) => scheme.type !== 'bearer');
    if (other) throw new Error(`${model.operationId} accepts ${other.name}, which is not a bearer token; the mock knows API tokens only`);
    const own = model.path.split('/').filter(Boolean).slice(0, -2);
    if (prefix && prefix.join('/') !== own.join('/')) throw new Error(`${model.path} is not under /${prefix.join('/')}`);
    prefix = own;
    const undecodable = model.fields.find((f) => f.kind === 'other');
    if (undecodable) throw new Error(`${model.operationId}.${undecodable.name}: the spec gives it no input kind the decoder knows (decode.ts)`);
    byPath.set(model.path, model);
  }
  return { prefix: prefix ?? [], byPath };
}

/** Step 4's lookup: the operation the name segments after the prefix (one or two, raw) name, or undefined. */
function modelNamed(operations: Operations, name: ReadonlyArray<string>): OperationModel | undefined {
  return operations.byPath.get(`/${[...operations.prefix, ...name].join('/')}`);
}

/**
 * The operation a POST to `pathname` names, as steps 2 and 4 read the path (empty segments dropped, the prefix matched
 * decoded and raw, the name raw), or undefined: what the CLI's metrics and log name a request by (service.ts), so
 * every path the pipeline answers as an operation is counted as that operation. `pathname` is core/target.ts's.
 */
export function operationAt(operations: Operations, pathname: string): OperationModel | undefined {
  const segments = pathname.split('/').filter(Boolean);
  const routed = segments.map(percentDecode);
  if (routed.some((s) => s === undefined)) return undefined;
  const under = (path: ReadonlyArray<string | undefined>): boolean =>
    path.length >= operations.prefix.length && operations.prefix.every((p, i) => path[i] === p);
  if (!under(routed) || !under(segments)) return undefined;
  const name = segments.slice(operations.prefix.length);
  return name.length === 0 || name.length > 2 ? undefined : modelNamed(operations, name);
}

/** Step 8: the required fields of the request schema that `params` lacks, in the order the spec declares them. */
export function missingFields(model: OperationModel, params: Readonly<Record<string, unknown>>): string[] {
  return model.required.filter((field) => !Object.hasOwn(params, field) || params[field] === undefined);
}

export type PipelineDeps = {
  operations: Operations;
  sessions: Sessions;
  session: string;
  /**
   * The mock's forced answer for an operation (Prefer: code / example / fault, or a queued scenario), checked once the
   * operation is known; a promise when it asks a shared store.
   */
  force: (operationId: string) => Reply | undefined | Promise<Reply | undefined>;
  /**
   * Called once the request is found to write, right before the write (steps 6–9): a delayed request waits here, so a
   * client that goes away meanwhile changes nothing (it throws, delay.ts's WaitStopped, and nothing is written).
   */
  beforeWrite?: () => Promise<void> | undefined;
};

/** Answers an API request; `url` is the request's target, parsed once by the core. */
export async function answer(request: MockRequest, url: URL, deps: PipelineDeps): Promise<Answer> {
  const accept = request.header('accept');
  const errorsAsJson = errorViewIsJson(accept);

  // 1. Endpoint: the body is read (413 when larger than the limit), Plug.Parsers (pass */*), Plug.MethodOverride.
  if (request.bodyError === 'too-large') return { reply: errors.PAYLOAD_TOO_LARGE(errorsAsJson), options: { entry: true } };
  if (request.bodyError === 'unreadable') return { reply: errors.INVALID_JSON(errorsAsJson), options: { entry: true } };
  const kind = bodyKind(request.header('content-type'));
  const parsed = parseBody(kind, request.body);
  if (!parsed.ok) return { reply: parsed.tooLarge ? errors.PAYLOAD_TOO_LARGE(errorsAsJson) : errors.INVALID_JSON(errorsAsJson), options: { entry: true } };
  let method = request.method.toUpperCase();
  const override = parsed.params['_method'];
  if (method === 'POST' && typeof override === 'string' && ['PUT', 'PATCH', 'DELETE'].includes(override.toUpperCase())) method = override.toUpperCase();

  // 2. Router: the forward (any method), then `plug :accepts, ["json"]`. Phoenix matches routes on percent-decoded
  // segments (URI.decode raises on a malformed escape: 500), then the forward strips its own segments from the raw
  // ones (a prefix that matches only once decoded crashes there: 500), and TurboConnect reads the raw rest, so
  // `projects/%72esume` names no mutation. Empty segments are dropped throughout.
  const segments = url.pathname.split('/').filter(Boolean);
  const routed = segments.map(percentDecode);
  if (routed.some((s) => s === undefined)) return { reply: errors.ROUTER_CRASH(errorsAsJson), options: {} };
  const under = (forward: ReadonlyArray<string>, path: ReadonlyArray<string | undefined>): boolean =>
    path.length >= forward.length && forward.every((p, i) => path[i] === p);
  const internal = !under(deps.operations.prefix, routed) && under(INTERNAL_PREFIX, routed);
  const prefix = internal ? INTERNAL_PREFIX : deps.operations.prefix;
  if (!under(prefix, routed)) return { reply: errors.ROUTE_NOT_FOUND(errorsAsJson), options: {} };
  if (!under(prefix, segments)) return { reply: errors.ROUTER_CRASH(errorsAsJson), options: {} };
  const query = decodeQuery(url.search.slice(1));
  const format = query['_format'];
  if (!acceptsJson(accept) || (format !== undefined && format !== 'json')) return { reply: errors.NOT_ACCEPTABLE, options: { entry: true } };

  // 3. TurboConnect's own Plug.Parsers has no :pass, so a body it cannot parse is 415.
  if (BODY_METHODS.has(method) && kind === 'unsupported') return { reply: errors.UNSUPPORTED_MEDIA_TYPE, options: {} };
  mark('parse');

  // 4. Match: GET/HEAD are queries, POST mutations, anything else 405; then the name; then the lookup of the
  // operation a POST to that path names.
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return { reply: errors.METHOD_NOT_ALLOWED, options: {} };
  const name = segments.slice(prefix.length);
  if (name.length === 0) return { reply: errors.MISSING_QUERY_NAME, options: {} };
  if (name.length > 2) return { reply: errors.INVALID_QUERY_NAME(name), options: {} };
  if (method !== 'POST') return { reply: errors.QUERY_NOT_FOUND, options: {} };
  const model = modelNamed(deps.operations, name);
  if (!model) return { reply: errors.MUTATION_NOT_FOUND, options: {} };
  const { operationId } = model;
  mark('route');

  // (Mock only: a forced answer replaces everything from here on, so it never changes the state.)
  let forced = internal ? undefined : deps.force(operationId);
  if (forced instanceof Promise) forced = await forced;
  if (forced) return { reply: forced, options: { operationId } };

  // 5. ParseInputs over the query merged with the body. (Mock only: a rich-text document with more JSON tokens than
  // the mock parses is 413, as the body holding it would be; transport.ts, MAX_JSON_TOKENS.)
  const params = mergeParams(query, parsed.params);
  for (const field of model.fields) {
    const value = field.kind === 'rich-text' ? params[field.name] : undefined;
    if (typeof value === 'string' && tooManyTokens(value))
      return { reply: errors.PAYLOAD_TOO_LARGE(errorsAsJson), options: internal ? { entry: true } : { operationId, entry: true } };
  }
  const decoded = decodeInputs(model.fields, params);
  if (!decoded.ok) return { reply: decoded.error, options: internal ? {} : { operationId } };
  mark('decode');
  if (internal) return { reply: errors.UNAUTHORIZED, options: {} };

  // 6–9 against the session's store, as one write (sessions.ts): who is calling, what they may do, the operation.
  const secured = model.security.length > 0;
  const token = tokenFromAuthorization(request.header('authorization'));
  const waiting = deps.beforeWrite?.();
  if (waiting) await waiting;
  const reply = await deps.sessions.write(deps.session, (store): Reply => {
    // 6. Who is calling: a principal, or 401.
    const principal = secured && token ? store.authenticate(token) : undefined;
    if (secured && !principal) return errors.UNAUTHORIZED;
    if (!principal) return errors.MOCK_RESPONSE_INVALID([`${operationId} requires no token in the spec; the mock knows no other caller`]);
    // 7. A read-only principal is refused before the required-field check (EnforceTokenAccessMode precedes
    // RequiredFieldValidator), so its request is not validated at all.
    if (principal.readOnly) return errors.READ_ONLY_TOKEN;
    mark('auth');
    // 8. Request validation finds the missing required fields. Anything else the schema rejects was already accepted
    // by the input decoder, as production accepts it (a blank `success`, a null in subscriber_ids): the operation
    // runs and fails there, as it does in production.
    const missing = missingFields(model, params);
    if (missing.length > 0) return errors.MISSING_REQUIRED_FIELDS(missing);
    mark('validate');
    // 9. The operation.
    const done = runHandler(operationId, { principal, inputs: decoded.inputs, store });
    mark('view');
    return done;
  });
  return { reply, options: { operationId } };
}

/**
 * Runs an operation's handler with its typed inputs. The one place the decoder's record becomes the operation's input
 * type: the decoder gave every field the kind the spec declares (decode.ts), and step 8 found every required field.
 */
function runHandler<K extends OperationId>(operationId: K, args: { principal: Principal; inputs: Record<string, unknown>; store: Store }): Reply {
  const handler: Handler<OperationInputs[K]> = handlers[operationId];
  return handler({ ...args, inputs: args.inputs as OperationInputs[K] });
}
