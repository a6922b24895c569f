// What the CLI's server tells its observers of each request it answered: the metrics (metrics.ts) and the JSON log
// (requestLog.ts) read it, the service (service.ts) writes it. A module of its own, so neither observer imports the
// service that calls it.

/**
 * One answered request: no header but the session name, no body, no query (nothing that may hold a token). `status`
 * is 0 when the connection closed before an answer was sent.
 */
export type Answered = { method: string; path: string; operation: string | null; status: number; ms: number; session: string | null };
