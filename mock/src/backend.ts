// openapi-backend, loaded from generated/openapi.json: routing, the security scheme, request validation and the
// response self-check, with a handler for every lifecycle event. The order in which these run is production's only
// together with the steps before them: see pipeline.ts.
import { OpenAPIBackend, type Context, type Document } from 'openapi-backend';
import type { operations } from '../../generated/types.ts';
import { createAjv, dereference, isObject, listOperations, loadDocument, resolvePointer, type JsonObject } from '../../spec/lib/openapi.ts';
import * as errors from './errors.ts';
import type { Reply, ReplyChecker } from './reply.ts';
import type { Principal } from './security.ts';
import { tokenFromAuthorization } from './security.ts';
import type { Store } from './store.ts';

/** What one request carries through openapi-backend: its store, its decoded inputs, and who is calling. */
export type Call = { store: Store; inputs: Record<string, unknown>; missing: string[] };

export type HandlerArgs<K extends keyof operations> = { operationId: K; principal: Principal; call: Call };
/** The 200 body of an operation, as generated/types.ts types it. */
export type SuccessBody<K extends keyof operations> = operations[K]['responses'][200]['content']['application/json'];
export type Handler<K extends keyof operations> = (args: HandlerArgs<K>) => Reply;
export type HandlerMap = { [K in keyof operations]: Handler<K> };

/** A schema with every `$ref` replaced by a fresh copy of its target (request schemas are small and acyclic). */
function inlined(document: JsonObject, node: unknown, depth = 0): unknown {
  if (depth > 32) throw new Error('a request schema references itself; openapi-backend gets request schemas inlined');
  if (Array.isArray(node)) return node.map((item) => inlined(document, item, depth));
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) if (key !== '$ref') out[key] = inlined(document, value, depth);
  const ref = node['$ref'];
  if (typeof ref !== 'string') return out;
  const target = inlined(document, resolvePointer(document, ref), depth + 1);
  // `$ref` beside other keywords means both apply (2020-12): keep them side by side under allOf.
  return Object.keys(out).length === 0 ? target : { ...out, allOf: [target] };
}

/**
 * What openapi-backend needs from generated/openapi.json: each operation's route, security, and request body schema
 * (inlined), and the documented statuses. The response schemas stay out: the mock checks every response itself with
 * the shared validators (reply.ts), which compile the cyclic response schemas once, by reference; openapi-backend
 * would dereference and decycle the whole document at start-up, which costs hundreds of milliseconds of cold start
 * and breaks on shared arrays (its `decycle` turns a repeated `examples` array into a `$ref`).
 */
export function backendDefinition(document: JsonObject = loadDocument()): JsonObject {
  const paths: Record<string, unknown> = {};
  for (const operation of listOperations(document)) {
    const requestBody = dereference(document, `${operation.pointer}/requestBody`).value;
    const schema = resolvePointer(document, `${operation.pointer}/requestBody/content/application~1json/schema`);
    const responses = resolvePointer(document, `${operation.pointer}/responses`);
    paths[operation.path] = {
      [operation.method]: {
        operationId: operation.operationId,
        security: operation.operation['security'] ?? document['security'],
        requestBody: { required: isObject(requestBody) && requestBody['required'] === true, content: { 'application/json': { schema: inlined(document, schema) } } },
        responses: Object.fromEntries(Object.keys(isObject(responses) ? responses : {}).map((status) => [status, { description: `documented in generated/openapi.json` }])),
      },
    };
  }
  const components = document['components'];
  return { openapi: document['openapi'], info: document['info'], paths, components: { securitySchemes: isObject(components) ? components['securitySchemes'] : {} } };
}

function isPrincipal(value: unknown): value is Principal {
  return isObject(value) && typeof value['personUuid'] === 'string' && typeof value['readOnly'] === 'boolean';
}

function principalOf(context: Context): Principal | undefined {
  const result: unknown = context.security?.['bearerAuth'];
  return isPrincipal(result) ? result : undefined;
}

function operationIdOf(context: Context): keyof operations | undefined {
  const id = context.operation?.operationId;
  return id === 'resumeProject' || id === 'closeGoal' ? id : undefined;
}

/** The validator's own document check is OAS 3.0 and rejects 3.1; Redocly lint validates the document instead. */
class Backend extends OpenAPIBackend {
  override validateDefinition(): Document {
    return this.definition;
  }
}

export function createBackend(handlers: HandlerMap, checkReply: ReplyChecker): OpenAPIBackend {
  const definition = backendDefinition();
  const api = new Backend({
    definition: definition as unknown as Document,
    strict: true,
    quick: true,
    // Read-only principals are refused before the required-field check (EnforceTokenAccessMode precedes
    // RequiredFieldValidator), so their requests are not validated at all.
    validate: (context: Context) => principalOf(context)?.readOnly !== true,
    customizeAjv: () => createAjv({ fastCompile: true }),
  });
  // Initialized now, not on the first request: the cold start ends with a first correct answer, not a slow one.
  void api.init();

  const run = (context: Context, call: Call): Reply => {
    const operationId = operationIdOf(context);
    const principal = principalOf(context);
    if (!operationId || !principal) return errors.MOCK_RESPONSE_INVALID([`no handler run for ${String(context.operation?.operationId)}`]);
    if (principal.readOnly) return errors.READ_ONLY_TOKEN;
    // Each handler takes its own operation's arguments; the map is complete by construction (HandlerMap).
    if (operationId === 'resumeProject') return handlers.resumeProject({ operationId, principal, call });
    return handlers.closeGoal({ operationId, principal, call });
  };

  api.register({
    // Unreachable once pipeline.ts matched the operation; registered so no request can fall through.
    notFound: (context: Context) => (context.request.method === 'get' || context.request.method === 'head' ? errors.QUERY_NOT_FOUND : errors.MUTATION_NOT_FOUND),
    methodNotAllowed: (context: Context) => (context.request.method === 'get' || context.request.method === 'head' ? errors.QUERY_NOT_FOUND : errors.METHOD_NOT_ALLOWED),
    notImplemented: (context: Context) => errors.MOCK_RESPONSE_INVALID([`no handler for ${String(context.operation?.operationId)}`]),
    unauthorizedHandler: () => errors.UNAUTHORIZED,
    // Schema validation after authentication finds the missing required fields (RequiredFieldValidator). Anything
    // else the schema rejects was already accepted by the input decoder, as production accepts it (a blank
    // `success`, a null in subscriber_ids): the operation runs and fails there, as it does in production.
    validationFail: (context: Context, call: Call) => (call.missing.length > 0 ? errors.MISSING_REQUIRED_FIELDS(call.missing) : run(context, call)),
    resumeProject: run,
    closeGoal: run,
    postResponseHandler: (context: Context): Reply => {
      const reply: Reply = context.response;
      const violations = checkReply(reply, context.operation?.operationId);
      return violations.length ? errors.MOCK_RESPONSE_INVALID(violations) : reply;
    },
  });

  // Who is calling: a principal, or false. Deciding what the principal may do is the handlers' and the guard's job.
  api.registerSecurityHandler('bearerAuth', (context: Context, call: Call) => {
    const header = context.request.headers['authorization'];
    const token = tokenFromAuthorization(Array.isArray(header) ? header[0] : header);
    return (token && call.store.authenticate(token)) || false;
  });
  return api;
}
