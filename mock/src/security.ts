// Who is calling: the bearer token as the real service reads it (RequireApiToken, transport-auth-errors.md
// "Authentication and tokens"). Tokens are kept as SHA-256 hashes and compared in constant time; a raw token is never
// stored here, logged or echoed.
import { createHash, timingSafeEqual } from 'node:crypto';

export type TokenRecord = { hash: Buffer; personUuid: string; readOnly: boolean };

export type Principal = { personUuid: string; readOnly: boolean };

export function hashToken(raw: string): Buffer {
  return createHash('sha256').update(raw, 'utf8').digest();
}

/**
 * The token in an Authorization value: trimmed and split at the first space; `Bearer` (case-sensitive) then the
 * trimmed rest, or the whole value when it has no space. Anything else, and an empty token, is no token.
 */
export function tokenFromAuthorization(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const space = value.indexOf(' ');
  const token = space < 0 ? value : value.slice(0, space) === 'Bearer' ? value.slice(space + 1).trim() : undefined;
  return token ? token : undefined;
}

const NO_HASH = Buffer.alloc(32);

/**
 * Finds the token's record by comparing its hash with every stored hash, so the time does not depend on a match. A
 * stored hash of the wrong length (a broken seed) is compared against a dummy and never matches.
 */
export function findToken(tokens: ReadonlyArray<TokenRecord>, raw: string): TokenRecord | undefined {
  const hash = hashToken(raw.trim());
  let found: TokenRecord | undefined;
  for (const record of tokens) {
    const stored = record.hash;
    const usable = stored.length === hash.length;
    const equal = timingSafeEqual(usable ? stored : NO_HASH, hash) && usable;
    if (equal && !found) found = record;
  }
  return found;
}
