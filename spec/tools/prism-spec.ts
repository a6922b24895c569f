// A copy of generated/openapi.json that Prism 5.16 can load. Prism dereferences the whole document with
// @stoplight/json-schema-ref-parser and then `decycle`s it; both walk every simple path through the schema graph,
// and our schemas form a dense cycle (Person → Company → Space → Notification → Activity → … → Person), so
// `prism mock generated/openapi.json` never starts listening (measured: minutes of CPU, no port).
//
// The copy has no `$ref` and no cycle: requests, parameters and headers are inlined whole; each response schema is
// inlined only as far as that response's own examples reach (the examples are what Prism serves and validates
// against the schema on every request), and a reference that no example value reaches becomes `{}`. So for every
// request the bench sends, Prism does the same work as it would on the real document: same routes, same request
// schemas, same security, same examples, same response validation of those examples.
import { isObject, resolvePointer, type JsonObject } from '../lib/openapi.ts';

export type PrismDocument = { document: JsonObject; cutReferences: number; bytes: number };

/** The schema keywords whose value is one subschema applied to the same instance. */
const SAME_INSTANCE = new Set(['not', 'if', 'then', 'else']);
/** The schema keywords whose value is a list of subschemas applied to the same instance. */
const SAME_INSTANCE_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);

export function prismDocument(source: JsonObject): PrismDocument {
  let cutReferences = 0;

  const target = (ref: string): unknown => {
    const value = resolvePointer(source, ref);
    if (value === undefined) throw new Error(`unresolvable $ref ${ref}`);
    return value;
  };

  /** A `$ref` object's own keywords besides `$ref` (descriptions), laid over the inlined target. */
  const withSiblings = (node: JsonObject, inlined: unknown): unknown => {
    const { $ref: _ref, ...siblings } = node;
    return Object.keys(siblings).length === 0 ? inlined : isObject(inlined) ? { ...inlined, ...siblings } : { allOf: [inlined], ...siblings };
  };

  /** Everything inlined; a schema reference that would recurse becomes `{}` (request schemas have none). */
  const whole = (node: unknown, stack: ReadonlyArray<string>): unknown => {
    if (Array.isArray(node)) return node.map((item) => whole(item, stack));
    if (!isObject(node)) return node;
    const ref = node['$ref'];
    if (typeof ref === 'string') {
      if (stack.includes(ref)) {
        cutReferences++;
        return withSiblings(node, {});
      }
      return withSiblings(node, whole(target(ref), [...stack, ref]));
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, whole(value, stack)]));
  };

  /** A response schema inlined as far as the instances (the response's examples) reach into it. */
  const guided = (schema: unknown, instances: ReadonlyArray<unknown>, stack: ReadonlyArray<{ ref: string; instances: ReadonlyArray<unknown> }>): unknown => {
    if (!isObject(schema)) return schema;
    const ref = schema['$ref'];
    if (typeof ref === 'string') {
      const loops = stack.some((s) => s.ref === ref && s.instances.length === instances.length && s.instances.every((v, i) => v === instances[i]));
      if (instances.length === 0 || loops) {
        cutReferences++;
        return withSiblings(schema, {});
      }
      return withSiblings(schema, guided(target(ref), instances, [...stack, { ref, instances }]));
    }
    const objects = instances.filter(isObject);
    const arrays = instances.filter(Array.isArray);
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, guided(sub, objects.flatMap((o) => (name in o ? [o[name]] : [])), stack)]));
      } else if ((key === 'additionalProperties' || key === 'unevaluatedProperties' || key === 'propertyNames') && isObject(value)) {
        out[key] = guided(value, objects.flatMap((o) => Object.values(o)), stack);
      } else if (key === 'patternProperties' && isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([pattern, sub]) => [pattern, guided(sub, objects.flatMap((o) => Object.values(o)), stack)]));
      } else if ((key === 'items' || key === 'contains' || key === 'unevaluatedItems') && isObject(value)) {
        out[key] = guided(value, arrays.flat(), stack);
      } else if (key === 'prefixItems' && Array.isArray(value)) {
        out[key] = value.map((sub, index) => guided(sub, arrays.flatMap((a) => (index < a.length ? [a[index]] : [])), stack));
      } else if (SAME_INSTANCE_LISTS.has(key) && Array.isArray(value)) {
        out[key] = value.map((sub) => guided(sub, instances, stack));
      } else if (SAME_INSTANCE.has(key) && isObject(value)) {
        out[key] = guided(value, instances, stack);
      } else {
        out[key] = whole(value, []);
      }
    }
    return out;
  };

  /** The example values of a media type object (`example`, and each of `examples`, references followed). */
  const examplesOf = (media: JsonObject): unknown[] => {
    const values: unknown[] = [];
    if ('example' in media) values.push(whole(media['example'], []));
    if (isObject(media['examples'])) {
      for (const example of Object.values(media['examples'])) {
        const resolved = whole(example, []);
        if (isObject(resolved) && 'value' in resolved) values.push(resolved['value']);
      }
    }
    return values;
  };

  const response = (node: unknown): unknown => {
    const resolved = isObject(node) && typeof node['$ref'] === 'string' ? withSiblings(node, target(node['$ref'])) : node;
    if (!isObject(resolved)) return resolved;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(resolved)) {
      if (key !== 'content' || !isObject(value)) {
        out[key] = whole(value, []);
        continue;
      }
      const content: JsonObject = {};
      for (const [mediaType, media] of Object.entries(value)) {
        if (!isObject(media)) continue;
        const { schema, ...rest } = media;
        content[mediaType] = { ...(whole(rest, []) as JsonObject), ...(schema === undefined ? {} : { schema: guided(schema, examplesOf(media), []) }) };
      }
      out[key] = content;
    }
    return out;
  };

  const paths: JsonObject = {};
  const sourcePaths = source['paths'];
  if (!isObject(sourcePaths)) throw new Error('the document has no paths');
  for (const [path, rawItem] of Object.entries(sourcePaths)) {
    const item = isObject(rawItem) && typeof rawItem['$ref'] === 'string' ? target(rawItem['$ref']) : rawItem;
    if (!isObject(item)) continue;
    const outItem: JsonObject = {};
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || !isObject(operation['responses'])) {
        outItem[method] = whole(operation, []);
        continue;
      }
      const { responses, ...rest } = operation;
      outItem[method] = {
        ...(whole(rest, []) as JsonObject),
        responses: Object.fromEntries(Object.entries(responses).map(([status, r]) => [status, response(r)])),
      };
    }
    paths[path] = outItem;
  }

  const components = isObject(source['components']) ? source['components'] : {};
  const document: JsonObject = { ...source, paths, components: { securitySchemes: whole(components['securitySchemes'] ?? {}, []) } };
  return { document, cutReferences, bytes: JSON.stringify(document).length };
}
