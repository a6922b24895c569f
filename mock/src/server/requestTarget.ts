// A request target as the HTTP adapter receives it. RFC 9112 §3.2.2: a server must accept the absolute form
// (`POST http://127.0.0.1:4010/api/external/v1/projects/resume HTTP/1.1`, what a client sends to a proxy) and then
// use the target's authority as the request's host, ignoring any Host header. The core is given the origin form (the
// path and query, as sent) and that host, so the request is answered exactly as its origin form would be, the Host
// guard included. Any other target (the origin form, `*`, anything unparseable) is passed on unchanged.

/** `http(s)://authority` then the rest as sent; no user info (RFC 9110 §4.2.4 forbids it for http). */
const ABSOLUTE = /^https?:\/\/([^/?#@\s]+)([/?#].*)?$/is;

export function originForm(target: string): { target: string; host: string } | undefined {
  const match = ABSOLUTE.exec(target);
  if (!match) return undefined;
  const host = match[1] ?? '';
  const rest = match[2] ?? '';
  // What follows the authority is the target as its origin form would carry it (a fragment included: the core reads
  // a `#` in a target as it always does).
  return { host, target: rest.startsWith('/') ? rest : `/${rest}` };
}
