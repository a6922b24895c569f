// RULES.md's error table, read for the tests that hold the spec to it: the one place outside the spec where production's
// texts are written (RULES.md#error-table), so a changed text is the spec and RULES.md, and no test.
import { readFileSync } from 'node:fs';

const RULES = new URL('../../RULES.md', import.meta.url);

/** One row: its status and the texts its Body cell quotes, in order (`Bad Request`, then the JSON form). */
export type ErrorRow = { status: number; bodies: string[] };

let table: ReadonlyMap<number, ErrorRow> | undefined;

/** Every row of the error table, by its number (RULES.md#error-1 … ); RULES.md is read once. */
export function errorTable(): ReadonlyMap<number, ErrorRow> {
  if (table) return table;
  const rows = new Map<number, ErrorRow>();
  for (const line of readFileSync(RULES, 'utf8').split('\n')) {
    const cells = /^\| <a id="error-(\d+)"><\/a>\d+ \|[^|]*\| (\d+) \|([^|]*)\|/.exec(line);
    if (!cells) continue;
    rows.set(Number(cells[1]), { status: Number(cells[2]), bodies: [...(cells[3] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '') });
  }
  table = rows;
  return rows;
}

/** The `index`th text the Body cell of RULES.md#error-<n> quotes; JSON bodies parsed. */
export function rulesBody(n: number, index = 0): unknown {
  const text = errorTable().get(n)?.bodies[index];
  if (text === undefined) throw new Error(`RULES.md's error table has no row ${n} with a body ${index + 1}`);
  return text.startsWith('{') ? JSON.parse(text) : text;
}
