// CORS for browser apps on another origin. Production has none (an OPTIONS is 405); the mock answers preflights and
// reflects the request's origin with credentials allowed, unless turned off or restricted to some origins. A page may
// read the request id and the mark of a rehearsed answer (X-Mock-Rehearsal).
import { REHEARSAL_HEADER } from '../../../spec/lib/rehearsal.ts';

export type CorsOptions = { enabled: boolean; origins?: ReadonlyArray<string> };

export type Cors = {
  /** The headers every answer to this request carries (in order), and whether it is a preflight to answer with 204. */
  headers: Array<[string, string]>;
  preflight: boolean;
};

export function cors(options: CorsOptions, method: string, header: (name: string) => string | undefined): Cors {
  const origin = header('origin');
  if (!options.enabled || origin === undefined) return { headers: [], preflight: false };
  const allowed = !options.origins || options.origins.length === 0 || options.origins.includes(origin);
  if (!allowed) return { headers: [], preflight: false };
  const headers: Array<[string, string]> = [
    ['access-control-allow-origin', origin],
    ['access-control-allow-credentials', 'true'],
    ['access-control-expose-headers', `x-request-id, ${REHEARSAL_HEADER}`],
    ['vary', 'Origin'],
  ];
  if (method !== 'OPTIONS' || header('access-control-request-method') === undefined) return { headers, preflight: false };
  const requested = header('access-control-request-headers');
  headers.push(
    ['access-control-allow-methods', 'GET, POST, OPTIONS'],
    ['access-control-allow-headers', requested ? requested : 'authorization, content-type, prefer, x-mock-session'],
    ['access-control-max-age', '600'],
  );
  return { headers, preflight: true };
}
