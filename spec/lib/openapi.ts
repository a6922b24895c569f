// The bundled document: the one way every part of this package reads generated/openapi.json (the mock, the contract
// tests, the spec's own tests), and the walks over it (pointers, references, operations, documented responses). No
// Node-only API: the mock's core runs in browsers and service workers too, so the document is an import (bundlers
// inline it), not a file read. The JSON Schema validators compiled from it are in ajv.ts, which only what validates
// loads (Ajv's compiler is most of a browser bundle's weight and a tenth of a cold start).
import bundled from '../../generated/openapi.runtime.json' with { type: 'json' };
import type { ErrorObject } from 'ajv/dist/2020.js';

/** OpenAPI keywords that may stand beside JSON Schema keywords; Ajv is told they are annotations. */
export const OPENAPI_KEYWORDS = [
  'openapi',
  'info',
  'servers',
  'paths',
  'components',
  'tags',
  'security',
  'webhooks',
  'jsonSchemaDialect',
  'externalDocs',
  'discriminator',
  'xml',
  'example',
];

export type JsonObject = { [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const document: unknown = bundled;

/**
 * The bundled OpenAPI document (one object per process) without its prose (`description`): everything the code
 * reads, at half the bytes (generated/openapi.runtime.json). Treat it as read-only.
 */
export function loadDocument(): JsonObject {
  if (!isObject(document) || typeof document['openapi'] !== 'string')
    throw new Error('generated/openapi.json is not an OpenAPI document; run npm run generate');
  return document;
}

/** `#/a/b~1c` → the value at that JSON pointer in the document. */
export function resolvePointer(document: JsonObject, pointer: string): unknown {
  if (!pointer.startsWith('#')) throw new Error(`only local references are supported, got ${pointer}`);
  let node: unknown = document;
  for (const raw of pointer.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

export function pointerTo(...segments: ReadonlyArray<string | number>): string {
  return `#/${segments.map((s) => String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

/** Follows `$ref`s (of schemas, responses, examples, request bodies) to the object and its pointer: the one `$ref` walker. */
export function dereference(document: JsonObject, pointer: string): { pointer: string; value: unknown } {
  let current = pointer;
  for (let hops = 0; hops < 16; hops++) {
    const value = resolvePointer(document, current);
    if (isObject(value) && typeof value['$ref'] === 'string') current = value['$ref'];
    else return { pointer: current, value };
  }
  throw new Error(`reference cycle at ${pointer}`);
}

export type SchemaValidator = {
  /** The schema errors of `value` against the schema at `pointer` (empty when valid). */
  validate(pointer: string, value: unknown): ErrorObject[];
  /** Whether `value` is valid, without building its list of errors (else: `validate(…).length === 0`). */
  isValid?(pointer: string, value: unknown): boolean;
  /**
   * The errors of the schema's own keywords on `value` itself (type, required, a closed object's field names, …), its
   * subschemas (properties, items, allOf, oneOf, anyOf) not applied, so that the cost does not grow with the value's
   * children; undefined when the schema has a keyword that cannot be taken apart so (the caller validates it whole).
   * `pointer` names a schema that is no `$ref`.
   */
  validateOwn?(pointer: string, value: unknown): ErrorObject[] | undefined;
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type OperationEntry = { operationId: string; path: string; method: string; pointer: string; operation: JsonObject };

/** Every operation of the document, with the JSON pointer of its operation object. */
export function listOperations(document: JsonObject = loadDocument()): OperationEntry[] {
  const paths = document['paths'];
  if (!isObject(paths)) return [];
  const entries: OperationEntry[] = [];
  for (const path of Object.keys(paths)) {
    const { pointer: itemPointer, value: pathItem } = dereference(document, pointerTo('paths', path));
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (isObject(operation)) entries.push({ operationId: String(operation['operationId']), path, method, pointer: `${itemPointer}/${method}`, operation });
    }
  }
  return entries;
}

/** The pointer of the schema documented for `status` and `mediaType` of an operation, if it is documented. */
export function responseSchemaPointer(document: JsonObject, operationPointer: string, status: number, mediaType: string): string | undefined {
  const response = dereference(document, `${operationPointer}/responses/${status}`);
  if (!isObject(response.value)) return undefined;
  const content = response.value['content'];
  if (!isObject(content) || !isObject(content[mediaType])) return undefined;
  return `${response.pointer}/content/${pointerTo(mediaType).slice(2)}/schema`;
}

export type DocumentedHeader = { name: string; lower: string; schemaPointer: string | undefined; required: boolean };

/** The headers a response object (at its pointer, references followed) documents, with their schemas' pointers. */
export function documentedHeaders(document: JsonObject, responsePointer: string): DocumentedHeader[] {
  const headers: DocumentedHeader[] = [];
  const headerObjects = resolvePointer(document, `${responsePointer}/headers`);
  if (!isObject(headerObjects)) return headers;
  for (const name of Object.keys(headerObjects)) {
    const { pointer: headerPointer, value: headerObject } = dereference(document, `${responsePointer}/headers/${pointerTo(name).slice(2)}`);
    if (!isObject(headerObject)) continue;
    headers.push({
      name,
      lower: name.toLowerCase(),
      schemaPointer: isObject(headerObject['schema']) ? `${headerPointer}/schema` : undefined,
      required: headerObject['required'] === true,
    });
  }
  return headers;
}

/** The statuses and media types an operation documents, for messages that name the alternatives. */
export function documentedResponses(document: JsonObject, operationPointer: string): Map<string, string[]> {
  const responses = resolvePointer(document, `${operationPointer}/responses`);
  const out = new Map<string, string[]>();
  if (!isObject(responses)) return out;
  for (const status of Object.keys(responses)) {
    const { value } = dereference(document, `${operationPointer}/responses/${status}`);
    out.set(status, isObject(value) && isObject(value['content']) ? Object.keys(value['content']) : []);
  }
  return out;
}
