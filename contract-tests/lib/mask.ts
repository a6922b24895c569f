// The one masker: every text the contract suite or the validation proxy prints, stores or reports that came from a
// target (a response excerpt, a message, a curl line, a JUnit report, /__proxy/violations) passes through it, so a
// target that echoes a credential back cannot make either of them print it. It knows every credential the run holds
// (persona tokens, and whatever a request carried in a credential-like header, cookie or query parameter), in any
// form a target may echo it (any case, URL-encoded, after `Bearer` and a tab), anything that looks like the API's
// tokens (`opk_…`), and credential-like `name: value` or `name=value` pairs; secrets shorter than 8 characters are
// masked only as whole words.

/** Header names whose values are credentials (Authorization, cookies, API keys, session and auth tokens). */
const CREDENTIAL_HEADER =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|x-access-token|x-csrf-token|x-xsrf-token|api-key|apikey|x-session-token|x-amz-security-token)$|token|secret|password|api[-_]?key/i;

/** Query parameter names whose values are credentials. */
const CREDENTIAL_PARAMETER =
  /^(access_token|token|api_key|apikey|key|auth|authorization|session|sessionid|password|secret|client_secret|id_token|refresh_token|sig|signature)$/i;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The API's token shape, wherever it appears. */
const TOKEN_LIKE = /opk_[A-Za-z0-9_-]{8,}/gi;
/** `name: value` / `name=value` / `"name":"value"` pairs whose name says the value is a credential. */
const PAIR =
  /(["']?\b(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|x-access-token|access_token|api_key|apikey|refresh_token|id_token|client_secret|password|secret)\b["']?\s*[:=]\s*["']?)(?:bearer[ \t]+|basic[ \t]+)?((?!\$)(?!(?:bearer|basic)\b)[^\s"'&;,<>]{4,})/gi;

export type Masker = {
  /** Adds a credential and the name to show instead (`$NAME`). */
  add(secret: string, name: string): void;
  /** Adds what a request carries as credentials: credential-like headers (every word of their values) and parameters. */
  addFromRequest(headers: Iterable<readonly [string, string]>, url: string): void;
  mask(text: string): string;
};

export function createMasker(secrets: Iterable<readonly [string, string]> = []): Masker {
  const known = new Map<string, string>();
  let pattern: RegExp | undefined;
  let shortPattern: RegExp | undefined;
  const rebuild = (): void => {
    const long = [...known.keys()].filter((s) => s.length >= 8).sort((a, b) => b.length - a.length);
    const short = [...known.keys()].filter((s) => s.length > 0 && s.length < 8);
    const forms = long.flatMap((s) => [...new Set([s, encodeURIComponent(s)])].map(escapeRegExp));
    pattern = forms.length > 0 ? new RegExp(forms.join('|'), 'gi') : undefined;
    shortPattern = short.length > 0 ? new RegExp(`(?<![A-Za-z0-9_-])(?:${short.map(escapeRegExp).join('|')})(?![A-Za-z0-9_-])`, 'g') : undefined;
  };
  const nameOf = (found: string): string => {
    for (const [secret, name] of known)
      if (secret.toLowerCase() === found.toLowerCase() || encodeURIComponent(secret).toLowerCase() === found.toLowerCase()) return name;
    return 'SECRET';
  };
  const masker: Masker = {
    add(secret, name) {
      const trimmed = secret.trim();
      if (trimmed === '' || known.has(trimmed)) return;
      known.set(trimmed, name);
      rebuild();
    },
    addFromRequest(headers, url) {
      for (const [name, value] of headers) {
        if (!CREDENTIAL_HEADER.test(name)) continue;
        const label =
          name.toLowerCase() === 'cookie'
            ? 'COOKIE'
            : name.toLowerCase().includes('authorization')
              ? 'CREDENTIALS'
              : name.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
        masker.add(value, label);
        // Every word of it too (the credential after `Bearer`, a tab or more spaces; each cookie's value).
        for (const word of value.split(/[\s;,=]+/)) if (word.length >= 4 && !/^(bearer|basic|token)$/i.test(word)) masker.add(word, label);
      }
      const query = url.indexOf('?');
      if (query >= 0) {
        for (const [name, value] of new URLSearchParams(url.slice(query + 1)))
          if (CREDENTIAL_PARAMETER.test(name) && value.length >= 4) masker.add(value, name.toUpperCase());
      }
    },
    mask(text) {
      let out = text;
      if (pattern) out = out.replace(pattern, (found) => `$${nameOf(found)}`);
      if (shortPattern) out = out.replace(shortPattern, (found) => `$${nameOf(found)}`);
      out = out.replace(TOKEN_LIKE, '$TOKEN');
      return out.replace(PAIR, (_all, name: string) => `${name}$SECRET`);
    },
  };
  for (const [secret, name] of secrets) masker.add(secret, name);
  return masker;
}
