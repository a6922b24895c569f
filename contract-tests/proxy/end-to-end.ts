// Headers as the proxy passes them on: the end-to-end ones only (hop-by-hop headers are never forwarded in either
// direction), as raw pairs, as one lower-case record (what the check reads) and flat again (what node:http writes).

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded in either direction. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function hopByHop(raw: ReadonlyArray<string>): Set<string> {
  const out = new Set(HOP_BY_HOP);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if ((raw[i] ?? '').toLowerCase() === 'connection') for (const name of (raw[i + 1] ?? '').split(',')) if (name.trim()) out.add(name.trim().toLowerCase());
  }
  return out;
}

/** Raw header pairs without the hop-by-hop ones. */
export function endToEnd(raw: ReadonlyArray<string>): Array<[string, string]> {
  const skip = hopByHop(raw);
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (!skip.has(name.toLowerCase())) out.push([name, raw[i + 1] ?? '']);
  }
  return out;
}

/** Header pairs as one record: lower-case names, repeated headers joined with ", ". */
export function lowerJoined(pairs: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    out[lower] = Object.hasOwn(out, lower) ? `${out[lower]}, ${value}` : value;
  }
  return out;
}

/** Header pairs as node:http's flat raw list. */
export const flat = (pairs: ReadonlyArray<readonly [string, string]>): string[] => pairs.flat();
