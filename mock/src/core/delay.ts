// The wait of a delayed answer (`Prefer: delay=MS`, a queued scenario's delay, --delay), bounded twice:
//   - by its client: the wait listens to the request's AbortSignal (the HTTP adapter aborts it when the connection
//     closes, MSW and fetch pass the Request's own). A client that has gone stops the wait at once; the request then
//     changes nothing (the wait comes before the operation's write, pipeline.ts) and is not journaled, and its body
//     is freed with it;
//   - by count: at most `max` requests wait at once in one mock (DEFAULT_MAX_WAITING). One more is answered at once
//     with the mock's own 503 (errors.ts, MOCK_UNAVAILABLE) and changes nothing.
// A request waits once: before its write when it writes, else after its answer is known (a forced code or example,
// an error found before the write), so every answer is delayed as before.

import { DEFAULT_MAX_WAITING } from '../limits.ts';

/** How a wait ended: the time passed, the client went away, or too many requests were waiting already. */
export type WaitOutcome = 'waited' | 'gone' | 'busy';

/** Thrown through the pipeline to stop a request before its write: its client went away, or the wait was refused. */
export class WaitStopped extends Error {
  override name = 'WaitStopped';
  readonly outcome: Exclude<WaitOutcome, 'waited'>;
  constructor(outcome: Exclude<WaitOutcome, 'waited'>) {
    super(outcome === 'gone' ? 'the client went away while its answer was delayed' : 'too many delayed requests are waiting');
    this.outcome = outcome;
  }
}

/** The message of the 503 (MOCK_UNAVAILABLE) a delayed request past the limit gets. */
export const busyMessage = (max: number): string =>
  `The mock already holds ${max} delayed requests (Prefer: delay, a scenario's delay or --delay); this one was not delayed and changed nothing. Retry it, or delay fewer requests at once.`;

export type Waits = {
  /** The requests waiting now. */
  readonly waiting: number;
  readonly max: number;
  /** Waits `ms`, unless the signal aborts first ('gone') or `max` requests wait already ('busy'). */
  wait(ms: number, signal: AbortSignal | undefined): Promise<WaitOutcome>;
};

export function createWaits(max = DEFAULT_MAX_WAITING): Waits {
  let waiting = 0;
  return {
    get waiting() {
      return waiting;
    },
    max,
    wait(ms, signal) {
      // No wait, nothing to stop: a request that is not delayed is answered (and writes) as it always was.
      if (ms <= 0) return Promise.resolve('waited');
      if (signal?.aborted) return Promise.resolve('gone');
      if (waiting >= max) return Promise.resolve('busy');
      waiting++;
      return new Promise((resolve) => {
        const end = (outcome: WaitOutcome): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', gone);
          waiting--;
          resolve(outcome);
        };
        const gone = (): void => end('gone');
        const timer = setTimeout(() => end('waited'), ms);
        signal?.addEventListener('abort', gone, { once: true });
      });
    },
  };
}

/**
 * One request's wait, taken at most once: `beforeWrite` (the pipeline's hook, which throws WaitStopped unless the
 * wait passed; nothing to await when there is no wait) or `settle` (after the answer is known), whichever comes
 * first, waits; the other reads its outcome. `ms` is asked once (--delay MIN-MAX draws a random time).
 */
export function requestWait(
  waits: Waits,
  ms: () => number,
  signal: AbortSignal | undefined,
): { beforeWrite(): Promise<void> | undefined; settle(): Promise<WaitOutcome> } {
  let outcome: Promise<WaitOutcome> | undefined;
  let chosen: number | undefined;
  const waitMs = (): number => {
    chosen ??= ms();
    return chosen;
  };
  const settle = (): Promise<WaitOutcome> => (outcome ??= waits.wait(waitMs(), signal));
  return {
    settle,
    beforeWrite() {
      if (outcome === undefined && waitMs() <= 0) {
        outcome = Promise.resolve('waited');
        return undefined;
      }
      return settle().then((ended) => {
        if (ended !== 'waited') throw new WaitStopped(ended);
      });
    },
  };
}
