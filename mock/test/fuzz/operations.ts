// What the fuzzer knows about each operation, read from generated/openapi.json and nothing else: the path, the
// declared inputs (names, required, nullable, and a shape inferred from each input's schema), the request examples,
// the documented statuses and media types, and the names of the response examples (for `Prefer: example=NAME`).
import { dereference, documentedResponses, isObject, listOperations, loadDocument, pointerTo, resolvePointer, type JsonObject } from '../../../spec/lib/openapi.ts';

export type InputShape =
  | { kind: 'id' }
  | { kind: 'id_list' }
  | { kind: 'rich_text' }
  | { kind: 'enum'; values: string[] }
  | { kind: 'boolean' }
  | { kind: 'string' }
  | { kind: 'unknown' };

export type InputField = { name: string; required: boolean; nullable: boolean; shape: InputShape };

export type FuzzOperation = {
  operationId: string;
  path: string;
  /** JSON pointer of the operation object in the bundled document. */
  pointer: string;
  /** The declared inputs, in declaration order. */
  fields: InputField[];
  /** The spec's request examples: valid bodies against the seed, which is built from the same examples. */
  examples: JsonObject[];
  /** Documented status → media types. */
  responses: Map<string, string[]>;
  /** Every named response example of the operation (any status). */
  exampleNames: string[];
};

/** Follows `$ref`s of a schema (siblings of a `$ref` are annotations here: descriptions). */
function follow(document: JsonObject, schema: unknown): JsonObject {
  let node = schema;
  for (let hops = 0; hops < 16 && isObject(node) && typeof node['$ref'] === 'string'; hops++) node = resolvePointer(document, node['$ref']);
  return isObject(node) ? node : {};
}

function typesOf(schema: JsonObject): unknown[] {
  const type = schema['type'];
  return Array.isArray(type) ? type : [type];
}

/**
 * An id input is recognised by what its schema accepts, not by its name: a string pattern that takes a canonical
 * UUID and a bare 22-character short id but refuses text with a space and a `!` after the last dash.
 */
function isIdSchema(schema: JsonObject): boolean {
  const pattern = schema['pattern'];
  if (!typesOf(schema).includes('string') || typeof pattern !== 'string') return false;
  const regex = new RegExp(pattern, 'u');
  return regex.test('a66b0d38-9d95-447e-bd29-9753a7677796') && regex.test('FjO1YSsAoCpZz3SMRvlSvK') && !regex.test('no such id!');
}

function shapeOf(document: JsonObject, property: unknown): InputShape {
  const schema = follow(document, property);
  if (schema['contentMediaType'] === 'application/json') return { kind: 'rich_text' };
  if (Array.isArray(schema['enum'])) return { kind: 'enum', values: schema['enum'].filter((v) => typeof v === 'string') };
  const types = typesOf(schema);
  if (types.includes('array')) return isIdSchema(follow(document, schema['items'])) ? { kind: 'id_list' } : { kind: 'unknown' };
  if (types.includes('boolean')) return { kind: 'boolean' };
  if (types.includes('string')) return isIdSchema(schema) ? { kind: 'id' } : { kind: 'string' };
  return { kind: 'unknown' };
}

function requestExamples(document: JsonObject, operationPointer: string): JsonObject[] {
  const media = resolvePointer(document, `${operationPointer}/requestBody/content/application~1json`);
  if (!isObject(media) || !isObject(media['examples'])) return [];
  const out: JsonObject[] = [];
  for (const name of Object.keys(media['examples'])) {
    const example = dereference(document, `${operationPointer}/requestBody/content/application~1json/examples/${pointerTo(name).slice(2)}`).value;
    if (isObject(example) && isObject(example['value'])) out.push(example['value']);
  }
  return out;
}

function responseExampleNames(document: JsonObject, operationPointer: string): string[] {
  const names = new Set<string>();
  for (const [status, mediaTypes] of documentedResponses(document, operationPointer)) {
    const response = dereference(document, `${operationPointer}/responses/${status}`);
    for (const mediaType of mediaTypes) {
      const media = resolvePointer(document, `${response.pointer}/content/${pointerTo(mediaType).slice(2)}`);
      if (isObject(media) && isObject(media['examples'])) for (const name of Object.keys(media['examples'])) names.add(name);
    }
  }
  return [...names];
}

/** Every operation of the spec, as the fuzzer uses it. */
export function fuzzOperations(document: JsonObject = loadDocument()): FuzzOperation[] {
  return listOperations(document).map((entry) => {
    const requestSchema = follow(document, resolvePointer(document, `${entry.pointer}/requestBody/content/application~1json/schema`));
    const properties = isObject(requestSchema['properties']) ? requestSchema['properties'] : {};
    const required = new Set(Array.isArray(requestSchema['required']) ? requestSchema['required'] : []);
    const fields = Object.entries(properties).map(([name, property]) => ({
      name,
      required: required.has(name),
      nullable: typesOf(follow(document, property)).includes('null'),
      shape: shapeOf(document, property),
    }));
    if (fields.length === 0) throw new Error(`${entry.operationId}: no request body properties in the spec; nothing to fuzz`);
    return {
      operationId: entry.operationId,
      path: entry.path,
      pointer: entry.pointer,
      fields,
      examples: requestExamples(document, entry.pointer),
      responses: documentedResponses(document, entry.pointer),
      exampleNames: responseExampleNames(document, entry.pointer),
    };
  });
}
