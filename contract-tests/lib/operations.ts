// What the suite knows about each operation, all derived from generated/openapi.json: method and path, whether it
// is secured, its request fields in declaration order (kind, required, nullable, enum values), its target id field,
// its named request examples and its documented error bodies. A new operation in the spec gets every table-driven
// check from this model; the only hand-written line per operation is its profile (which fixture story it writes).
import type { operations } from '../../generated/types.ts';
import { dereference, isObject, listOperations, loadDocument, pointerTo, resolvePointer, type JsonObject } from '../../spec/lib/openapi.ts';
import type { RecordGroup, RecordStory } from './env.ts';

export type OperationId = keyof operations;
export type RequestBody<K extends OperationId> = operations[K]['requestBody']['content']['application/json'];

/** How the service decodes a field (transport-auth-errors.md, "The decoding steps"), read from the field's schema. */
export type FieldKind = 'id' | 'rich-text' | 'string' | 'boolean' | 'enum' | 'id-list' | 'other';

export type FieldModel = {
  name: string;
  kind: FieldKind;
  required: boolean;
  nullable: boolean;
  /** Enum fields: the allowed values in spec order, and the enum's name as the service prints it (the schema title). */
  enumValues?: string[];
  enumName?: string;
  /** The pointer of the field's schema in the bundled document. */
  schemaPointer: string;
};

export type OperationModel = {
  operationId: OperationId;
  method: string;
  path: string;
  pointer: string;
  /** Whether the operation (or the document) requires a bearer token. */
  secured: boolean;
  requestSchemaPointer: string;
  /** Request fields in declaration order. */
  fields: FieldModel[];
  /** Required field names in declaration order (the order of `Missing required fields: …`). */
  required: string[];
  /** The required id field that names the record the operation changes (`project_id`, `goal_id`). */
  targetField: string;
  /** The fixture group of that record (`projects`, `goals`). */
  group: RecordGroup;
  /** Named request examples, in spec order. */
  examples: Array<{ name: string; value: JsonObject }>;
};

/** Per operation, the one thing the spec cannot say: the fixture story whose record the operation may change. */
export type Profile = { target: RecordStory };
export const PROFILES = {
  resumeProject: { target: 'paused' },
  closeGoal: { target: 'open' },
} satisfies { [K in OperationId]: Profile };

function isOperationId(value: string): value is OperationId {
  return Object.hasOwn(PROFILES, value);
}

/** Follows `$ref` (sibling keywords such as `description` are annotations) to the schema and its pointer. */
export function resolveSchema(document: JsonObject, pointer: string): { pointer: string; schema: JsonObject } {
  let current = pointer;
  for (let hops = 0; hops < 32; hops++) {
    const schema = resolvePointer(document, current);
    if (!isObject(schema)) return { pointer: current, schema: {} };
    if (typeof schema['$ref'] !== 'string') return { pointer: current, schema };
    current = schema['$ref'];
  }
  throw new Error(`reference cycle at ${pointer}`);
}

function typesOf(schema: JsonObject): string[] {
  const type = schema['type'];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : typeof type === 'string' ? [type] : [];
}

function refOf(document: JsonObject, pointer: string): string | undefined {
  const raw = resolvePointer(document, pointer);
  return isObject(raw) && typeof raw['$ref'] === 'string' ? raw['$ref'] : undefined;
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
  if (refOf(document, pointer) === INPUT_ID || resolved === INPUT_ID) kind = 'id';
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

let cached: OperationModel[] | undefined;

/** Every operation of the spec, modelled. */
export function operationModels(): OperationModel[] {
  if (cached) return cached;
  const document = loadDocument();
  const documentSecurity = document['security'];
  cached = listOperations(document).map((entry) => {
    const { operationId } = entry;
    if (!isOperationId(operationId)) throw new Error(`the spec has operation ${operationId} but contract-tests/lib/operations.ts PROFILES does not; add its fixture story there`);
    const security = entry.operation['security'] ?? documentSecurity;
    const secured = Array.isArray(security) && security.some((s) => isObject(s) && Object.keys(s).length > 0);
    const media = dereference(document, `${entry.pointer}/requestBody`);
    const mediaPointer = `${media.pointer}/content/application~1json`;
    const requestSchemaPointer = `${mediaPointer}/schema`;
    const { pointer: schemaPointer, schema } = resolveSchema(document, requestSchemaPointer);
    const properties = isObject(schema['properties']) ? Object.keys(schema['properties']) : [];
    const requiredSet = new Set(Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : []);
    const fields = properties.map((name) => fieldModel(document, name, `${schemaPointer}/properties/${pointerTo(name).slice(2)}`, requiredSet.has(name)));
    const target = fields.find((f) => f.required && f.kind === 'id');
    if (!target) throw new Error(`${operationId} has no required id field; the suite cannot tell which record it changes`);
    const group = `${target.name.replace(/_id$/, '')}s`;
    if (group !== 'projects' && group !== 'goals') throw new Error(`${operationId} targets ${group}, which the suite has no fixture variables for (contract-tests/lib/env.ts RECORD_STORIES)`);
    const examplesNode = resolvePointer(document, `${mediaPointer}/examples`);
    const examples: Array<{ name: string; value: JsonObject }> = [];
    if (isObject(examplesNode)) {
      for (const name of Object.keys(examplesNode)) {
        const example = dereference(document, `${mediaPointer}/examples/${pointerTo(name).slice(2)}`).value;
        if (isObject(example) && isObject(example['value'])) examples.push({ name, value: example['value'] });
      }
    }
    return { operationId, method: entry.method.toUpperCase(), path: entry.path, pointer: entry.pointer, secured, requestSchemaPointer, fields, required: fields.filter((f) => f.required).map((f) => f.name), targetField: target.name, group, examples };
  });
  return cached;
}

export function operationModel(operationId: OperationId): OperationModel {
  const model = operationModels().find((m) => m.operationId === operationId);
  if (!model) throw new Error(`operation ${operationId} is not in the spec`);
  return model;
}

/** The example the spec documents for a response (`example`, or the named one under `examples`). */
export function responseExample(model: OperationModel, status: number, mediaType: string, exampleName?: string): unknown {
  const document = loadDocument();
  const response = dereference(document, `${model.pointer}/responses/${status}`);
  const media = resolvePointer(document, `${response.pointer}/content/${pointerTo(mediaType).slice(2)}`);
  if (!isObject(media)) throw new Error(`${model.operationId} documents no ${mediaType} body for ${status}`);
  if (exampleName === undefined) {
    if ('example' in media) return media['example'];
    throw new Error(`${model.operationId} ${status} ${mediaType} has no single example`);
  }
  const named = isObject(media['examples']) ? media['examples'][exampleName] : undefined;
  if (!isObject(named)) throw new Error(`${model.operationId} ${status} ${mediaType} has no example ${exampleName}`);
  const resolved = typeof named['$ref'] === 'string' ? dereference(document, named['$ref']).value : named;
  if (!isObject(resolved) || !('value' in resolved)) throw new Error(`${model.operationId} ${status} ${mediaType} example ${exampleName} has no value`);
  return resolved['value'];
}

/** The response example as a string (plain-text bodies), or the JSON text of a JSON example. */
export function responseExampleText(model: OperationModel, status: number, mediaType: string, exampleName?: string): string {
  const value = responseExample(model, status, mediaType, exampleName);
  return typeof value === 'string' ? value : JSON.stringify(value);
}
