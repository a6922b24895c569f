// The bench's output: one line at a time on stdout, and a heap as the report's lines show it.
import { fixed } from './format.ts';
import type { HeapAfterGc } from './heap.ts';

export function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export const describeHeap = (heap: HeapAfterGc | null): string =>
  heap === null
    ? 'n/a'
    : 'error' in heap
      ? `n/a (${heap.error})`
      : `${fixed(heap.used_mb, 1)} MB used of ${fixed(heap.total_mb, 1)} MB, RSS then ${fixed(heap.rss_mb, 1)} MB`;
