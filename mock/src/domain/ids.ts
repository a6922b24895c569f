// Ids as the real service writes and reads them (RULES.md#ids;
// RULES.md#response-ids): base-62 short ids of UUIDs, name slugs, and the input decoder.
import { randomBytes } from './digest.ts';
import { memoized } from './memo.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE = 62n;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_UUID = (1n << 128n) - 1n;

/** Random bytes for UUIDs, drawn from WebCrypto (Node, browsers and workers) 4 KiB at a time, 16 per UUID. */
let pool: Uint8Array = new Uint8Array(0);
let taken = 0;
const HEX = '0123456789abcdef';
const codes: number[] = new Array<number>(36).fill(0x2d);

/**
 * A random (version 4) UUID, as one flat 36-character string. Not `crypto.randomUUID()`: Node builds its result by
 * concatenating 20 pieces, and V8 keeps such a string as a tree of concatenations (about 600 bytes instead of 56),
 * which every history row, event and journal entry holding an id would keep alive.
 */
export function newUuid(): string {
  if (taken + 16 > pool.length) {
    pool = randomBytes(4096);
    taken = 0;
  }
  let at = 0;
  for (let i = 0; i < 16; i++) {
    let byte = pool[taken + i] ?? 0;
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    if (at === 8 || at === 13 || at === 18 || at === 23) at++;
    codes[at++] = HEX.charCodeAt(byte >> 4);
    codes[at++] = HEX.charCodeAt(byte & 0x0f);
  }
  taken += 16;
  return String.fromCharCode(...codes);
}

function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** Ids repeat (the same records, the same inputs): their encodings and decodings are remembered. */
const ID_MEMO = { entries: 10_000, keyLength: 64 };

/** The UUID's 128-bit value in base 62, most significant digit first, no padding (memoized: ids repeat). */
export const shortId: (uuid: string) => string = memoized(encodeShortId, ID_MEMO);

function encodeShortId(uuid: string): string {
  let n = BigInt(`0x${uuid.replaceAll('-', '')}`);
  if (n === 0n) return ALPHABET[0] ?? 'A';
  // Digits collected, then one flat string: prepending character by character would keep a rope of 22 pieces.
  const digits: number[] = [];
  while (n > 0n) {
    digits.push(ALPHABET.charCodeAt(Number(n % BASE)));
    n /= BASE;
  }
  return String.fromCharCode(...digits.reverse());
}

function uuidFromBigInt(n: bigint): string {
  const hex = n.toString(16).padStart(32, '0');
  // Joined by join(), which makes one flat string (a template literal or replace() here is a rope, kept alive by every
  // row that stores the id).
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}

/**
 * The slug of a name: lowercase, every run of characters outside a-z0-9 becomes one dash, then whole words are
 * taken greedily while the slug stays at most 25 characters (the first word always; a later, shorter word can still
 * follow one that did not fit). Helpers.id_with_comments/2.
 */
export function slug(name: string): string {
  const words = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .split('-')
    .filter(Boolean);
  let out = '';
  for (const word of words) {
    if (out === '') out = word;
    else if (out.length + 1 + word.length <= 25) out = `${out}-${word}`;
  }
  return out;
}

const SLUG_IDS = new Map<string, { name: string; id: string }>();

/** `<slug>-<short id>`, the form of project, goal, person, space and milestone ids in responses (memoized per record). */
export function slugId(name: string, uuid: string): string {
  const cached = SLUG_IDS.get(uuid);
  if (cached?.name === name) return cached.id;
  const id = [slug(name), shortId(uuid)].join('-');
  if (SLUG_IDS.size >= ID_MEMO.entries) SLUG_IDS.clear();
  SLUG_IDS.set(uuid, { name, id });
  return id;
}

/** `YYYY-MM-DD-<short id>`, the form of check-in, retrospective and progress update ids. */
export function datedId(date: string, uuid: string): string {
  return `${date.slice(0, 10)}-${shortId(uuid)}`;
}

export type DecodedId =
  | { kind: 'uuid'; uuid: string }
  | { kind: 'null' }
  /** the decoder returned an error: the input parser answers 404 */
  | { kind: 'invalid' }
  /** the decoder raised: the framework answers 500 */
  | { kind: 'crash' };

/** Decoded ids by their text (a real id is at most a 25-character slug, a dash and 22 digits); never changed. */
const decodeIdMemo = memoized(decodeIdText, ID_MEMO);

/**
 * Decodes an `:id` input like Types.Id.decode/1: null and "" are null; a canonical UUID is taken as is; otherwise
 * the text after the last dash must be a short id (at most 22 base-62 characters, else an error); an empty rest or a
 * value of 2^128 or more raises; a non-string raises.
 */
export function decodeId(value: unknown): DecodedId {
  if (value === null || value === '') return { kind: 'null' };
  if (typeof value !== 'string') return { kind: 'crash' };
  return decodeIdMemo(value);
}

function decodeIdText(value: string): DecodedId {
  if (isUuid(value)) return { kind: 'uuid', uuid: value.toLowerCase() };
  const rest = value.slice(value.lastIndexOf('-') + 1);
  if (rest.length > 22) return { kind: 'invalid' };
  let n = 0n;
  for (const char of rest) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return { kind: 'invalid' };
    n = n * BASE + BigInt(digit);
  }
  if (rest.length === 0 || n > MAX_UUID) return { kind: 'crash' };
  return { kind: 'uuid', uuid: uuidFromBigInt(n) };
}
