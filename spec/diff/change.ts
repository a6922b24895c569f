// One graded change, as `diff --format json` prints it (spec/README.md, "The contract through change").
import type { Direction } from './reach.ts';

export const LEVELS = ['ERR', 'WARN', 'INFO'] as const;
export type Level = (typeof LEVELS)[number];
/**
 * One change, as `--format json` prints it (spec/README.md, "The contract through change"): `operations` names every
 * operation whose request or answer shows the changed part, `operation` is the first of them (null: document-wide).
 */
export type Change = {
  id: string;
  level: Level;
  direction: Direction;
  operation: string | null;
  operations: string[];
  pointer: string;
  message: string;
};

/** A change with `operation` set from `operations` (the first, or null), its keys in the order JSON prints them. */
export function change(fields: Omit<Change, 'operation'>): Change {
  const { id, level, direction, operations, pointer, message } = fields;
  return { id, level, direction, operation: operations[0] ?? null, operations, pointer, message };
}
