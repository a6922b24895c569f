// Reading decoded inputs (decode.ts has already checked their kinds) and turning store outcomes into replies.
import * as errors from '../errors.ts';
import type { Reply } from '../reply.ts';
import type { Outcome } from '../access.ts';

export function requiredString(inputs: Record<string, unknown>, name: string): string | undefined {
  const value = inputs[name];
  return typeof value === 'string' ? value : undefined;
}

export function optionalBoolean(inputs: Record<string, unknown>, name: string): boolean | null {
  const value = inputs[name];
  return typeof value === 'boolean' ? value : null;
}

export function idList(inputs: Record<string, unknown>, name: string): Array<string | null> {
  const value = inputs[name];
  return Array.isArray(value) ? value.map((id) => (typeof id === 'string' ? id : null)) : [];
}

const FAILURES = { not_found: errors.NOT_FOUND, forbidden: errors.FORBIDDEN, failed: errors.OPERATION_FAILED } as const;

export function outcomeReply<T>(outcome: Outcome<T>, body: (value: T) => Record<string, unknown>): Reply {
  if (!outcome.ok) return outcome.reason === 'too_large' ? errors.MOCK_STORAGE_LIMIT(outcome.detail) : FAILURES[outcome.reason];
  return { code: 'OK', status: 200, body: body(outcome.value), framing: 'json' };
}
