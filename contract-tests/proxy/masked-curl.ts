// The request of an exchange as a curl line against the target with no secret in it: each credential of the request
// (Authorization, Cookie, X-API-Key) is shown as the $VARIABLE that holds it (the persona's CONTRACT_…_TOKEN when the
// --tokens file names it).
import { curlLine } from '../io/client.ts';
import { tokenOf, type RawRequest } from '../model/predict.ts';
import { apiRequest } from './check.ts';
import { HOP_BY_HOP } from './end-to-end.ts';
import type { TokenKnowledge } from './knowledge.ts';

/** Secrets of one request (the credential of each Authorization header, cookies) and what to show instead. */
export function secretsOf(request: RawRequest, knowledge: TokenKnowledge): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    if (lower === 'authorization') {
      const token = tokenOf(value);
      const credential =
        token ??
        value
          .trim()
          .slice(value.trim().indexOf(' ') + 1)
          .trim();
      if (credential) out.set(credential, token ? knowledge.variable(token) : 'CREDENTIALS');
    } else if (lower === 'cookie' || lower === 'x-api-key') {
      if (value) out.set(value, lower === 'cookie' ? 'COOKIE' : 'API_KEY');
    }
  }
  return out;
}

/** Replaces every secret in a text by $VARIABLE (secrets shorter than 8 characters only where they are whole words). */
function scrub(text: string, secrets: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [secret, variable] of secrets) {
    if (secret.length >= 8) out = out.split(secret).join(`$${variable}`);
  }
  return out;
}

/** The request as a curl line against `origin` (the target and its prefix), `secrets` shown as $VARIABLES. */
export function maskedCurl(origin: string, request: RawRequest, secrets: ReadonlyMap<string, string>): string {
  const shown = apiRequest(request, new Set(['host', 'content-length', ...HOP_BY_HOP]));
  // Each secret becomes a placeholder curlLine knows as a secret, so it prints `$VARIABLE` inside double quotes.
  const placeholders = new Map<string, string>();
  let i = 0;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(shown.headers)) {
    const mask = (v: string): string => {
      let masked = v;
      for (const [secret, variable] of secrets) {
        if (!masked.includes(secret)) continue;
        const placeholder = `@@proxy-secret-${i++}@@`;
        placeholders.set(placeholder, variable);
        masked = masked.split(secret).join(placeholder);
      }
      return masked;
    };
    headers[name] = typeof value === 'string' ? mask(value) : value.map(mask);
  }
  const body = shown.body === undefined ? undefined : Buffer.isBuffer(shown.body) ? shown.body : Buffer.from(shown.body);
  const line = curlLine(
    origin,
    { ...shown, headers, ...(body && body.length > 16_384 ? { body: `${body.subarray(0, 16_384).toString('utf8')}…` } : {}) },
    placeholders,
  );
  return scrub(line, secrets);
}
