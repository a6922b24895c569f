// The acyclic projection of the bundled document, for tools that cannot load a schema graph with cycles (Prism,
// openapi-zod-client, kubb, swagger-ui's "expand all"): generated/openapi.acyclic.json.
//
// The component schemas reference each other in cycles (Person → Company → Space → … → Person). Each schema has a
// depth: the fewest references from an operation to it. A back-reference is a reference on a cycle (its target leads
// back to the schema that holds it) to a record (a schema with `__typename` and `id`) no deeper than that schema; it
// is replaced by a `$ref` to a small named reference schema, `<Name>Reference`: the record's `__typename` and `id`,
// taken from the full schema, with the other properties allowed but not described. Depth cannot grow all the way
// round a cycle, so every cycle loses at least one reference; and since every reference kept either goes deeper or
// leaves the cycle, a response's schema expands to a small tree: about 300 KB for resumeProject. (Cutting only
// references that close a cycle on a depth-first walk keeps more types but expands it to 4-10 MB, and Prism then
// takes 20 s or more to answer its first request.) Every component keeps its name and every other reference; every
// operation, response, example and security rule is copied as it is. The literal document stays the source of
// truth; this one is a projection for tools.
import { isObject, pointerTo, type JsonObject } from './openapi.ts';

const SCHEMA_PREFIX = '#/components/schemas/';

/** The name of the reference schema that stands in for a back-reference to `name`. */
export function referenceSchemaName(name: string): string {
  return `${name}Reference`;
}

type Cut = {
  /** The component schema that holds the back-reference. */
  from: string;
  /** The schema it referenced, now replaced by its reference schema. */
  to: string;
  /** The JSON pointer of the `$ref` object in the literal document. */
  pointer: string;
};

export type AcyclicProjection = {
  document: JsonObject;
  /** Every `$ref` replaced, in walk order. */
  cuts: Cut[];
};

/** The name of the component schema a `$ref` value points at, if it is one. */
function schemaName(ref: unknown): string | undefined {
  return typeof ref === 'string' && ref.startsWith(SCHEMA_PREFIX)
    ? decodeURIComponent(ref.slice(SCHEMA_PREFIX.length)).replaceAll('~1', '/').replaceAll('~0', '~')
    : undefined;
}

/** The component schemas `node` references, in document order, with the pointer of each `$ref` object. */
function schemaReferences(node: unknown, pointer: string, out: Array<{ name: string; pointer: string }> = []): Array<{ name: string; pointer: string }> {
  if (Array.isArray(node)) for (const [i, item] of node.entries()) schemaReferences(item, `${pointer}/${i}`, out);
  else if (isObject(node)) {
    const name = schemaName(node['$ref']);
    if (name !== undefined) out.push({ name, pointer });
    for (const [key, value] of Object.entries(node)) schemaReferences(value, `${pointer}/${pointerTo(key).slice(2)}`, out);
  }
  return out;
}

/** The component schemas the operations (and the other components) reference directly, in document order. */
function roots(document: JsonObject, schemas: JsonObject): string[] {
  const order: string[] = [];
  const add = (name: string): void => {
    if (!order.includes(name) && name in schemas) order.push(name);
  };
  const seen = new Set<string>();
  // Non-schema references (responses, request bodies, headers, parameters) are followed where they are used.
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (isObject(node)) {
      const ref = node['$ref'];
      const name = schemaName(ref);
      if (name !== undefined) add(name);
      else if (typeof ref === 'string' && ref.startsWith('#/components/') && !seen.has(ref)) {
        seen.add(ref);
        const [kind, key] = ref.slice('#/components/'.length).split('/');
        const components = document['components'];
        const group = isObject(components) && kind !== undefined ? components[kind] : undefined;
        if (isObject(group) && key !== undefined) walk(group[decodeURIComponent(key).replaceAll('~1', '/').replaceAll('~0', '~')]);
      }
      for (const value of Object.values(node)) walk(value);
    }
  };
  walk(document['paths']);
  walk(document['webhooks']);
  const components = document['components'];
  if (isObject(components)) for (const [kind, group] of Object.entries(components)) if (kind !== 'schemas') walk(group);
  return order;
}

/** The reference schema for `name`: its `__typename` and `id`, as the full schema declares them. */
function referenceSchema(name: string, full: JsonObject): JsonObject {
  const properties = isObject(full['properties']) ? full['properties'] : {};
  const kept = ['__typename', 'id'];
  const required = Array.isArray(full['required']) ? full['required'].filter((key) => kept.includes(String(key))) : [];
  const title = typeof full['title'] === 'string' ? full['title'] : name;
  return {
    title: `${title} reference`,
    description:
      `A reference to a ${title}, standing in for the full schema to cut a cycle of references back to it: its ` +
      `${kept.map((key) => `\`${key}\``).join(' and ')}. In the literal spec, generated/openapi.json (the source of truth), this place ` +
      `references \`${name}\` (components/schemas/${name}), and the service sends what that schema describes; here ` +
      `the other properties are allowed but not described.`,
    type: 'object',
    ...(required.length > 0 ? { required } : {}),
    properties: Object.fromEntries(kept.map((key) => [key, properties[key]])),
    additionalProperties: true,
  };
}

/** A cycle in a graph given as adjacency lists (the names along it, first repeated at the end), if there is one. */
export function findCycle(graph: ReadonlyMap<string, ReadonlyArray<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

/** The component schemas each component schema references (by name), in document order. */
export function schemaGraph(document: JsonObject): Map<string, string[]> {
  const components = isObject(document['components']) ? document['components'] : {};
  const schemas = isObject(components['schemas']) ? components['schemas'] : {};
  return new Map(Object.keys(schemas).map((name) => [name, schemaReferences(schemas[name], pointerTo('components', 'schemas', name)).map((r) => r.name)]));
}

export function acyclicProjection(source: JsonObject): AcyclicProjection {
  const document = structuredClone(source);
  const components = isObject(document['components']) ? document['components'] : {};
  const schemas = isObject(components['schemas']) ? components['schemas'] : {};
  const cuts: Cut[] = [];

  // Each schema's depth: the fewest references from an operation to it (breadth-first from all the operations at
  // once; a schema no operation reaches counts from itself).
  const references = new Map(Object.keys(schemas).map((name) => [name, schemaReferences(schemas[name], pointerTo('components', 'schemas', name))]));
  const depth = new Map<string, number>();
  const breadthFirst = (starts: ReadonlyArray<string>): void => {
    const queue = starts.filter((name) => !depth.has(name));
    for (const name of queue) depth.set(name, 0);
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      for (const { name } of references.get(next) ?? []) {
        if (depth.has(name) || !(name in schemas)) continue;
        depth.set(name, (depth.get(next) ?? 0) + 1);
        queue.push(name);
      }
    }
  };
  breadthFirst(roots(document, schemas));
  for (const name of Object.keys(schemas)) breadthFirst([name]);
  const depthOf = (name: string): number => depth.get(name) ?? 0;

  // The strongly connected components of the reference graph: a reference can close a cycle only inside one.
  const component = new Map<string, number>();
  {
    let counter = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const strongConnect = (node: string): void => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      for (const { name: next } of references.get(node) ?? []) {
        if (!(next in schemas)) continue;
        if (!index.has(next)) {
          strongConnect(next);
          low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
        } else if (!component.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
      if (low.get(node) === index.get(node)) {
        for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
          component.set(member, index.get(node) ?? 0);
          if (member === node) break;
        }
      }
    };
    for (const name of Object.keys(schemas)) if (!index.has(name)) strongConnect(name);
  }

  // A back-reference: on a cycle (both ends in one component) and pointing at a record (a schema with `__typename`
  // and `id`) no deeper than the schema that holds it. Depth cannot grow all the way round a cycle, so each cycle
  // has one; and since every reference kept goes deeper or leaves the cycle, a response expands to a bounded tree.
  const isRecord = (name: string): boolean => {
    const schema = schemas[name];
    return isObject(schema) && isObject(schema['properties']) && '__typename' in schema['properties'] && 'id' in schema['properties'];
  };
  for (const [from, list] of references) {
    for (const reference of list) {
      const to = reference.name;
      if (component.get(from) === component.get(to) && depthOf(to) <= depthOf(from) && isRecord(to)) cuts.push({ from, to, pointer: reference.pointer });
    }
  }

  // What is left must be acyclic: a cycle through schemas that are not records has nowhere to cut.
  const cutPointers = new Set(cuts.map((cut) => cut.pointer));
  const remaining = findCycle(new Map([...references].map(([name, list]) => [name, list.filter((r) => !cutPointers.has(r.pointer)).map((r) => r.name)])));
  if (remaining) throw new Error(`a cycle of references has no record (a schema with __typename and id) to cut at: ${remaining.join(' → ')}`);

  // Replace each back-reference in place; the `$ref` object's other keywords (its description) stay.
  for (const cut of cuts) {
    const segments = cut.pointer
      .slice(2)
      .split('/')
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
    let node: unknown = document;
    for (const segment of segments) node = Array.isArray(node) ? node[Number(segment)] : isObject(node) ? node[segment] : undefined;
    if (!isObject(node)) throw new Error(`no $ref at ${cut.pointer}`);
    node['$ref'] = `${SCHEMA_PREFIX}${pointerTo(referenceSchemaName(cut.to)).slice(2)}`;
  }

  // The reference schemas, each after the schema it stands for.
  const targets = new Set(cuts.map((cut) => cut.to));
  const withReferences: JsonObject = {};
  for (const [name, schema] of Object.entries(schemas)) {
    if (referenceSchemaName(name) in schemas) throw new Error(`components/schemas/${referenceSchemaName(name)} already exists`);
    withReferences[name] = schema;
    if (targets.has(name) && isObject(schema)) withReferences[referenceSchemaName(name)] = referenceSchema(name, schema);
  }
  components['schemas'] = withReferences;

  const info = isObject(document['info']) ? document['info'] : {};
  const description = typeof info['description'] === 'string' ? info['description'] : '';
  info['description'] =
    `${description.trimEnd()}\n\n\n## This file is the acyclic export\n\n` +
    `The component schemas of this API reference each other in cycles (a person's company lists its people), which ` +
    `some tools cannot load. In this export, ${cuts.length} references that close a cycle point at a small reference ` +
    `schema (\`${referenceSchemaName(cuts[0]?.to ?? 'Person')}\` and the like: the record's \`__typename\` and \`id\`) instead of the full schema. ` +
    `Every operation, response, example, security rule and named schema is the same as in the literal spec, ` +
    `\`generated/openapi.json\`, which is the source of truth where the two differ.\n`;
  document['info'] = info;
  return { document, cuts };
}
