// The service's id rules as a model (RULES.md#ids): how a request id string
// is decoded, what answer each outcome gets, and the other forms that name the same record.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const MAX = (1n << 128n) - 1n;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the decoder does with a string: null (400), no record form (404 before the token), a crash (500), or a UUID to look up. */
export type Decoded = { kind: 'null' } | { kind: 'undecodable' } | { kind: 'crash' } | { kind: 'uuid'; uuid: string };

function uuidOf(value: bigint): string {
  const hex = value.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function decodeId(id: string): Decoded {
  if (id === '') return { kind: 'null' };
  if (UUID.test(id)) return { kind: 'uuid', uuid: id.toLowerCase() };
  const short = id.slice(id.lastIndexOf('-') + 1);
  if (short === '') return { kind: 'crash' };
  if (short.length > 22 || [...short].some((c) => !ALPHABET.includes(c))) return { kind: 'undecodable' };
  let value = 0n;
  for (const c of short) value = value * 62n + BigInt(ALPHABET.indexOf(c));
  if (value > MAX) return { kind: 'crash' };
  return { kind: 'uuid', uuid: uuidOf(value) };
}

/** The base-62 short id of a UUID (no padding), as responses carry it after the slug. */
export function shortIdOf(uuid: string): string {
  let value = BigInt(`0x${uuid.replaceAll('-', '')}`);
  if (value === 0n) return 'A';
  let out = '';
  while (value > 0n) {
    out = (ALPHABET[Number(value % 62n)] ?? '') + out;
    value /= 62n;
  }
  return out;
}

/** Whether two id strings name the same record. */
export function sameRecord(a: string, b: string): boolean {
  const x = decodeId(a);
  const y = decodeId(b);
  return x.kind === 'uuid' && y.kind === 'uuid' && x.uuid === y.uuid;
}

/** The other forms of an id that the service accepts for the same record: bare short id, UUID, any slug. */
export function alternativeForms(id: string): Array<{ form: string; value: string }> {
  const decoded = decodeId(id);
  if (decoded.kind !== 'uuid') return [];
  const short = shortIdOf(decoded.uuid);
  return [
    { form: 'its bare short id', value: short },
    { form: 'its UUID, in upper case', value: decoded.uuid.toUpperCase() },
    { form: 'a different slug before its short id', value: `any-words-at-all-${short}` },
  ];
}

/** A well-formed id that names nothing (base 62, below 2^128): 401 without a token, 404 with one. */
export const UNKNOWN_ID = 'no-such-record-DoesNotExist0000000000';

/**
 * The slug production puts before a short id (RULES.md#response-ids; helpers.ex `id_with_comments`): the label
 * lowercased, every character outside a-z A-Z 0-9 a dash, dashes trimmed and collapsed; then its words, the first
 * always, each later one only while the slug stays within 25 characters (a word that does not fit is skipped, and a
 * shorter one after it may still be taken).
 */
export function slugOf(label: string): string {
  const words = label
    .toLowerCase()
    .replace(/[^a-zA-Z0-9]/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/-+/g, '-')
    .split('-');
  let slug = '';
  for (const word of words) {
    if (slug === '') slug = word;
    else if (slug.length + word.length + 1 <= 25) slug = `${slug}-${word}`;
  }
  return slug;
}

/** Whether a string is a short id: base 62, 19–22 characters (RULES.md#response-ids). */
function isShortId(value: string): boolean {
  return /^[A-Za-z0-9]{19,22}$/.test(value) && decodeId(value).kind === 'uuid';
}

/** The short id at the end of an answer's id (after the last dash), or undefined when there is none. */
export function shortIdIn(id: string): string | undefined {
  const short = id.slice(id.lastIndexOf('-') + 1);
  return isShortId(short) ? short : undefined;
}
