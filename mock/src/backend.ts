// openapi-backend, loaded from generated/openapi.json, with one role in the core and each part of it used once:
// routing (which operation a method and path name), the operation's security requirements (which scheme the
// request must satisfy; security.ts answers who the bearer is), and request validation (its Ajv result gives the
// 400 for missing required fields). The order in which the core asks is production's: see pipeline.ts.
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import { createAjv, dereference, isObject, listOperations, loadDocument, resolvePointer, type JsonObject } from '../../spec/lib/openapi.ts';

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
        requestBody: { required: isObject(requestBody) && requestBody['required'] === true, content: { 'application/json': { schema: inlined(document, schema) } } },
        responses: Object.fromEntries(Object.keys(isObject(responses) ? responses : {}).map((status) => [status, { description: `documented in generated/openapi.json` }])),
      },
    };
  }
  const components = document['components'];
  return { openapi: document['openapi'], info: document['info'], paths, components: { securitySchemes: isObject(components) ? components['securitySchemes'] : {} } };
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
  schemes(operation: Operation): string[];
  /** The required fields `params` lacks, in the order the spec lists them (request validation, once per request). */
  missing(operation: Operation, params: Record<string, unknown>): string[];
};

export function createRouting(definition: JsonObject = backendDefinition()): Routing {
  const api = new Backend({ definition: definition as unknown as Document, strict: true, quick: true, customizeAjv: () => createAjv({ fastCompile: true }) });
  // Started now, not on the first request; a failure is a value the core reports, never an unhandled rejection.
  const ready = api.init().then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
  const schemes = new WeakMap<Operation, string[]>();
  return {
    ready,
    match: (path) => api.router.matchOperation({ method: 'post', path, headers: {} }, false),
    schemes(operation) {
      let names = schemes.get(operation);
      if (!names) {
        names = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
        schemes.set(operation, names);
      }
      return names;
    },
    missing(operation, params) {
      const result = api.validator.validateRequest({ method: 'post', path: operation.path, headers: { 'content-type': 'application/json' }, body: params }, operation);
      const out: string[] = [];
      for (const error of result.errors ?? []) {
        const name: unknown = error.keyword === 'required' && error.instancePath === '/requestBody' ? error.params['missingProperty'] : undefined;
        if (typeof name === 'string') out.push(name);
      }
      return out;
    },
  };
}
