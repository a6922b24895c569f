// Memory after the load: our mock's state (writes accumulate activities and threads, part of its RSS), every
// server's RSS, and our mock's heap after a forced GC.
import { isObject } from '../../spec/lib/openapi.ts';
import { heapAfterGc, type HeapAfterGc } from './heap.ts';
import { rssBytes } from './proc.ts';
import type { Running, ServerName } from './start-server.ts';

export type MockState = { bytes: number; activities: number; comment_threads: number };

export type AfterLoad = { mockState: MockState | null; finalRss: Record<string, number | null>; heapAfterLoad: HeapAfterGc | null };

/** Measured while every server still runs (`full`: with the heap after a forced GC, which stops the world). */
export async function memoryAfterLoad(mock: Running, running: ReadonlyMap<ServerName, Running>, full: boolean): Promise<AfterLoad> {
  let mockState: MockState | null = null;
  try {
    const text = await (await fetch(`${mock.url}/__mock/state`)).text();
    const state: unknown = JSON.parse(text);
    const count = (key: string): number => (isObject(state) && Array.isArray(state[key]) ? state[key].length : 0);
    mockState = { bytes: text.length, activities: count('activities'), comment_threads: count('comment_threads') };
  } catch {
    mockState = null;
  }
  const finalRss: Record<string, number | null> = {};
  for (const [name, server] of running) finalRss[name] = Number(((rssBytes(server.pid) ?? Number.NaN) / 1048576).toFixed(1));
  const heapAfterLoad = full ? await heapAfterGc(mock.pid, mock.proc.stderr) : null;
  return { mockState, finalRss, heapAfterLoad };
}
