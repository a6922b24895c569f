// The bundled document and JSON Schema validators compiled from it: the one way every part of this package reads
// generated/openapi.json (the mock, the contract tests, the spec's own tests). No Node-only API: the mock's core runs
// in browsers and service workers too, so the document is an import (bundlers inline it), not a file read.
import bundled from '../../generated/openapi.json' with { type: 'json' };
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export const DOCUMENT_URL = new URL('../../generated/openapi.json', import.meta.url);
/** The acyclic projection of the same document, for tools that cannot load cycles (spec/lib/acyclic.ts). */
export const ACYCLIC_DOCUMENT_URL = new URL('../../generated/openapi.acyclic.json', import.meta.url);
const DOCUMENT_ID = 'openapi.json';

/** OpenAPI keywords that may stand beside JSON Schema keywords; Ajv is told they are annotations. */
export const OPENAPI_KEYWORDS = ['openapi', 'info', 'servers', 'paths', 'components', 'tags', 'security', 'webhooks', 'jsonSchemaDialect', 'externalDocs', 'discriminator', 'xml', 'example'];

export type JsonObject = { [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const document: unknown = bundled;

/** The bundled OpenAPI document (one object per process). Treat it as read-only. */
export function loadDocument(): JsonObject {
  if (!isObject(document) || typeof document['openapi'] !== 'string') throw new Error('generated/openapi.json is not an OpenAPI document; run npm run generate');
  return document;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export type AjvOptions = {
  /** false: stop at the first error, faster where only "valid or not" matters. */
  allErrors?: boolean;
  /**
   * For servers that compile at start-up: skip re-validating the schemas against the meta-schema (Redocly lint and the
   * spec's tests do that) and compile each referenced schema once instead of inlining it everywhere. Several times
   * faster to compile for this document, whose schemas reference each other in cycles.
   */
  fastCompile?: boolean;
};

/** An Ajv instance for JSON Schema 2020-12 with formats checked: the dialect of OpenAPI 3.1. */
export function createAjv(options: AjvOptions = {}): Ajv2020 {
  const fast = options.fastCompile === true;
  const ajv = new Ajv2020({ strict: true, allErrors: options.allErrors ?? true, allowUnionTypes: true, validateFormats: true, validateSchema: !fast, inlineRefs: !fast });
  addFormats(ajv);
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  return ajv;
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

/** Follows `$ref`s of non-schema objects (responses, examples, request bodies) to the object and its pointer. */
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
};

/**
 * Validators for schemas in the bundled document, compiled once per pointer. With `firstErrorOnly`, a value is first
 * checked by a validator that stops at the first error, and only an invalid one is checked again for every error.
 */
export function createSchemaValidator(document: JsonObject = loadDocument(), options: { firstErrorOnly?: boolean; fastCompile?: boolean } = {}): SchemaValidator {
  const fastCompile = options.fastCompile ?? false;
  const detailed = createDetailedValidator(document, { fastCompile });
  if (!options.firstErrorOnly) return detailed;
  const quick = createDetailedValidator(document, { allErrors: false, fastCompile });
  return { validate: (pointer, value) => (quick.validate(pointer, value).length === 0 ? [] : detailed.validate(pointer, value)) };
}

function createDetailedValidator(document: JsonObject, ajvOptions: AjvOptions = {}): SchemaValidator {
  const ajv = createAjv(ajvOptions);
  ajv.addSchema(document, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();
  return {
    validate(pointer, value) {
      let validateFn = compiled.get(pointer);
      if (!validateFn) {
        validateFn = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
        compiled.set(pointer, validateFn);
      }
      return validateFn(value) ? [] : [...(validateFn.errors ?? [])];
    },
  };
}

export function formatErrors(errors: ReadonlyArray<ErrorObject>): string {
  return errors.map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}${e.params && 'allowedValues' in e.params ? ` (${String(e.params['allowedValues'])})` : ''}`).join('; ');
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

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
