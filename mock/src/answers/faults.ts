// Failures the way networks fail, for a frontend to rehearse (`Prefer: fault=…`, or a queued scenario): no HTTP answer
// at all. Mock-only: production never chooses to drop a connection, but clients meet both in the field.
//   network-error  the connection is dropped: the HTTP adapter destroys the socket, MSW answers HttpResponse.error()
//   timeout        no answer until the mock's longest hold (--max-delay) passes or the client gives up; then the
//                  connection is dropped as for network-error
// Neither touches the state: the fault replaces the operation once the operation is known, as a forced status does.
import type { ErrorReply } from './errors.ts';

export const FAULTS = ['network-error', 'timeout'] as const;
export type Fault = (typeof FAULTS)[number];

export function isFault(value: string): value is Fault {
  return FAULTS.some((fault) => fault === value);
}

/** The reply code the pipeline answers with for a fault: never framed, never checked against the spec, never sent. */
export const FAULT_CODE = 'MOCK_FAULT';

/**
 * Resolves once `ms` have passed or `signal` aborts (the client gave up), whichever comes first; the timer never
 * outlives either.
 */
export function hold(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** What the pipeline answers in place of the operation when a fault is asked for (core.ts turns it into no answer). */
export const FAULT_REPLY: ErrorReply = { code: FAULT_CODE, status: 0, body: '', framing: 'none' };
