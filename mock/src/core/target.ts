// A request target read once, the same way for everything that looks at it: the routing and the controls (core.ts,
// pipeline.ts), the request journal, and the CLI server's probes, metrics and log (server/service.ts). So a request
// is counted and logged as the operation it is answered as, whatever form its target takes:
//   origin form   `/api/external/v1/projects/resume?x=1`: the path and query as sent
//   absolute form `http://127.0.0.1:4010/api/…` (RFC 9112 §3.2.2, what a client sends to a proxy): its path and query
//                 as the origin form would carry them, and its authority as the request's host (the Host header is
//                 ignored), so the Host guard still applies
//   user info     `http://user:secret@host/api/…`: RFC 9110 §4.2.4 forbids it (production's Cowboy refuses the
//                 request line); the mock answers it as before, as a path that names no route (404), with the user
//                 info replaced by `***` wherever the path is shown: never a credential in a journal, metric or log
// The path is the WHATWG URL parser's (dot segments resolved, `\` read as `/`, as the routing always read it); a
// fragment (`#…`) is dropped; the query is kept for the routing only: the journal and the log show the path alone.

/** `http(s)://`, the authority (user info included, up to the first `/`, `?` or `#`), then the rest as sent. */
const ABSOLUTE = /^https?:\/\/([^/?#\s]+)([/?#].*)?$/is;

export type Target = {
  /** The target as the routing reads it (`url.pathname`, `url.search`, `url.searchParams`); never shown. */
  url: URL;
  /** The path the routing reads, the journal keeps and the metrics and log show: no query, fragment or user info. */
  path: string;
  /** An absolute-form target's authority: the request's host in place of its Host header (none with user info). */
  host: string | undefined;
};

/** The origin form of an absolute-form target and its host; undefined for any other target (the origin form, `*`…). */
export function originForm(target: string): { target: string; host: string } | undefined {
  const match = ABSOLUTE.exec(target);
  const authority = match?.[1];
  if (!match || authority === undefined || authority.includes('@')) return undefined;
  const rest = match[2] ?? '';
  return { host: authority, target: rest.startsWith('/') ? rest : `/${rest}` };
}

/** Reads a request target (as the request line or a Request's URL gives it). */
export function readTarget(target: string): Target {
  const absolute = originForm(target);
  // A target with user info is read as it always was (a path whose first segment is the authority), masked.
  const sent = absolute?.target ?? target.replace(/^(https?:\/\/)[^/?#\s]*@/i, '$1***@');
  // Concatenated, not resolved: a target that starts with // is a path here, not a protocol-relative URL.
  const url = new URL(`http://mock.invalid${sent}`);
  return { url, path: url.pathname, host: absolute?.host };
}
