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

type Window = { results: Result[]; latencies: Float64Array; count: number; mismatches: number; sample: string | null };

/** One autocannon run per replica (one for a single server), the connections split evenly, all at once. */
async function load(job: Job, seconds: number, amount?: number): Promise<Window> {
  const matches = bodyMatcher(job.check);
  let mismatches = 0;
  let sample: string | null = null;
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const urls = [job.url, ...(job.alsoUrls ?? [])];
  const instances = urls.map((url, i) => {
    const connections = Math.floor(job.connections / urls.length) + (i < job.connections % urls.length ? 1 : 0);
    const instance = autocannon({
      url,
      connections,
      ...(amount === undefined ? { duration: seconds } : { amount: Math.floor(amount / urls.length) + (i < amount % urls.length ? 1 : 0) }),
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
    return instance;
  });
  const results = await Promise.all(instances);
  return { results, latencies, count, mismatches, sample };
}

function counts(window: Window, expectStatus: number): Counts {
  const sum = (pick: (r: Result) => number): number => window.results.reduce((n, r) => n + pick(r), 0);
  const responses = sum((r) => Object.values(r.statusCodeStats).reduce((n, s) => n + s.count, 0));
  const expected = sum((r) => r.statusCodeStats[String(expectStatus)]?.count ?? 0);
  return { responses, unexpected_status: responses - expected, mismatches: window.mismatches, errors: sum((r) => r.errors), timeouts: sum((r) => r.timeouts) };
}

/** A reading summed over the server's processes (its replicas, its store), or undefined when one is gone. */
function summed(job: Job, read: (pid: number) => number | undefined): number | undefined {
  let total = 0;
  for (const pid of [job.serverPid, ...(job.alsoPids ?? [])]) {
    const value = read(pid);
    if (value === undefined) return undefined;
    total += value;
  }
  return total;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

const job = await readJob();
const warm = job.warmupSeconds > 0 ? await load(job, job.warmupSeconds) : undefined;

const ticksBefore = summed(job, cpuTicks);
const clientBefore = process.cpuUsage();
const started = performance.now();
const measured = await load(job, job.durationSeconds, job.amount);
const elapsed = (performance.now() - started) / 1000;
const clientUsage = process.cpuUsage(clientBefore);
const ticksAfter = summed(job, cpuTicks);

const measuredCounts = counts(measured, job.expectStatus);
const serverSeconds = ticksBefore !== undefined && ticksAfter !== undefined ? (ticksAfter - ticksBefore) / job.clkTck : Number.NaN;
const sorted = measured.latencies.slice(0, measured.count).sort();
const sum = sorted.reduce((a, b) => a + b, 0);
const statuses: Record<string, number> = {};
for (const result of measured.results)
  for (const [status, stat] of Object.entries(result.statusCodeStats)) statuses[status] = (statuses[status] ?? 0) + stat.count;

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
  rss_bytes: summed(job, rssBytes) ?? null,
  statuses,
  warmup: warm ? counts(warm, job.expectStatus) : { responses: 0, unexpected_status: 0, mismatches: 0, errors: 0, timeouts: 0 },
  sample_mismatch: measured.sample ?? warm?.sample ?? null,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
