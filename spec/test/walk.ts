// Walks the bundled document and lists every example with the pointer of the schema it must satisfy.
import { dereference, isObject, listOperations, pointerTo, resolvePointer, type JsonObject } from '../lib/openapi.ts';

export type ExampleCase = {
  /** Where the example is written, for the test name. */
  where: string;
  /** The schema the example must satisfy. */
  schemaPointer: string;
  value: unknown;
};

function mediaTypeExamples(document: JsonObject, contentPointer: string, where: string): ExampleCase[] {
  const content = resolvePointer(document, contentPointer);
  if (!isObject(content)) return [];
  const cases: ExampleCase[] = [];
  for (const mediaType of Object.keys(content)) {
    const mediaPointer = `${contentPointer}/${pointerTo(mediaType).slice(2)}`;
    const media = resolvePointer(document, mediaPointer);
    if (!isObject(media)) continue;
    const schemaPointer = `${mediaPointer}/schema`;
    if ('example' in media) cases.push({ where: `${where} ${mediaType} example`, schemaPointer, value: media['example'] });
    const examples = media['examples'];
    if (isObject(examples)) {
      for (const name of Object.keys(examples)) {
        const { value: example } = dereference(document, `${mediaPointer}/examples/${pointerTo(name).slice(2)}`);
        if (isObject(example) && 'value' in example) cases.push({ where: `${where} ${mediaType} example "${name}"`, schemaPointer, value: example['value'] });
      }
    }
  }
  return cases;
}

/** Every `examples` entry in a schema and its subschemas, checked against the subschema it stands in. */
function schemaExamples(document: JsonObject, pointer: string, where: string, seen: Set<string>): ExampleCase[] {
  if (seen.has(pointer)) return [];
  seen.add(pointer);
  const schema = resolvePointer(document, pointer);
  if (!isObject(schema)) return [];
  const cases: ExampleCase[] = [];
  const examples = schema['examples'];
  if (Array.isArray(examples)) for (const [i, value] of examples.entries()) cases.push({ where: `${where} examples[${i}]`, schemaPointer: pointer, value });
  for (const keyword of ['properties', '$defs', 'patternProperties']) {
    const map = schema[keyword];
    if (isObject(map))
      for (const key of Object.keys(map)) cases.push(...schemaExamples(document, `${pointer}/${keyword}/${pointerTo(key).slice(2)}`, `${where}.${key}`, seen));
  }
  for (const keyword of ['items', 'contains', 'not', 'additionalProperties', 'contentSchema']) {
    if (isObject(schema[keyword])) cases.push(...schemaExamples(document, `${pointer}/${keyword}`, `${where}.${keyword}`, seen));
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) {
    const list = schema[keyword];
    if (Array.isArray(list))
      for (const i of list.keys()) cases.push(...schemaExamples(document, `${pointer}/${keyword}/${i}`, `${where}.${keyword}[${i}]`, seen));
  }
  return cases;
}

export function listExamples(document: JsonObject): ExampleCase[] {
  const cases: ExampleCase[] = [];
  const seen = new Set<string>();
  for (const { method, path, pointer } of listOperations(document)) {
    const label = `${method.toUpperCase()} ${path}`;
    const body = dereference(document, `${pointer}/requestBody`);
    if (isObject(body.value)) cases.push(...mediaTypeExamples(document, `${body.pointer}/content`, `${label} request`));
    const responses = resolvePointer(document, `${pointer}/responses`);
    if (!isObject(responses)) continue;
    for (const status of Object.keys(responses)) {
      const response = dereference(document, `${pointer}/responses/${status}`);
      if (!isObject(response.value)) continue;
      cases.push(...mediaTypeExamples(document, `${response.pointer}/content`, `${label} ${status}`));
      const headers = response.value['headers'];
      if (isObject(headers)) {
        for (const name of Object.keys(headers)) {
          const header = dereference(document, `${response.pointer}/headers/${pointerTo(name).slice(2)}`);
          cases.push(...schemaExamples(document, `${header.pointer}/schema`, `${label} ${status} header ${name}`, seen));
        }
      }
      const content = response.value['content'];
      if (isObject(content))
        for (const mediaType of Object.keys(content))
          cases.push(
            ...schemaExamples(document, `${response.pointer}/content/${pointerTo(mediaType).slice(2)}/schema`, `${label} ${status} ${mediaType} schema`, seen),
          );
    }
  }
  const schemas = resolvePointer(document, '#/components/schemas');
  if (isObject(schemas)) for (const name of Object.keys(schemas)) cases.push(...schemaExamples(document, pointerTo('components', 'schemas', name), name, seen));
  return cases;
}
