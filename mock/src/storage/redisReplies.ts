// Reading Redis's replies back (redisSessions.ts): what a script answered, as the types this mock wrote, or
// StoreUnavailable with one line saying what is wrong.
import { StoreUnavailable } from './sessions.ts';

export function strings(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new StoreUnavailable(`Redis answered an unexpected ${what}`);
  return value;
}
export function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new StoreUnavailable(`Redis answered an unexpected ${what}`);
  return value;
}
/**
 * JSON this module wrote (records, rows, events, journal entries, in the types named): read back as that type. What
 * is not JSON was written by something else (a hand edit, a partial restore): the store is up but the session cannot
 * be read, so the 503 says that and how to get past it, not that Redis is unreachable.
 */
export function readBack<T>(session: string, what: string, json: string): T {
  try {
    return JSON.parse(json);
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 120) : String(error);
    throw new StoreUnavailable(
      `The mock's shared store (Redis) holds ${what} of session "${session}" that is not the mock's JSON (${reason}); Redis itself answered. Reset that session (POST /__mock/reset with X-Mock-Session: ${session}) to start it again from the seed.`,
    );
  }
}
export function readRows<T>(session: string, what: string, rows: ReadonlyArray<string>): T[] {
  return rows.length === 0 ? [] : readBack<T[]>(session, what, `[${rows.join(',')}]`);
}

/** A connection error's code (ECONNREFUSED …), or its first line. */
export function reasonOf(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
