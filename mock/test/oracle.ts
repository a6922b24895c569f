// openapi-backend reading generated/openapi.json on its own: the oracle the mock's routing is checked against
// (routing.test.ts). The mock routes with the spec model (spec/lib/operations.ts: a lookup by path, the security
// requirement, the required fields in declared order), which costs nothing to load in a browser or at a cold start;
// openapi-backend, a well-kept router and request validator, reads the same document its own way here, and every
// path and body the tests generate must get the same operation, the same security and the same missing fields from
// both. Routing (which operation a method and path name), the security requirement, and request validation (its Ajv
// result gives the 400 for missing required fields).
import type { ValidateFunction } from 'ajv';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import { dereference, isObject, listOperations, loadDocument, resolvePointer, type JsonObject } from '../../spec/lib/openapi.ts';
import { createAjv } from '../../spec/lib/ajv.ts';

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
 * (inlined), and the documented statuses. The response schemas stay out: the core checks every response itself with
 * the precompiled validators (reply.ts); openapi-backend would dereference and decycle the whole document at
 * start-up, which costs hundreds of milliseconds of cold start and breaks on shared arrays.
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
        requestBody: {
          required: isObject(requestBody) && requestBody['required'] === true,
          content: { 'application/json': { schema: inlined(document, schema) } },
        },
        responses: Object.fromEntries(
          Object.keys(isObject(responses) ? responses : {}).map((status) => [status, { description: `documented in generated/openapi.json` }]),
        ),
      },
    };
  }
  const components = document['components'];
  return {
    openapi: document['openapi'],
    info: document['info'],
    paths,
    components: { securitySchemes: isObject(components) ? components['securitySchemes'] : {} },
  };
}

/**
 * The validator's own document check is OAS 3.0 and rejects 3.1; Redocly lint validates the document instead. The
 * definition is an object already: it is taken as is, not handed to json-schema-ref-parser, whose parse uses Node's
 * Buffer (in a browser, an unhandled rejection; quick mode does not even await it).
 */
class Backend extends OpenAPIBackend {
  override validateDefinition(): Document {
    return this.definition;
  }
  override async loadDocument(): Promise<Document> {
    if (typeof this.inputDocument === 'string') throw new Error('the mock passes openapi-backend its definition as an object');
    this.document = this.inputDocument;
    return this.document;
  }
}

export type Routing = {
  /** Settles when openapi-backend is ready: with undefined, or with the error that kept it from starting. */
  ready: Promise<Error | undefined>;
  /** The operation for a POST to `path`, or undefined (routing, once per request). */
  match(path: string): Operation | undefined;
  /** The security schemes any one of which the operation requires (empty: none). */
  schemes(operation: Operation): ReadonlyArray<string>;
  /** The required fields `params` lacks, in the order the spec lists them (request validation, once per request). */
  missing(operation: Operation, params: Record<string, unknown>): string[];
};

/** Paths routed to an operation, remembered (a path that names none is routed again each time: it is rare, and unbounded). */
const ROUTE_MEMORY = 256;

/**
 * openapi-backend's parts, each used once per request and through its own lower-level API, since `handleRequest`,
 * `matchOperation` and `validateRequest` each rebuild the operation list (lodash copies of every operation) and
 * re-parse the request: routing is `router.matchOperation`, remembered per path; the operations are the router's
 * list, read once, so an operation is the same object on every request; request validation is the operation's
 * compiled request-body validator (`validator.getRequestValidatorsForOperation`), given the body decode.ts already
 * parsed. The operations take no parameters (path, query, header or cookie), so the parameters' validator has
 * nothing to check; `createRouting` refuses a definition where it would.
 */
export function createRouting(definition: JsonObject = backendDefinition()): Routing {
  const api = new Backend({ definition: definition as unknown as Document, strict: true, quick: true, customizeAjv: () => createAjv({ fastCompile: true }) });
  const byId = new Map<string, { operation: Operation; schemes: string[]; body: ValidateFunction }>();
  const routes = new Map<string, Operation>();
  // Started now, not on the first request; a failure is a value the core reports, never an unhandled rejection.
  const ready = api
    .init()
    .then(() => {
      for (const operation of api.router.getOperations()) {
        const id = operation.operationId;
        if (id === undefined) throw new Error(`${operation.method.toUpperCase()} ${operation.path} has no operationId`);
        if ((operation.parameters ?? []).length > 0) throw new Error(`${id} takes parameters; the mock validates request bodies only`);
        const body = (api.validator.getRequestValidatorsForOperation(id) ?? []).find(
          (validate) => isObject(validate.schema) && isObject(validate.schema['properties']) && 'requestBody' in validate.schema['properties'],
        );
        if (!body) throw new Error(`${id} has no request body validator`);
        byId.set(id, { operation, schemes: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)), body });
      }
      return undefined;
    })
    .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
  const known = (operation: Operation) => {
    const found = operation.operationId === undefined ? undefined : byId.get(operation.operationId);
    if (!found) throw new Error(`openapi-backend routed to an operation it did not list: ${operation.operationId ?? operation.path}`);
    return found;
  };
  return {
    ready,
    match(path) {
      const remembered = routes.get(path);
      if (remembered) return remembered;
      const matched = api.router.matchOperation({ method: 'post', path, headers: {} }, false);
      if (!matched) return undefined;
      const { operation } = known(matched);
      if (routes.size < ROUTE_MEMORY) routes.set(path, operation);
      return operation;
    },
    schemes: (operation) => known(operation).schemes,
    missing(operation, params) {
      const validate = known(operation).body;
      const out: string[] = [];
      if (validate({ requestBody: params })) return out;
      for (const error of validate.errors ?? []) {
        const name: unknown = error.keyword === 'required' && error.instancePath === '/requestBody' ? error.params['missingProperty'] : undefined;
        if (typeof name === 'string') out.push(name);
      }
      return out;
    },
  };
}
