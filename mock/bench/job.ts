// What run.ts asks a load worker to do, what the worker answers, and how a response body is judged: plain data, so
// it crosses the process boundary as JSON, and one judge for the load, the cold-start polls and the baselines.
import { isDeepStrictEqual } from 'node:util';

export type RequestSpec = { method: 'POST'; path: string; headers: Record<string, string>; body: string };

export type BodyCheck =
  /** The body, byte for byte (a precomputed baseline body, a plain-text error). */
  | { kind: 'exact'; body: string }
  /** JSON whose values at these paths are these (our mock: the state a write must produce; ids and dates vary). */
  | { kind: 'json-fields'; fields: Array<{ path: string[]; equals: string | number | boolean | null }> }
  /** JSON equal to this value (Prism: the spec's first example for the status). */
  | { kind: 'json-equal'; value: unknown }
  /** A body any one of these accepts (a load that mixes operations). */
  | { kind: 'one-of'; checks: BodyCheck[] };

export type Job = {
  url: string;
  /** More replicas of the same server (a shared-store mock): the connections are split evenly over `url` and these. */
  alsoUrls?: string[];
  /** The server process whose CPU time is read around the measured window. */
  serverPid: number;
  /** More processes whose CPU time counts as the server's (the other replicas, the shared store). */
  alsoPids?: number[];
  clkTck: number;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** When set, the measured window is this many requests in all (split evenly over the connections), not a duration. */
  amount?: number;
  requests: RequestSpec[];
  expectStatus: number;
  check: BodyCheck;
};

export type Counts = { responses: number; unexpected_status: number; mismatches: number; errors: number; timeouts: number };

export type WorkerResult = Counts & {
  duration_s: number;
  rps: number;
  latency_ms: { p50: number; p90: number; p99: number; mean: number; max: number };
  server_cpu_us_per_request: number;
  server_cpu_percent: number;
  client_cpu_percent: number;
  rss_bytes: number | null;
  statuses: Record<string, number>;
  warmup: Counts;
  /** The first wrong body seen, cut to 300 characters, to say what went wrong. */
  sample_mismatch: string | null;
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(value: unknown, path: ReadonlyArray<string>): unknown {
  let node = value;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

function parse(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false };
  }
}

/** A judge of response bodies. `json-equal` remembers the last body it accepted, so repeats cost a string compare. */
export function bodyMatcher(check: BodyCheck): (body: string) => boolean {
  switch (check.kind) {
    case 'exact':
      return (body) => body === check.body;
    case 'json-fields':
      return (body) => {
        const parsed = parse(body);
        return parsed.ok && check.fields.every((f) => at(parsed.value, f.path) === f.equals);
      };
    case 'json-equal': {
      let accepted: string | undefined;
      return (body) => {
        if (body === accepted) return true;
        const parsed = parse(body);
        if (!parsed.ok || !isDeepStrictEqual(parsed.value, check.value)) return false;
        accepted = body;
        return true;
      };
    }
    case 'one-of': {
      const matchers = check.checks.map(bodyMatcher);
      return (body) => matchers.some((matches) => matches(body));
    }
  }
}
