// GET /__mock/metrics: the running mock in the Prometheus text format, through prom-client (an optional peer
// dependency, loaded by the CLI's server only, after its first answer; nothing of it is on the core's or the browser's
// path). Names (mock/docs/organisation.md, "Running it for an organisation"):
//   mock_requests_total{operation,status}          every answer the core framed; operation is the operationId, or
//                                                  "none" (controls, paths outside the API)
//   mock_request_duration_seconds{operation}       histogram, from the request's arrival to its framed answer
//   mock_sessions                                  sessions kept (in this process, or in the shared Redis); NaN
//                                                  while the store cannot say (Redis down): unknown, not the last value
//   mock_session_bytes                             what the in-memory sessions keep, in bytes (as --max-total-bytes
//                                                  counts them); absent with --store (watch Redis's used_memory)
//   mock_requests_waiting                          delayed requests waiting now (at most the mock's maxWaiting)
//   mock_log_lines_dropped_total                   JSON log lines dropped because the log's reader was behind
//                                                  (requestLog.ts); only with --log-format json
//   process_* and nodejs_*                         prom-client's default process metrics
import type { Answered } from './answered.ts';
import { MemorySessions, type Sessions } from '../storage/sessions.ts';

/** Seconds: from a fraction of a millisecond (a 401) to --max-delay's 30 s (Prefer: delay). */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export type MockMetrics = {
  observe(answered: Answered): void;
  /** The exposition: its Content-Type (text/plain; version=0.0.4) and text. */
  exposition(): Promise<{ contentType: string; text: string }>;
};

/** What else the metrics read from the running mock. */
export type MetricSources = {
  /** Delayed requests waiting now (MockCore.waiting). */
  waiting?: () => number;
  /** JSON log lines dropped so far (JsonLog.dropped), with --log-format json. */
  logDropped?: () => number;
};

/** Loads prom-client and registers the mock's metrics on a registry of their own. Rejects when prom-client is missing. */
export async function loadMetrics(sessions: Sessions, sources: MetricSources = {}): Promise<MockMetrics> {
  const client = await import('prom-client');
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({
    name: 'mock_requests_total',
    help: 'Requests the mock answered, by operationId ("none" outside the API operations) and status.',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'mock_request_duration_seconds',
    help: "Time from a request's arrival to its answer, by operationId.",
    labelNames: ['operation'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  new client.Gauge({
    name: 'mock_sessions',
    help: 'X-Mock-Session sessions kept (in this process, or in the shared store).',
    registers: [registry],
    async collect() {
      // A store that cannot answer: unknown (NaN), never the last value it had; the ready probe says why.
      try {
        this.set((await sessions.list()).length);
      } catch {
        this.set(Number.NaN);
      }
    },
  });
  const { waiting, logDropped } = sources;
  if (waiting)
    new client.Gauge({
      name: 'mock_requests_waiting',
      help: 'Delayed requests (Prefer: delay, a scenario, --delay) waiting now.',
      registers: [registry],
      collect() {
        this.set(waiting());
      },
    });
  if (logDropped)
    new client.Counter({
      name: 'mock_log_lines_dropped_total',
      help: "JSON log lines dropped because the log's reader was behind.",
      registers: [registry],
      collect() {
        this.reset();
        this.inc(logDropped());
      },
    });
  if (sessions instanceof MemorySessions)
    new client.Gauge({
      name: 'mock_session_bytes',
      help: 'Bytes the in-memory sessions keep, as --max-total-bytes counts them.',
      registers: [registry],
      collect() {
        this.set(sessions.retainedBytes);
      },
    });
  return {
    observe(answered) {
      const operation = answered.operation ?? 'none';
      requests.inc({ operation, status: String(answered.status) });
      duration.observe({ operation }, answered.ms / 1000);
    },
    async exposition() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}
