// The server the proxy checks, as the proxy reaches it: its origin and path prefix (requests are forwarded under it),
// one keep-alive agent for every exchange, and the request function of its protocol.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export type Upstream = {
  target: URL;
  /** The target's path without its trailing slashes ('' for none). */
  prefix: string;
  /** The target's origin and prefix: what the proxy's reports and answers name. */
  origin: string;
  agent: HttpAgent | HttpsAgent;
  send: typeof httpRequest | typeof httpsRequest;
};

/** The upstream of `--target` (an origin, optionally with a path prefix). */
export function createUpstream(targetUrl: string): Upstream {
  const target = new URL(targetUrl);
  const prefix = target.pathname.replace(/\/+$/, '');
  const secure = target.protocol === 'https:';
  return {
    target,
    prefix,
    origin: `${target.origin}${prefix}`,
    agent: secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true }),
    send: secure ? httpsRequest : httpRequest,
  };
}
