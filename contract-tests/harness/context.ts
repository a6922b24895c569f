// What vitest carries for the suite: the resolved target (provided once by setup.ts to every test file) and what each
// test leaves for the reporter (its warnings, the property seed, what it failed on). Types only.
import type { CoverageData } from '../model/coverage.ts';
import type { ResolvedTarget } from '../io/target.ts';
import type { Violation } from '../../spec/lib/violations.ts';

declare module 'vitest' {
  interface ProvidedContext {
    contract: ResolvedTarget;
  }
  interface TaskMeta {
    /** Warnings the test's responses produced (reported in the summary, never a failure). */
    contractWarnings?: Violation[];
    /** What the test's exchanges exercised (merged by the reporter into the run's coverage). */
    contractCoverage?: CoverageData;
    /** The fast-check seed a property test ran with. */
    contractSeed?: number;
    /** The exchange a failed test failed on: its request as a curl line (tokens masked) and its errors. */
    contractFailure?: { request: string; violations: Violation[] };
  }
}
