// Production's error messages with a variable part (RULES.md#error-table), written once: the mock answers with them
// (mock/src/errors.ts) and the contract suite expects them (contract-tests/lib/expected.ts). The spec's 400 examples
// are instances of them, and contract-tests/selftest/model.test.ts holds each template to its example byte for byte.
// The fixed texts (`texts`) are read from the spec's examples, never copied.
import { loadDocument, pointerTo, resolvePointer } from './openapi.ts';

export const messages = {
  missingFields: (names: ReadonlyArray<string>): string => `Missing required fields: ${names.join(', ')}`,
  nullField: (name: string): string => `Field '${name}' cannot be null`,
  unknownField: (name: string): string => `Unknown input field: ${name}`,
  unknownType: (type: 'string' | 'boolean'): string => `Unknown input type: ${type}`,
  invalidEnum: (enumName: string, printed: string, allowed: ReadonlyArray<string>): string =>
    `Invalid value for enum ${enumName}: ${printed}. Allowed values: ${allowed.join(', ')}`,
  invalidQueryName: (segments: ReadonlyArray<string>): string => `Invalid query name: ${segments.join('/')}`,
};

/**
 * The exact Content-Type values production sets (RULES.md#media-types): Phoenix's `put_resp_content_type` adds the
 * charset. An answer production sends without one (the plain-text and pre-token errors of RULES.md#error-table) has
 * none at all.
 */
export const contentTypes = { json: 'application/json; charset=utf-8', html: 'text/html; charset=utf-8' } as const;

/** A fixed text the spec holds: the example of a shared response for a media type (`Unauthorized`, `text/plain`). */
export function specText(response: string, mediaType: string): string {
  const value = resolvePointer(loadDocument(), `#/components/responses/${response}/content/${pointerTo(mediaType).slice(2)}/example`);
  if (typeof value !== 'string') throw new Error(`the spec has no text example for ${response} ${mediaType}; run npm run generate`);
  return value;
}

/** Production's fixed plain-text answers, read from the spec (never copied: a changed text changes every rule using it). */
export const texts = {
  /** The 401 of every refused token (RULES.md#error-21). */
  get unauthorized(): string {
    return specText('Unauthorized', 'text/plain');
  },
  /** The 403 of a read-only token (RULES.md#error-22). */
  get readOnly(): string {
    return specText('Forbidden', 'text/plain');
  },
  /** The Cache-Control of every answer (RULES.md#headers). */
  get cacheControl(): string {
    const value = resolvePointer(loadDocument(), '#/components/headers/CacheControl/schema/const');
    if (typeof value !== 'string') throw new Error('the spec documents no Cache-Control value; run npm run generate');
    return value;
  },
};
