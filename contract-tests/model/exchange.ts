// What the suite's rules read: one request as sent, its answer as received, and what the checks found in it. The
// client (io/client.ts) makes them; the model only reads them, so it needs nothing of how they were sent.
import type { Violation } from '../../spec/lib/violations.ts';

export type ApiRequest = {
  method: string;
  /** The path from the base URL, starting with `/` (query string included). */
  path: string;
  /** Header values as sent; a list sends the header once per value, in order. */
  headers: Readonly<Record<string, string | ReadonlyArray<string>>>;
  body?: string | Buffer;
};

export type ApiResponse = {
  status: number;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Readonly<Record<string, string>>;
  text: string;
  /** The raw bytes, for UTF-8 checks. */
  bytes: Buffer;
  durationMs: number;
};

/** One request, its answer, and what the checks found in it (JSON parsed, when it was JSON). */
export type Exchange = { request: ApiRequest; response: ApiResponse; violations: Violation[]; json: unknown };
