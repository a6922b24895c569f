// The mock's defaults and limits, in a module that imports nothing: the `mock` command's --help and option checks
// read them before anything heavy loads (the core, the validators, Express), and the modules that apply each one
// import it from here.

/** Largest request body, in bytes (--body-limit). */
export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;
/** Longest `Prefer: delay` and --delay, in milliseconds. */
export const MAX_DELAY_MS = 30_000;
/** Delayed requests (--delay, Prefer: delay, a scenario's delay) that may wait at once (--max-waiting). */
export const DEFAULT_MAX_WAITING = 1000;
/** How long a `fault=timeout` request is held before its connection is dropped (--max-delay), and its ceiling. */
export const DEFAULT_MAX_HOLD_MS = 30_000;
export const MAX_HOLD_MS = 600_000;
/** A queued scenario answers at most this many requests (`times`, mock/openapi.yaml's ScenarioRequest) … */
export const MAX_SCENARIO_TIMES = 1000;
/** … a session holds at most this many pending scenarios, and a scenario's JSON body is at most this many bytes. */
export const MAX_SCENARIOS = 100;
export const MAX_SCENARIO_BODY = 4096;
/** The longest Prefer value a scenario queues (mock/openapi.yaml's ScenarioRequest.prefer). */
export const MAX_PREFER_LENGTH = 200;
/** X-Mock-Session sessions kept before the least recently used is dropped (--max-sessions). */
export const DEFAULT_MAX_SESSIONS = 100;
/**
 * Bytes all in-memory sessions keep together (--max-total-bytes): past it the least recently used named sessions are
 * dropped, as past DEFAULT_MAX_SESSIONS (mock/docs/state.md, "Memory").
 */
export const DEFAULT_TOTAL_BYTES = 256 * 1024 * 1024;
/**
 * What a session may keep (--max-session-bytes) of its writes' rich-text documents, in bytes (as `measureDocument` counts them): the oldest
 * threads' documents go first, and a single document larger than this is refused with the mock's 507 (errors.ts,
 * MOCK_STORAGE_LIMIT). Large enough for the largest realistic document the body limit lets through.
 */
export const DEFAULT_SESSION_BYTES = 16 * 1024 * 1024;

export const SELF_CHECK_MODES = ['always', 'sample', 'off'] as const;
export type SelfCheckMode = (typeof SELF_CHECK_MODES)[number];

export function isSelfCheckMode(value: unknown): value is SelfCheckMode {
  return SELF_CHECK_MODES.some((mode) => mode === value);
}

/** `sample`: every answer of an operation, status and reply code is checked until this many were … */
export const SAMPLE_FIRST = 20;
/** … then one in this many. */
export const SAMPLE_EVERY = 100;
