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

/**
 * Characters that must never reach a terminal or a log as they are: C0 and C1 controls (LF and CR start a forged line,
 * ESC and CSI an ANSI sequence), DEL, the Unicode line and paragraph separators, and the bidirectional controls (text
 * shown in another order than it is).
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escaped = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A text as a person or a log may read it: every unprintable character (UNPRINTABLE) as a `\uXXXX` escape, the rest as
 * it is. Every text that may hold a string from outside (a target's answer, a request, a file) goes through it where
 * it is printed or logged.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/** Whether a text has no character that printable() would escape. */
export function isPrintable(text: string): boolean {
  UNPRINTABLE.lastIndex = 0;
  return !UNPRINTABLE.test(text);
}

/**
 * A string from outside, quoted inside a message: JSON's quoting (quotes and backslashes escaped) with every
 * unprintable character as a `\uXXXX` escape (JSON leaves C1 controls and the bidirectional ones as they are).
 */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(UNPRINTABLE, escaped);
}

/** `response.body.project.state`, `response.body.goal.targets[0].id`; any other name quoted (`["a b"]`). */
export function formatLocation(location: ReadonlyArray<string | number>): string {
  let out = '';
  for (const part of location) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${quoted(part)}]`;
  }
  return out;
}

/** One violation on one line: whatever its message holds from outside is escaped (printable). */
export function formatViolation(v: Violation): string {
  return `${v.severity === 'error' ? '✗ error  ' : '! warning'} ${formatLocation(v.location)}  ${printable(v.message)}  [${printable(v.code)}]`;
}

/** The most violations one exchange reports: past it, one more says how many were left out. */
export const MAX_REPORTED = 100;

/**
 * At most `max` of the violations (the errors first, each group in its order), and when some are left out one more
 * that counts them exactly: "and N more …" (an error when an error was left out). `more` makes that last one of the
 * caller's type from a plain violation and the ones it stands for.
 */
export function capViolations<T extends Violation>(violations: ReadonlyArray<T>, more: (v: Violation, left: ReadonlyArray<T>) => T, max = MAX_REPORTED): T[] {
  if (violations.length <= max) return [...violations];
  const ordered = [...violations.filter((v) => v.severity === 'error'), ...violations.filter((v) => v.severity !== 'error')];
  const left = ordered.slice(max);
  const errors = left.filter((v) => v.severity === 'error').length;
  const warnings = left.length - errors;
  const counts = [errors > 0 ? `${errors} error${errors === 1 ? '' : 's'}` : '', warnings > 0 ? `${warnings} warning${warnings === 1 ? '' : 's'}` : '']
    .filter(Boolean)
    .join(' and ');
  const summary = violation(
    ['response'],
    'violations.more',
    `and ${left.length} more (${counts}) not listed: ${violations.length} in all, the first ${max} shown`,
    errors > 0 ? 'error' : 'warning',
  );
  return [...ordered.slice(0, max), more(summary, left)];
}

export const errorsOf = (violations: ReadonlyArray<Violation>): Violation[] => violations.filter((v) => v.severity === 'error');
export const warningsOf = (violations: ReadonlyArray<Violation>): Violation[] => violations.filter((v) => v.severity === 'warning');
