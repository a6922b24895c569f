// Who may reach a local server's own endpoints (the mock's /__mock/ controls, the validation proxy's /__proxy/): the
// Host a request names, and the browser Origin it comes from. Production has neither check; a mock or proxy on a
// developer's machine or a shared host needs both:
// - DNS rebinding: a page on evil.example that rebinds its name to 127.0.0.1 talks to the server as its own origin,
//   so only the Host header tells it apart. A server answers only the names it listens on (and --allowed-host).
// - Cross-site requests: a page may send a simple request (a form, a text/plain POST) to any origin, and read the
//   answer only if CORS allows it. The controls answer CORS only to loopback origins or the ones the operator named,
//   and refuse a state-changing control from any other origin.
// Framework-free and browser-safe: header values in, a verdict out (the core and the proxy call it; hosts.ts, Node
// only, lists the names a listening server answers).

/** The one-line JSON body of a refused Host: 421 Misdirected Request (RFC 9110 §15.5.20). */
export function misdirected(host: string, allowed: ReadonlySet<string>, what: string): { status: 421; body: { error: string; message: string } } {
  const shown = [...allowed].slice(0, 6).join(', ');
  return {
    status: 421,
    body: {
      error: 'Misdirected request',
      message: `${what} does not answer Host ${JSON.stringify(host.slice(0, 100))} (it answers ${shown}${allowed.size > 6 ? ', …' : ''}); if clients reach it by that name, add the name to its --allowed-host names (without :port it matches any port)`,
    },
  };
}

/** Whether an Origin is this machine's own (http or https on localhost, 127.0.0.1 or [::1], any port). */
function isLoopbackOrigin(origin: string): boolean {
  return /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i.test(origin);
}

/**
 * Whether a browser page from `origin` may use the server's own endpoints: no Origin (not a browser page, or a
 * same-origin navigation), a loopback origin when the operator named none, or one the operator named.
 */
export function controlOriginAllowed(origin: string | undefined, named: ReadonlyArray<string> | undefined, enabled = true): boolean {
  if (origin === undefined) return true;
  if (!enabled) return false;
  return named && named.length > 0 ? named.includes(origin) : isLoopbackOrigin(origin);
}

/** The one-line JSON body of a state-changing request refused for its Origin: 403. */
export function crossOrigin(method: string, path: string, origin: string): { status: 403; body: { error: string; message: string } } {
  return {
    status: 403,
    body: {
      error: 'Cross-origin request refused',
      message: `${method} ${path.slice(0, 100)} from origin ${JSON.stringify(origin.slice(0, 100))} is refused: only loopback origins, or the ones named with --cors-origin, may change this server's state`,
    },
  };
}
