// Small helpers the bench's reports share: medians, fixed-width numbers and plain-text tables.

export function median(values: ReadonlyArray<number>): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

/** A number with `digits` decimals, or `n/a` for null, NaN and infinities. */
export const fixed = (value: number | null | undefined, digits: number): string =>
  value === null || value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);

/** A number rounded to `digits` decimals, for the results JSON. */
export const rounded = (value: number, digits: number): number => Number(value.toFixed(digits));

/** Rows of cells as columns padded to their widest cell, right-aligned where asked; the first row is the header. */
export function table(rows: string[][], rightAligned: ReadonlyArray<boolean>): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => (rightAligned[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
