// The CLI server's log (--log-format): `text` (the default, for people) prints the start-up banner and the shutdown
// and nothing per request; `json` prints one JSON line per event through pino (an optional peer dependency, loaded
// only then), for a log pipeline: per request `{level, time, method, path, operation, status, ms, session}`, and the start
// and the drain as lines of their own. Nothing logged comes from a header but the session name, and the path is
// logged without its query: no token or Authorization value is ever written.
//
// Logging never holds up serving: the lines go to stdout through a bounded buffer (LOG_BUFFER_BYTES). A reader that
// stops reading (a stalled pipe, a paused log shipper) fills it; from then on lines are dropped and counted (the
// metric mock_log_lines_dropped_total) until the reader has caught up with everything buffered, and then one line
// says how many were dropped: `{"level":"warn","dropped":N,"msg":"log lines dropped"}`.
import type { Writable } from 'node:stream';
import type { Answered } from './answered.ts';

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function isLogFormat(value: unknown): value is LogFormat {
  return LOG_FORMATS.some((format) => format === value);
}

/** What the JSON log keeps waiting for a slow reader, in bytes: past it, lines are dropped (and counted). */
export const LOG_BUFFER_BYTES = 1024 * 1024;

export type LogLevel = 'info' | 'warn' | 'error';

export type JsonLog = {
  request(answered: Answered): void;
  /** A line that is not a request's (start, drain, the store lost or back): `msg`, the fields given, at `level`. */
  event(msg: string, fields?: Record<string, string | number>, level?: LogLevel): void;
  /** Lines dropped so far because the reader was behind. */
  dropped(): number;
  /** Settles once what is buffered has been written, or after `ms` (a reader that never reads does not hold the exit). */
  flush(ms: number): Promise<void>;
};

/** A line writer over `stream` that never buffers more than `maxBytes`: the rest is dropped and counted. */
export function boundedWriter(stream: Writable, maxBytes: number, recovered: (dropped: number) => void): { write(line: string): void; dropped(): number } {
  let droppedSince = 0;
  let droppedTotal = 0;
  let waiting = false;
  const recover = (): void => {
    waiting = false;
    const count = droppedSince;
    droppedSince = 0;
    recovered(count);
  };
  return {
    write(line) {
      if (waiting || stream.writableLength + Buffer.byteLength(line) > maxBytes) {
        droppedSince++;
        droppedTotal++;
        // The buffer empties once the reader has caught up ('drain'); a full buffer always has one pending.
        if (!waiting && stream.writableNeedDrain) {
          waiting = true;
          stream.once('drain', recover);
        }
        return;
      }
      stream.write(line);
    },
    dropped: () => droppedTotal,
  };
}

/** Waits until `stream` has written what it holds, or `ms` has passed. */
function flushed(stream: Writable, ms: number): Promise<void> {
  if (stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      stream.off('drain', done);
      resolve();
    }
    stream.once('drain', done);
  });
}

/** One JSON line per call on `stream` (stdout), through a bounded buffer (boundedWriter). */
export async function jsonLog(stream: Writable = process.stdout, maxBytes = LOG_BUFFER_BYTES): Promise<JsonLog> {
  const { pino } = await import('pino');
  const writer = boundedWriter(stream, maxBytes, (count) => {
    if (count > 0) logger.warn({ dropped: count }, 'log lines dropped');
  });
  const logger = pino(
    { base: null, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    { write: (line: string) => writer.write(line) },
  );
  return {
    request(answered) {
      const { method, path, operation, status, session } = answered;
      logger.info({ method, path, operation, status, ms: Math.round(answered.ms * 10) / 10, session });
    },
    event(msg, fields = {}, level = 'info') {
      logger[level](fields, msg);
    },
    dropped: writer.dropped,
    flush: (ms) => flushed(stream, ms),
  };
}
