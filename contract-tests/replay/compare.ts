// Two answers to the same request, compared up to what may honestly differ between two implementations: the status,
// the media type, the headers production fixes (Cache-Control; a request id present; no WWW-Authenticate), and the
// body: every key present, absent or null, every type, and every value that does not depend on which record or when
// (texts, flags, enum values, numbers, computed fields); what does (a time, a record's id) is held to its form only. The first difference is named by JSON pointer, with both values.
import { mediaTypeOf } from '../../spec/lib/conformance.ts';
import type { Received } from '../har/har.ts';

export type Difference = { pointer: string; recorded: string; got: string };

/** A time (ISO date or date-time, or an HTTP date) or an id of a record (a slug ending in a 22-character short UUID, a UUID). */
const VOLATILE =
  /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$|^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4}|(^|-)[A-Za-z0-9]{20,22}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const pointerOf = (path: ReadonlyArray<string | number>): string =>
  path.length === 0 ? '' : `/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
const shown = (value: unknown): string => (value === undefined ? '(absent)' : (JSON.stringify(value) ?? String(value)).slice(0, 200));
const kind = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** The first difference between two JSON values, or undefined. `mapped`: recorded id → target id, compared as equal. */
function firstJsonDifference(recorded: unknown, got: unknown, mapped: ReadonlyMap<string, string>, path: Array<string | number> = []): Difference | undefined {
  const here = (): Difference => ({ pointer: pointerOf(path), recorded: shown(recorded), got: shown(got) });
  if (kind(recorded) !== kind(got)) return here();
  if (Array.isArray(recorded) && Array.isArray(got)) {
    if (recorded.length !== got.length) return { pointer: `${pointerOf(path)}/length`, recorded: String(recorded.length), got: String(got.length) };
    for (let i = 0; i < recorded.length; i++) {
      const found = firstJsonDifference(recorded[i], got[i], mapped, [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof recorded === 'object' && recorded !== null && typeof got === 'object' && got !== null) {
    const a: Record<string, unknown> = { ...recorded };
    const b: Record<string, unknown> = { ...got };
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!Object.hasOwn(b, key) || !Object.hasOwn(a, key)) return { pointer: pointerOf([...path, key]), recorded: shown(a[key]), got: shown(b[key]) };
      const found = firstJsonDifference(a[key], b[key], mapped, [...path, key]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof recorded === 'string' && typeof got === 'string') {
    if (recorded === got || mapped.get(recorded) === got) return undefined;
    if (VOLATILE.test(recorded) && VOLATILE.test(got)) return undefined;
    // A record's id (`id`, `…_id`) names which record: a new one made by the write is another id in each implementation.
    const key = path.at(-1);
    if (typeof key === 'string' && (key === 'id' || key.endsWith('_id')) && recorded !== '' && got !== '') return undefined;
    // A text that embeds a record's id (a JSON document in a string, a sentence naming a record): compared with
    // the ids mapped.
    let replaced = recorded;
    for (const [from, to] of mapped) replaced = replaced.split(from).join(to);
    return replaced === got ? undefined : here();
  }
  return recorded === got ? undefined : here();
}

const parsed = (body: Buffer): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
};

/** The first difference between a recorded answer and the target's, or undefined when they agree. */
export function firstDifference(recorded: Received, got: Received, mapped: ReadonlyMap<string, string>): Difference | undefined {
  if (recorded.status !== got.status) return { pointer: '(status)', recorded: String(recorded.status), got: String(got.status) };
  const media = (r: Received): string => mediaTypeOf(r.headers['content-type']) ?? '(none)';
  if (media(recorded) !== media(got)) return { pointer: '(header content-type)', recorded: media(recorded), got: media(got) };
  for (const header of ['cache-control', 'www-authenticate']) {
    const a = recorded.headers[header];
    const b = got.headers[header];
    if (a !== b) return { pointer: `(header ${header})`, recorded: a ?? '(absent)', got: b ?? '(absent)' };
  }
  if ((recorded.headers['x-request-id'] === undefined) !== (got.headers['x-request-id'] === undefined))
    return {
      pointer: '(header x-request-id)',
      recorded: recorded.headers['x-request-id'] === undefined ? '(absent)' : '(present)',
      got: got.headers['x-request-id'] === undefined ? '(absent)' : '(present)',
    };
  const a = parsed(recorded.body);
  const b = parsed(got.body);
  if (a.ok && b.ok) return firstJsonDifference(a.value, b.value, mapped);
  const textA = recorded.body.toString('utf8');
  const textB = got.body.toString('utf8');
  return textA === textB ? undefined : { pointer: '(body)', recorded: shown(textA), got: shown(textB) };
}
