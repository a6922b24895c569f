// The `--store` URL of the sessions in Redis (redisSessions.ts) and the key prefix: parsed and checked, or one line
// saying what is wrong. Loads no Redis client (only its option type).
import type { RedisOptions } from 'ioredis';

export const DEFAULT_STORE_PREFIX = 'service-external-api';
const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
const STORE_PREFIX = /^[A-Za-z0-9._:/@-]{1,100}$/;

export type StoreTarget = {
  /** The URL as it may be shown: the password, if any, replaced by ***. */
  shown: string;
  options: RedisOptions;
  timeoutMs: number;
};

/** `redis://[user:password@]host[:port][/db][?timeout=MS]` (or `rediss://` for TLS), or one line saying what is wrong. */
export function parseStoreUrl(text: string, name = '--store'): { ok: true; target: StoreTarget } | { ok: false; message: string } {
  const bad = (why: string): { ok: false; message: string } => ({
    ok: false,
    message: `${name} ${why}; expected redis://host:port/db, e.g. redis://127.0.0.1:6379/0`,
  });
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return bad(`is not a URL: "${text.slice(0, 200)}"`);
  }
  const shownUrl = new URL(url.href);
  if (shownUrl.password) shownUrl.password = '***';
  const shown = shownUrl.href;
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return bad(`must be a redis:// or rediss:// URL, got ${shown}`);
  if (url.hostname === '') return bad(`names no host: ${shown}`);
  if (url.hash) return bad(`must not have a #fragment: ${shown}`);
  const db = /^\/?$/.test(url.pathname) ? 0 : /^\/\d{1,5}$/.test(url.pathname) ? Number(url.pathname.slice(1)) : undefined;
  if (db === undefined) return bad(`has a database that is not a number: ${shown}`);
  let timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS;
  for (const [key, value] of url.searchParams) {
    if (key !== 'timeout') return bad(`has an unknown parameter "${key}" (only timeout=MS): ${shown}`);
    if (!/^\d+$/.test(value) || Number(value) < 50 || Number(value) > 60_000) return bad(`timeout must be 50 to 60000 ms: ${shown}`);
    timeoutMs = Number(value);
  }
  const options: RedisOptions = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? 6379 : Number(url.port),
    db,
    lazyConnect: true,
    // Fail at once while the connection is down, and never resend a command after a reconnect: a write that may have
    // been applied is answered 503, never applied twice.
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    // A server that stops answering (frozen, partitioned) has its connection dropped and reopened.
    socketTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    retryStrategy: (attempt: number) => Math.min(100 * attempt, 1000),
    enableAutoPipelining: true,
  };
  if (url.username) options.username = decodeURIComponent(url.username);
  if (url.password) options.password = decodeURIComponent(url.password);
  if (url.protocol === 'rediss:') options.tls = {};
  return { ok: true, target: { shown, options, timeoutMs } };
}

/** The key prefix, or one line saying what is wrong with it. */
export function storePrefixError(prefix: string): string | undefined {
  return STORE_PREFIX.test(prefix) ? undefined : `--store-prefix must be 1 to 100 of A-Z a-z 0-9 . _ : / @ -, got "${prefix.slice(0, 120)}"`;
}
