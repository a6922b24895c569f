// The one masker: every text the contract suite or the validation proxy prints, stores or reports that came from a
// target (a response excerpt, a message, a curl line, a JUnit report, /__proxy/violations) passes through it, so a
// target that echoes a credential back cannot make either of them print it. It knows every credential the run holds
// (persona tokens, and whatever a request carried in a credential-like header, cookie or query parameter), in any
// form a target may echo it (any case, URL-encoded or every byte percent-encoded, after `Bearer` and a tab, base64
// standard or URL-safe with or without padding at any alignment, hex: `encodedForms`), anything that looks like the API's
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

/** Every byte as `%XX`, as a client that encodes everything sends it. */
const percentEvery = (bytes: Buffer): string => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/**
 * The forms a secret of 8 characters or more may be echoed in: itself, URL-encoded, every byte percent-encoded, hex,
 * and base64 (standard and URL-safe, with and without padding). Base64 of a text that holds the secret (`Bearer
 * <token>`, a JSON document) encodes it differently at each of the three byte alignments: for each, the characters
 * that depend on the secret's bytes alone (at most two characters at each end carry a few of its bits; the whole
 * encoding, padding included, is a form too).
 */
function encodedForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set([secret, encodeURIComponent(secret), percentEvery(bytes), bytes.toString('hex')]);
  const whole = bytes.toString('base64');
  for (const b64 of [whole, whole.replace(/=+$/, '')]) forms.add(b64).add(b64.replace(/\+/g, '-').replace(/\//g, '_'));
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    forms.add(core).add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms];
}

export function createMasker(secrets: Iterable<readonly [string, string]> = []): Masker {
  const known = new Map<string, string>();
  /** Every form of every long secret, lowercased (the pattern ignores case), and the name shown for it. */
  const formNames = new Map<string, string>();
  let pattern: RegExp | undefined;
  let shortPattern: RegExp | undefined;
  const rebuild = (): void => {
    const long = [...known.keys()].filter((s) => s.length >= 8);
    const short = [...known.keys()].filter((s) => s.length > 0 && s.length < 8);
    formNames.clear();
    for (const secret of long)
      for (const form of encodedForms(secret)) if (!formNames.has(form.toLowerCase())) formNames.set(form.toLowerCase(), known.get(secret) ?? 'SECRET');
    // Longest first, so a whole encoding is masked before a part of it.
    const forms = [...formNames.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
    pattern = forms.length > 0 ? new RegExp(forms.join('|'), 'gi') : undefined;
    shortPattern = short.length > 0 ? new RegExp(`(?<![A-Za-z0-9_-])(?:${short.map(escapeRegExp).join('|')})(?![A-Za-z0-9_-])`, 'g') : undefined;
  };
  const nameOf = (found: string): string => formNames.get(found.toLowerCase()) ?? known.get(found) ?? 'SECRET';
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
