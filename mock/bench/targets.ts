// The bench's targets (see README.md, "Targets"): the numbers alone, imported by the tables that mark them and by the
// verdicts (verdicts.ts).

/** The bench's targets, each checked from one run (see mock/bench/README.md, "Targets"). */
export const TARGETS = {
  /**
   * Our mock's server CPU µs per request, by self-check mode: at most `any` for every operation, and the tighter bound
   * measured for an operation where one is set (a new operation needs no entry here).
   */
  cpu_us: {
    always: { any: 180, resumeProject: 120 } as Readonly<Record<string, number>>,
    sample: { any: 130, resumeProject: 90 } as Readonly<Record<string, number>>,
  },
  /** Our mock with `--self-check sample` ÷ the parse-and-stringify Express floor, by req/s and by CPU: at least. */
  floor_ratio: 0.45,
  /** Our mock (always) ÷ Prism (default) by req/s, on both operations: at least. */
  prism_default_ratio: 3.0,
  rss_mb_after_load: 160,
  rss_mb_after_session_writes: 400,
  cold_start_ms: 300,
  /** The installed mock's first answer, as a multiple of a bare node:http server's started the same way. */
  installed_cold_start_ratio: 3,
  /** `service-external-api mock --help`, installed. */
  help_ms: 100,
  /** createMockApp() / createMockHandlers() + the first correct 200, the median after the first: at most. */
  in_process_start_ms: 20,
} as const;
