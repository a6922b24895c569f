// Which operations a part of a bundled document reaches: every operation whose request (body, parameters) or answer
// (responses) shows a component, through any chain of local $refs, and the operations a path item holds. A change is
// named under each operation that shows the changed part (../shared design, "Added in the fourth round"): a shared
// `Goal` or `Person` is seen by both answers, so a change to it is listed under both.
import { isObject } from '../lib/openapi.ts';

export type Direction = 'request' | 'response' | 'document';
export type Reach = {
  /** `<kind>/<name>` of a component (`schemas/Goal`, `responses/NotFound`, `examples/…`) → operations, by direction. */
  components: Map<string, Record<'request' | 'response', string[]>>;
  /** A path (unescaped) → its operations by method. */
  paths: Map<string, Map<string, string>>;
  /** A security scheme → the operations whose requirement names it. */
  schemes: Map<string, string[]>;
};

export const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
export const unescapePointer = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');
const COMPONENT_REF = /^#\/components\/([^/]+)\/([^/]+)$/;

/** Every component reached from `node`, as `<kind>/<name>` (a $ref chain followed once per component). */
function reached(document: Record<string, unknown>, node: unknown): Set<string> {
  const components = isObject(document['components']) ? document['components'] : {};
  const found = new Set<string>();
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) for (const v of item) stack.push(v);
    else if (isObject(item)) {
      const ref = item['$ref'];
      const match = typeof ref === 'string' ? COMPONENT_REF.exec(ref) : null;
      if (match?.[1] !== undefined && match[2] !== undefined) {
        const [kind, name] = [match[1], unescapePointer(match[2])];
        const key = `${kind}/${name}`;
        const group = components[kind];
        if (!found.has(key)) {
          found.add(key);
          if (isObject(group)) stack.push(group[name]);
        }
      }
      for (const [key, value] of Object.entries(item)) if (key !== '$ref') stack.push(value);
    }
  }
  return found;
}

/** The reach of every component, path and security scheme of a document. */
export function reachOf(document: Record<string, unknown>): Reach {
  const reach: Reach = { components: new Map(), paths: new Map(), schemes: new Map() };
  const paths = isObject(document['paths']) ? document['paths'] : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    const held = new Map<string, string>();
    reach.paths.set(path, held);
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || !isObject(operation) || typeof operation['operationId'] !== 'string') continue;
      const id = operation['operationId'];
      held.set(method, id);
      for (const [direction, parts] of [
        ['request', [operation['requestBody'], operation['parameters'], item['parameters']]],
        ['response', [operation['responses']]],
      ] as const) {
        for (const key of reached(document, parts)) {
          const entry = reach.components.get(key) ?? { request: [], response: [] };
          if (!entry[direction].includes(id)) entry[direction].push(id);
          reach.components.set(key, entry);
        }
      }
      const security = operation['security'] ?? document['security'];
      for (const requirement of Array.isArray(security) ? security : [])
        for (const scheme of isObject(requirement) ? Object.keys(requirement) : []) {
          const users = reach.schemes.get(scheme) ?? [];
          if (!users.includes(id)) users.push(id);
          reach.schemes.set(scheme, users);
        }
    }
  }
  return reach;
}

/** The directions in which a pointer's component is shown (both when it is in a request and in an answer). */
export function directionsOf(pointer: string, reach: Reach): Array<'request' | 'response'> {
  const match = /^#\/components\/([^/]+)\/([^/]+)/.exec(pointer);
  if (!match?.[1] || match[2] === undefined) return [];
  const entry = reach.components.get(`${match[1]}/${unescapePointer(match[2])}`);
  if (!entry) return [];
  return (['request', 'response'] as const).filter((d) => entry[d].length > 0);
}

/**
 * The operations that show the part at `pointer` in `direction`: a component's users in that direction (in both for
 * `document`), a path's operations (one when the pointer names its method), a security scheme's users. Empty for a
 * document-wide part (info, servers, tags).
 */
export function operationsAt(pointer: string, direction: Direction, reach: Reach): string[] {
  const segments = pointer.replace(/^#\/?/, '').split('/').map(unescapePointer);
  if (segments[0] === 'paths' && segments[1] !== undefined) {
    const held = reach.paths.get(segments[1]);
    if (!held) return [];
    const method = segments[2];
    if (method !== undefined && METHODS.has(method)) {
      const id = held.get(method);
      return id === undefined ? [] : [id];
    }
    return [...held.values()];
  }
  if (segments[0] === 'components' && segments[1] === 'securitySchemes' && segments[2] !== undefined) return [...(reach.schemes.get(segments[2]) ?? [])];
  if (segments[0] === 'components' && segments[1] !== undefined && segments[2] !== undefined) {
    const entry = reach.components.get(`${segments[1]}/${segments[2]}`);
    if (!entry) return [];
    if (direction === 'document') return [...new Set([...entry.request, ...entry.response])];
    return [...entry[direction]];
  }
  return [];
}
