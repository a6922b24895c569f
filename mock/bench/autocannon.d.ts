// The part of autocannon 9's programmatic API the bench worker uses (the package ships no types).
declare module 'autocannon' {
  export type RequestSpec = { method?: string; path?: string; headers?: Record<string, string>; body?: string };

  export type Options = {
    url: string;
    connections?: number;
    duration?: number;
    /** Requests in all, split evenly over the connections (each stops after its share); instead of `duration`. */
    amount?: number;
    pipelining?: number;
    timeout?: number;
    requests?: RequestSpec[];
    verifyBody?: (body: string) => boolean;
  };

  export type Histogram = { average: number; mean: number; stddev: number; min: number; max: number; p50: number; p99: number; total?: number };

  export type Result = {
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { total: number; sent: number };
    throughput: Histogram;
  };

  export type Instance = PromiseLike<Result> & {
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): Instance;
    on(event: 'reqError', listener: (error: Error) => void): Instance;
    stop(): void;
  };

  export default function autocannon(options: Options): Instance;
}
