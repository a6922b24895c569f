// Example values are part of the contract consumers read: they copy them, and the mock answers with them. Redocly
// compares no examples, so this does: every named example (and `example`) of every operation's request body and
// answers, base against revision, one change per example whose value changed, named under each operation that shows
// it. INFO; WARN when an answer's example now sits under another status, or a field in it changed its JSON type or its
// `status` (what a client that branches on the example's shape meets).
import { isDeepStrictEqual } from 'node:util';
import { dereference, isObject, pointerTo } from '../lib/openapi.ts';
import { type Change, change } from './change.ts';
import { METHODS } from './reach.ts';

type Shown = { operation: string; direction: 'request' | 'response'; status: string | null; value: unknown; pointer: string };

/** The node at a pointer, through its $refs (the one walker, spec/lib), with the pointer it was found at. */
function follow(document: Record<string, unknown>, pointer: string): { node: unknown; pointer: string } {
  try {
    const found = dereference(document, pointer);
    return { node: found.value, pointer: found.pointer };
  } catch {
    return { node: undefined, pointer };
  }
}

/** Every example a document shows, keyed by operation, direction, media type and name. */
function examplesOf(document: Record<string, unknown>): Map<string, Shown> {
  const shown = new Map<string, Shown>();
  const paths = isObject(document['paths']) ? document['paths'] : {};
  const fromContent = (content: unknown, at: string, operation: string, direction: Shown['direction'], status: string | null): void => {
    if (!isObject(content)) return;
    for (const [type, media] of Object.entries(content)) {
      if (!isObject(media)) continue;
      const where = `${at}/content/${pointerTo(type).slice(2)}`;
      const key = (name: string): string => JSON.stringify([operation, direction, type, name]);
      if ('example' in media) shown.set(key('(example)'), { operation, direction, status, value: media['example'], pointer: `${where}/example` });
      const examples = isObject(media['examples']) ? media['examples'] : {};
      for (const name of Object.keys(examples)) {
        const found = follow(document, `${where}/examples/${pointerTo(name).slice(2)}`);
        if (isObject(found.node) && 'value' in found.node)
          shown.set(key(name), { operation, direction, status, value: found.node['value'], pointer: `${found.pointer}/value` });
      }
    }
  };
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || !isObject(operation) || typeof operation['operationId'] !== 'string') continue;
      const id = operation['operationId'];
      const at = pointerTo('paths', path, method);
      const body = follow(document, `${at}/requestBody`);
      if (isObject(body.node)) fromContent(body.node['content'], body.pointer, id, 'request', null);
      const responses = isObject(operation['responses']) ? operation['responses'] : {};
      for (const status of Object.keys(responses)) {
        const found = follow(document, `${at}/responses/${pointerTo(status).slice(2)}`);
        if (isObject(found.node)) fromContent(found.node['content'], found.pointer, id, 'response', status);
      }
    }
  }
  return shown;
}

const jsonType = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** What makes an answer's example change a WARN: the fields whose JSON type or `status` changed (bounded walk). */
function shapeChanges(before: unknown, after: unknown): string[] {
  const found: string[] = [];
  const stack: Array<[unknown, unknown, string, number]> = [[before, after, '', 0]];
  while (stack.length > 0 && found.length < 5) {
    const [a, b, at, depth] = stack.pop() ?? [undefined, undefined, '', 0];
    if (jsonType(a) !== jsonType(b)) {
      found.push(`${at || '(the value)'} is ${jsonType(b)}, was ${jsonType(a)}`);
      continue;
    }
    if (depth > 64) continue;
    if (isObject(a) && isObject(b))
      for (const key of Object.keys(a)) {
        if (!(key in b)) continue;
        const where = at ? `${at}.${key}` : key;
        if (key === 'status' && typeof a[key] !== 'object' && a[key] !== b[key])
          found.push(`${where} is ${JSON.stringify(b[key])}, was ${JSON.stringify(a[key])}`);
        else stack.push([a[key], b[key], where, depth + 1]);
      }
    else if (Array.isArray(a) && Array.isArray(b)) for (let i = 0; i < Math.min(a.length, b.length); i++) stack.push([a[i], b[i], `${at}[${i}]`, depth + 1]);
  }
  return found;
}

/** One change per example whose value changed, named under every operation that shows it. */
export function exampleChanges(base: Record<string, unknown>, revision: Record<string, unknown>): Change[] {
  const before = examplesOf(base);
  const byPointer = new Map<string, { level: Change['level']; direction: Shown['direction']; operations: string[]; message: string }>();
  for (const [key, now] of examplesOf(revision)) {
    const was = before.get(key);
    if (!was || isDeepStrictEqual(was.value, now.value)) continue;
    const name = (JSON.parse(key) as string[])[3] ?? '';
    const why = now.direction === 'response' ? shapeChanges(was.value, now.value) : [];
    if (was.status !== now.status) why.unshift(`it is now the ${now.status} answer's example, was the ${was.status}'s`);
    const entry = byPointer.get(now.pointer);
    if (entry) {
      if (!entry.operations.includes(now.operation)) entry.operations.push(now.operation);
      continue;
    }
    const label = name === '(example)' ? 'The example' : `Example \`${name}\``;
    byPointer.set(now.pointer, {
      level: why.length > 0 ? 'WARN' : 'INFO',
      direction: now.direction,
      operations: [now.operation],
      message:
        why.length > 0
          ? `${label} of the ${now.direction} changed: ${why.join('; ')}. A client written from the old example may branch the old way.`
          : `${label} of the ${now.direction} changed its value (what consumers copy and the mock answers).`,
    });
  }
  return [...byPointer].map(([pointer, c]) =>
    change({ id: 'example-value-changed', level: c.level, direction: c.direction, operations: c.operations, pointer, message: c.message }),
  );
}
