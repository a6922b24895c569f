// One load run, in its own process so the load generator never shares an event loop (or a CPU account) with the
// server it measures: reads a Job (job.ts) as JSON on stdin, runs autocannon for the warm-up and then for the
// measured window, judges every response body, and prints one WorkerResult as JSON on stdout.
import autocannon, { type Result } from 'autocannon';
import { bodyMatcher, type Counts, type Job, type WorkerResult } from './job.ts';
import { cpuTicks, rssBytes } from './proc.ts';

async function readJob(): Promise<Job> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  const job: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (typeof job !== 'object' || job === null || !('url' in job) || !('requests' in job)) throw new Error('stdin is not a bench job');
  // The job is written by run.ts in the same checkout; its shape is the Job type.
  return job as Job;
}

type Window = { result: Result; latencies: Float64Array; count: number; mismatches: number; sample: string | null };

async function load(job: Job, seconds: number): Promise<Window> {
  const matches = bodyMatcher(job.check);
  let mismatches = 0;
  let sample: string | null = null;
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const instance = autocannon({
    url: job.url,
    connections: job.connections,
    duration: seconds,
    timeout: 10,
    requests: job.requests,
    verifyBody: (body) => {
      if (matches(body)) return true;
      mismatches++;
      sample ??= body.slice(0, 300);
      return false;
    },
  });
  instance.on('response', (_client, _status, _bytes, responseTime) => {
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  return { result, latencies, count, mismatches, sample };
}

function counts(window: Window, expectStatus: number): Counts {
  const responses = Object.values(window.result.statusCodeStats).reduce((sum, s) => sum + s.count, 0);
  const expected = window.result.statusCodeStats[String(expectStatus)]?.count ?? 0;
  return { responses, unexpected_status: responses - expected, mismatches: window.mismatches, errors: window.result.errors, timeouts: window.result.timeouts };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

const job = await readJob();
const warm = job.warmupSeconds > 0 ? await load(job, job.warmupSeconds) : undefined;

const ticksBefore = cpuTicks(job.serverPid);
const clientBefore = process.cpuUsage();
const started = performance.now();
const measured = await load(job, job.durationSeconds);
const elapsed = (performance.now() - started) / 1000;
const clientUsage = process.cpuUsage(clientBefore);
const ticksAfter = cpuTicks(job.serverPid);

const measuredCounts = counts(measured, job.expectStatus);
const serverSeconds = ticksBefore !== undefined && ticksAfter !== undefined ? (ticksAfter - ticksBefore) / job.clkTck : Number.NaN;
const sorted = measured.latencies.slice(0, measured.count).sort();
const sum = sorted.reduce((a, b) => a + b, 0);
const statuses: Record<string, number> = {};
for (const [status, stat] of Object.entries(measured.result.statusCodeStats)) statuses[status] = stat.count;

const output: WorkerResult = {
  ...measuredCounts,
  duration_s: round(elapsed, 3),
  rps: round(measuredCounts.responses / elapsed, 1),
  latency_ms: {
    p50: round(percentile(sorted, 50), 3),
    p90: round(percentile(sorted, 90), 3),
    p99: round(percentile(sorted, 99), 3),
    mean: round(sorted.length ? sum / sorted.length : Number.NaN, 3),
    max: round(sorted.length ? (sorted[sorted.length - 1] ?? Number.NaN) : Number.NaN, 3),
  },
  server_cpu_us_per_request: round((serverSeconds * 1e6) / Math.max(1, measuredCounts.responses), 1),
  server_cpu_percent: round((serverSeconds / elapsed) * 100, 1),
  client_cpu_percent: round(((clientUsage.user + clientUsage.system) / 1e6 / elapsed) * 100, 1),
  rss_bytes: rssBytes(job.serverPid) ?? null,
  statuses,
  warmup: warm ? counts(warm, job.expectStatus) : { responses: 0, unexpected_status: 0, mismatches: 0, errors: 0, timeouts: 0 },
  sample_mismatch: measured.sample ?? warm?.sample ?? null,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
