// The stages of one API request, in the order the core runs them, for the bench's stage table
// (mock/bench/stage-times.ts). The core marks the end of each stage on a probe that stays undefined unless a profiler
// installs one, so serving pays one comparison per mark.
export const STAGES = [
  /** CORS, the target, session and Prefer headers, the body's bytes to JSON, the forward, content negotiation (steps 1–3) */
  'parse',
  /** the match: the method, then the operation the path names in the spec model (step 4, pipeline.ts) */
  'route',
  /** ParseInputs over the query and body (step 5, decode.ts) */
  'decode',
  /** the session's store, the bearer token and its access mode (steps 6–7) */
  'auth',
  /** the missing required fields, from the spec model's operation (step 8, missingFields in pipeline.ts) */
  'validate',
  /** the operation's checks and state rules, up to the commit (writes.ts) */
  'rules',
  /** the commit: history rows and the event journal (store.ts) */
  'store',
  /** the response object (views.ts) */
  'view',
  /** the framing and JSON.stringify (reply.ts) */
  'serialize',
  /** the response self-check against the spec (reply.ts) */
  'self-check',
  /** the request journal (sessions.ts) */
  'journal',
] as const;

export type Stage = (typeof STAGES)[number];

let probe: ((stage: Stage) => void) | undefined;

/** Installs (or, with undefined, removes) the process's stage probe: called with each stage as it ends. */
export function setStageProbe(fn: ((stage: Stage) => void) | undefined): void {
  probe = fn;
}

/** Marks the end of a stage. */
export function mark(stage: Stage): void {
  if (probe !== undefined) probe(stage);
}
