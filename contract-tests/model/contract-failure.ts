// What the suite adds to the violations of spec/lib/violations.ts (values, shared with the mock and the fuzzers): the
// failure a contract test throws, and how a body is shown in it.
import type { Violation } from '../../spec/lib/violations.ts';

/** What a failed contract test throws: its message is what QA reads (rule, request as curl, response, violations). */
export class ContractFailure extends Error {
  readonly violations: ReadonlyArray<Violation>;
  constructor(message: string, violations: ReadonlyArray<Violation>) {
    super(message);
    this.name = 'ContractFailure';
    this.violations = violations;
  }
}

/** A short, printable excerpt of a body (one line, at most `max` characters). */
export function excerpt(text: string, max = 240): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}… (${text.length} characters)` : oneLine;
}
