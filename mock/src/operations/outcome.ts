// Turning a store's outcome into the handler's reply.
import * as errors from '../answers/errors.ts';
import type { Reply } from '../answers/reply.ts';
import type { Outcome } from '../domain/access.ts';

const FAILURES = { not_found: errors.NOT_FOUND, forbidden: errors.FORBIDDEN, failed: errors.OPERATION_FAILED } as const;

export function outcomeReply<T>(outcome: Outcome<T>, body: (value: T) => Record<string, unknown>): Reply {
  if (!outcome.ok) return outcome.reason === 'too_large' ? errors.MOCK_STORAGE_LIMIT(outcome.detail) : FAILURES[outcome.reason];
  return { code: 'OK', status: 200, body: body(outcome.value), framing: 'json' };
}
