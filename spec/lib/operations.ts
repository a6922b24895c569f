// The one model of the spec's operations, derived from generated/openapi.json and nothing else: method and path,
// whether a token is required, the request fields in declaration order (how the service decodes each, required,
// nullable, enum values and the enum's printed name), the named request examples, the documented statuses and media
// types, and the names of the response examples. The mock's input decoder, the contract suite and the fuzzers all
// read their operations from here.
import type { operations } from '../../generated/types.ts';
import { dereference, documentedResponses, isObject, listOperations, loadDocument, pointerTo, resolvePointer, type JsonObject } from './openapi.ts';

export type OperationId = keyof operations;
export type RequestBody<K extends OperationId> = operations[K]['requestBody']['content']['application/json'];

/**
 * How the service decodes a field (RULES.md#decoding), read from the field's schema:
 * `id` is a schema that is `components/schemas/InputId`, `id-list` an array of them, `rich-text` a string whose
 * `contentMediaType` is JSON, `enum` a schema with an `enum`, then `boolean` and `string` by type.
 */
type FieldKind = 'id' | 'id-list' | 'rich-text' | 'enum' | 'boolean' | 'string' | 'other';

export type FieldModel = {
  name: string;
  kind: FieldKind;
  required: boolean;
  nullable: boolean;
  /** Enum fields: the allowed values in spec order, and the enum's name as the service prints it (the schema title). */
  enumValues?: string[];
  enumName?: string;
  /** The pointer of the field's schema in the bundled document (after following `$ref`). */
  schemaPointer: string;
};

export type OperationModel = {
  operationId: OperationId;
  /** Upper case: `POST`. */
  method: string;
  path: string;
  /** The JSON pointer of the operation object. */
  pointer: string;
  /** Whether the operation (or the document) requires a security scheme. */
  secured: boolean;
  /**
   * The security schemes any one of which the operation requires (empty: none), with what each is: `bearer` for an
   * HTTP bearer token, else the scheme's type.
   */
  security: Array<{ name: string; type: string }>;
  requestSchemaPointer: string;
  /** Request fields in declaration order. */
  fields: FieldModel[];
  /** Required field names in declaration order (the order the missing-fields 400 lists them in, RULES.md#error-23). */
  required: string[];
  /** Named request examples, in spec order. */
  examples: Array<{ name: string; value: JsonObject }>;
  /** Documented status → media types. */
  responses: Map<string, string[]>;
  /** Every named response example of the operation (any status), in spec order. */
  responseExampleNames: string[];
};

/** Follows `$ref` (sibling keywords such as `description` are annotations) to the schema and its pointer. */
export function resolveSchema(document: JsonObject, pointer: string): { pointer: string; schema: JsonObject } {
  const { pointer: resolved, value } = dereference(document, pointer);
  return { pointer: resolved, schema: isObject(value) ? value : {} };
}

function typesOf(schema: JsonObject): string[] {
  const type = schema['type'];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : typeof type === 'string' ? [type] : [];
}

const INPUT_ID = pointerTo('components', 'schemas', 'InputId');

function fieldModel(document: JsonObject, name: string, pointer: string, required: boolean): FieldModel {
  const { pointer: resolved, schema } = resolveSchema(document, pointer);
  const types = typesOf(schema);
  const nullable =
    types.includes('null') ||
    ['oneOf', 'anyOf'].some((k) => {
      const branches = schema[k];
      return Array.isArray(branches) && branches.some((s) => isObject(s) && s['type'] === 'null');
    });
  let kind: FieldKind = 'other';
  const enumValues = Array.isArray(schema['enum']) ? schema['enum'].filter((v): v is string => typeof v === 'string') : undefined;
  if (resolved === INPUT_ID) kind = 'id';
  else if (schema['contentMediaType'] === 'application/json') kind = 'rich-text';
  else if (enumValues && enumValues.length > 0) kind = 'enum';
  else if (types.includes('array')) kind = resolveSchema(document, `${resolved}/items`).pointer === INPUT_ID ? 'id-list' : 'other';
  else if (types.includes('boolean')) kind = 'boolean';
  else if (types.includes('string')) kind = 'string';
  const model: FieldModel = { name, kind, required, nullable, schemaPointer: resolved };
  if (kind === 'enum' && enumValues) {
    model.enumValues = enumValues;
    const title = schema['title'];
    model.enumName = typeof title === 'string' && /^[a-z_]+$/.test(title) ? title : name;
  }
  return model;
}

function responseExampleNames(document: JsonObject, operationPointer: string, responses: Map<string, string[]>): string[] {
  const names = new Set<string>();
  for (const [status, mediaTypes] of responses) {
    const response = dereference(document, `${operationPointer}/responses/${status}`);
    for (const mediaType of mediaTypes) {
      const media = resolvePointer(document, `${response.pointer}/content/${pointerTo(mediaType).slice(2)}`);
      if (isObject(media) && isObject(media['examples'])) for (const name of Object.keys(media['examples'])) names.add(name);
    }
  }
  return [...names];
}

function isOperationId(document: JsonObject, value: string): value is OperationId {
  return listOperations(document).some((o) => o.operationId === value);
}

const cache = new WeakMap<JsonObject, OperationModel[]>();

/** Every operation of the document (the bundled spec by default), modelled once per document. */
export function operationModels(document: JsonObject = loadDocument()): OperationModel[] {
  const cached = cache.get(document);
  if (cached) return cached;
  const documentSecurity = document['security'];
  const models = listOperations(document).map((entry): OperationModel => {
    const { operationId } = entry;
    if (!isOperationId(document, operationId)) throw new Error('unreachable');
    const requirements = entry.operation['security'] ?? documentSecurity;
    const names = Array.isArray(requirements) ? requirements.flatMap((s) => (isObject(s) ? Object.keys(s) : [])) : [];
    const security = names.map((name) => {
      const scheme = dereference(document, pointerTo('components', 'securitySchemes', name)).value;
      const type = isObject(scheme)
        ? scheme['type'] === 'http' && String(scheme['scheme']).toLowerCase() === 'bearer'
          ? 'bearer'
          : String(scheme['type'])
        : 'missing';
      return { name, type };
    });
    const secured = security.length > 0;
    const media = dereference(document, `${entry.pointer}/requestBody`);
    const mediaPointer = `${media.pointer}/content/application~1json`;
    const requestSchemaPointer = `${mediaPointer}/schema`;
    const { pointer: schemaPointer, schema } = resolveSchema(document, requestSchemaPointer);
    if (!isObject(schema['properties'])) throw new Error(`${operationId}: the request body has no properties`);
    const requiredSet = new Set(Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : []);
    const fields = Object.keys(schema['properties']).map((name) =>
      fieldModel(document, name, `${schemaPointer}/properties/${pointerTo(name).slice(2)}`, requiredSet.has(name)),
    );
    const examplesNode = resolvePointer(document, `${mediaPointer}/examples`);
    const examples: Array<{ name: string; value: JsonObject }> = [];
    if (isObject(examplesNode)) {
      for (const name of Object.keys(examplesNode)) {
        const example = dereference(document, `${mediaPointer}/examples/${pointerTo(name).slice(2)}`).value;
        if (isObject(example) && isObject(example['value'])) examples.push({ name, value: example['value'] });
      }
    }
    const responses = documentedResponses(document, entry.pointer);
    return {
      operationId,
      method: entry.method.toUpperCase(),
      path: entry.path,
      pointer: entry.pointer,
      secured,
      security,
      requestSchemaPointer,
      fields,
      required: fields.filter((f) => f.required).map((f) => f.name),
      examples,
      responses,
      responseExampleNames: responseExampleNames(document, entry.pointer, responses),
    };
  });
  cache.set(document, models);
  return models;
}

type ResponseExample = { status: number; mediaType: string; name: string | undefined; value: unknown };
/** Each document's examples by operation: the suite asks for them on every expected answer. */
const examplesOf = new WeakMap<JsonObject, Map<string, ResponseExample[]>>();

/** The examples the spec documents for an operation's responses: status, media type, name (none for `example`), value. */
export function responseExamples(model: OperationModel, document: JsonObject = loadDocument()): ResponseExample[] {
  let known = examplesOf.get(document);
  if (!known) {
    known = new Map();
    examplesOf.set(document, known);
  }
  const key = `${model.operationId} ${model.pointer}`;
  let found = known.get(key);
  if (!found) {
    found = listResponseExamples(model, document);
    known.set(key, found);
  }
  return [...found];
}

function listResponseExamples(model: OperationModel, document: JsonObject): ResponseExample[] {
  const out: ResponseExample[] = [];
  for (const [status, mediaTypes] of model.responses) {
    const response = dereference(document, `${model.pointer}/responses/${status}`);
    for (const mediaType of mediaTypes) {
      const mediaPointer = `${response.pointer}/content/${pointerTo(mediaType).slice(2)}`;
      const media = resolvePointer(document, mediaPointer);
      if (!isObject(media)) continue;
      if ('example' in media) out.push({ status: Number(status), mediaType, name: undefined, value: media['example'] });
      if (isObject(media['examples'])) {
        for (const name of Object.keys(media['examples'])) {
          const example = dereference(document, `${mediaPointer}/examples/${pointerTo(name).slice(2)}`).value;
          if (isObject(example) && 'value' in example) out.push({ status: Number(status), mediaType, name, value: example['value'] });
        }
      }
    }
  }
  return out;
}
