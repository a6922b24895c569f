// The wall-clock rule: code takes the time from a clock it is given (`now: () => Date`), so a test can fix the day.
// This finds every read of the wall clock as a date in a source text — `Date.now`, `new Date()` with no argument,
// `Date()` called without `new`, `performance.timeOrigin`, `performance.now()` inside a date, `Temporal.Now` — by
// its syntax tree, so a comment or a string that names one is not a read. `process.hrtime` and `performance.now()`
// for a duration are monotonic timers, not dates, and pass.
import ts from 'typescript';

export type ClockRead = { line: number; text: string };

const DATE_HOLDERS = new Set(['globalThis', 'window', 'self', 'global']);

/** `Date`, `globalThis.Date`, `window.Date`: the global Date constructor by its usual names. */
function isDate(node: ts.Expression): boolean {
  if (ts.isIdentifier(node)) return node.text === 'Date';
  return ts.isPropertyAccessExpression(node) && node.name.text === 'Date' && ts.isIdentifier(node.expression) && DATE_HOLDERS.has(node.expression.text);
}

/** `performance.<name>` (also through globalThis). */
function isPerformance(node: ts.Node, name: string): boolean {
  if (!ts.isPropertyAccessExpression(node) || node.name.text !== name) return false;
  const holder = node.expression;
  if (ts.isIdentifier(holder)) return holder.text === 'performance';
  return ts.isPropertyAccessExpression(holder) && holder.name.text === 'performance';
}

/** Whether a `performance.now()` call is somewhere inside a node. */
function holdsPerformanceNow(node: ts.Node): boolean {
  if (ts.isCallExpression(node) && isPerformance(node.expression, 'now')) return true;
  return ts.forEachChild(node, (child) => (holdsPerformanceNow(child) ? true : undefined)) ?? false;
}

/** What a node reads of the wall clock, or undefined. */
function readOf(node: ts.Node): string | undefined {
  if (ts.isPropertyAccessExpression(node) && node.name.text === 'now' && isDate(node.expression)) return 'Date.now';
  if (ts.isNewExpression(node) && isDate(node.expression)) {
    const args = node.arguments ?? [];
    if (args.length === 0) return 'new Date()';
    if (args.some(holdsPerformanceNow)) return 'performance.now() as a date';
  }
  if (ts.isCallExpression(node) && isDate(node.expression)) return 'Date()';
  if (isPerformance(node, 'timeOrigin')) return 'performance.timeOrigin';
  if (ts.isPropertyAccessExpression(node) && node.name.text === 'Now' && ts.isIdentifier(node.expression) && node.expression.text === 'Temporal')
    return 'Temporal.Now';
  return undefined;
}

/** Every read of the wall clock in a source text, with its 1-based line. */
export function wallClockReads(fileName: string, text: string): ClockRead[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith('x') ? ts.ScriptKind.TSX : undefined);
  const found: ClockRead[] = [];
  const visit = (node: ts.Node): void => {
    const read = readOf(node);
    if (read !== undefined) found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: read });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
