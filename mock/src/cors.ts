// CORS for browser apps on another origin. Production has none (an OPTIONS is 405); the mock answers preflights and
// reflects the request's origin with credentials allowed, unless turned off or restricted to some origins.
import type { NextFunction, Request, Response } from 'express';

export type CorsOptions = { enabled: boolean; origins?: ReadonlyArray<string> };

export function cors(options: CorsOptions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers['origin'];
    if (!options.enabled || typeof origin !== 'string') return next();
    const allowed = !options.origins || options.origins.length === 0 || options.origins.includes(origin);
    if (!allowed) return next();
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('access-control-allow-credentials', 'true');
    res.setHeader('access-control-expose-headers', 'x-request-id');
    res.append('vary', 'Origin');
    if (req.method === 'OPTIONS' && typeof req.headers['access-control-request-method'] === 'string') {
      res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
      const requested = req.headers['access-control-request-headers'];
      res.setHeader('access-control-allow-headers', typeof requested === 'string' && requested ? requested : 'authorization, content-type, prefer, x-mock-session');
      res.setHeader('access-control-max-age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
