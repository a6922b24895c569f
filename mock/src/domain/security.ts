// Who is calling: the bearer token as the real service reads it (RequireApiToken, RULES.md#transport
// "Authentication and tokens"). Tokens are kept as SHA-256 hashes and compared in constant time; a raw token is never
// stored here, logged or echoed.
import { constantTimeEqual, fromHex, sha256 } from './digest.ts';
import type { TokenRow } from './state.ts';

export type TokenRecord = { hash: Uint8Array; personUuid: string; readOnly: boolean };

export type Principal = { personUuid: string; readOnly: boolean };

export function hashToken(raw: string): Uint8Array {
  return sha256(raw);
}

/**
 * The token in an Authorization value: trimmed and split at the first space; `Bearer` (case-sensitive) then the
 * trimmed rest, or the whole value when it has no space. Anything else, and an empty token, is no token
 * (RULES.md#reading-the-header). The contract suite's tokenOf (contract-tests/model/predict.ts) states the same rule on
 * its own on purpose: the suite's model of production does not import the mock it checks.
 */
export function tokenFromAuthorization(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const space = value.indexOf(' ');
  const token = space < 0 ? value : value.slice(0, space) === 'Bearer' ? value.slice(space + 1).trim() : undefined;
  return token ? token : undefined;
}

const NO_HASH = new Uint8Array(32);

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
    const equal = constantTimeEqual(usable ? stored : NO_HASH, hash) && usable;
    if (equal && !found) found = record;
  }
  return found;
}

/** The token rows of a state as records with their hashes decoded (a malformed hash decodes to no bytes). */
export function tokenRecords(rows: ReadonlyArray<TokenRow>): TokenRecord[] {
  return rows.map((t) => ({ hash: fromHex(t.sha256) ?? new Uint8Array(0), personUuid: t.person_uuid, readOnly: t.read_only }));
}
