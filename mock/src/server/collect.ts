// Garbage collection after large requests (Node only: the Express adapter calls it). A 9 MB body leaves its bytes,
// its text and the strings parsed from it behind, and V8 keeps such large objects until a full collection, which it
// starts only once the heap has grown to a multiple of what is live: under a run of large writes the process's memory
// would climb to three or four times what the sessions keep. One full collection once a large request is answered
// (coalesced: at most one waiting) keeps it near what is live (mock/docs/state.md, "Memory"). Small requests never trigger
// it, so ordinary traffic pays nothing.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A request body at least this large is followed by a full collection. */
export const LARGE_BODY = 1024 * 1024;

let collect: (() => void) | undefined | null;
let pending = false;

/** V8's full collection, exposed for this process only (a new context's `gc`; the global object stays as it was). */
function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString('--expose-gc');
    const found: unknown = runInNewContext('gc');
    collect = typeof found === 'function' ? () => void found() : null;
  } catch {
    collect = null;
  }
  return collect;
}

/** Runs one full collection soon, unless one is already waiting. */
export function collectSoon(): void {
  if (pending) return;
  const run = collector();
  if (!run) return;
  pending = true;
  setImmediate(() => {
    pending = false;
    run();
  });
}
