// The CLI server's log (--log-format): `text` (the default, for people) prints the start-up banner and the shutdown
// and nothing per request; `json` prints one JSON line per event through pino (an optional peer dependency, loaded
// only then), for a log pipeline: per request `{level, time, method, path, operation, status, ms, session}`, and the start
// and the drain as lines of their own. Nothing logged comes from a header but the session name, and the path is
// logged without its query: no token or Authorization value is ever written.
import type { Answered } from './answered.ts';

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function isLogFormat(value: unknown): value is LogFormat {
  return LOG_FORMATS.some((format) => format === value);
}

export type JsonLog = {
  request(answered: Answered): void;
  /** A line that is not a request's (start, drain): `msg` and the fields given. */
  event(msg: string, fields?: Record<string, string | number>): void;
};

/** One JSON line per call on stdout, written synchronously (nothing is lost when the process exits after a drain). */
export async function jsonLog(): Promise<JsonLog> {
  const { pino } = await import('pino');
  const logger = pino(
    { base: null, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    pino.destination({ dest: 1, sync: true }),
  );
  return {
    request(answered) {
      const { method, path, operation, status, session } = answered;
      logger.info({ method, path, operation, status, ms: Math.round(answered.ms * 10) / 10, session });
    },
    event(msg, fields = {}) {
      logger.info(fields, msg);
    },
  };
}
