// Violations are values: everything wrong with one response is collected before anything fails, and each names where
// (a JSON-pointer-like path from `response`), what rule (a stable code), how bad, and what was expected.

export type Severity = 'error' | 'warning';

export type Violation = {
  /** Where, from the response down: ['response', 'status'], ['response', 'header', 'content-type'], ['response', 'body', 'project', 'state']. */
  location: ReadonlyArray<string | number>;
  /** A stable name of the rule that was broken, e.g. `status.undocumented`, `schema.required`, `expected.body`. */
  code: string;
  severity: Severity;
  /** What is wrong and what was expected, in one sentence. */
  message: string;
};

export function violation(location: ReadonlyArray<string | number>, code: string, message: string, severity: Severity = 'error'): Violation {
  return { location, code, severity, message };
}

/** `response.body.project.state`, `response.body.goal.targets[0].id`. */
export function formatLocation(location: ReadonlyArray<string | number>): string {
  let out = '';
  for (const part of location) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : /^[A-Za-z_$][\w$-]*$/.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`;
  }
  return out;
}

export function formatViolation(v: Violation): string {
  return `${v.severity === 'error' ? '✗ error  ' : '! warning'} ${formatLocation(v.location)}  ${v.message}  [${v.code}]`;
}

export const errorsOf = (violations: ReadonlyArray<Violation>): Violation[] => violations.filter((v) => v.severity === 'error');
export const warningsOf = (violations: ReadonlyArray<Violation>): Violation[] => violations.filter((v) => v.severity === 'warning');
