// The rules every 200 answer of a write is held to, whoever sent the request (a suite test, or live traffic through
// the proxy): its fields agree with each other (agreement.ts), and what the write leaves alone is as the record's
// previous answer showed it (memory.ts), and what the write computes from that previous state is what production
// computes (write-again.ts). Each run is counted in the coverage, a rule that could not run with why.
import { numberFormViolations } from '../../spec/lib/number-form.ts';
import { agreementRules, serverDay } from './agreement.ts';
import { callerRules, type Caller } from './caller.ts';
import type { Coverage } from './coverage.ts';
import type { RecordMemory } from './memory.ts';
import type { OperationId } from './profiles.ts';
import type { Violation } from '../../spec/lib/violations.ts';
import { writeAgainRules } from './state-rules.ts';

export type AnswerContext = {
  memory: RecordMemory;
  coverage: Coverage;
  /** Whose view of the records this is: the caller and the mock session (a record's permissions are the caller's). */
  scope: string;
};

/** What else is known of an answer: its body as received (for the number forms), and who asked (caller.ts). */
export type AnswerExtra = { text?: string; caller?: Caller | undefined };

/**
 * The agreement, number-form, caller and left-alone rules on a 200 answer's parsed body; `headers` give the server's
 * day (Date).
 */
export function answerRules(
  operationId: OperationId,
  headers: Readonly<Record<string, string | undefined>>,
  json: unknown,
  context: AnswerContext,
  extra: AnswerExtra = {},
): Violation[] {
  const { memory, coverage, scope } = context;
  const agreement = agreementRules(json, serverDay(headers));
  coverage.rule(operationId, 'agreement');
  if (extra.text !== undefined) agreement.push(...numberFormViolations(extra.text, json));
  agreement.push(...callerRules(json, extra.caller), ...memory.notifications(scope, json));
  const left = memory.observe(scope, operationId, json, Date.parse(headers['date'] ?? ''));
  coverage.rule(operationId, 'left-alone', left.skipped);
  coverage.rule(operationId, 'write-again', left.previous ? undefined : (left.skipped ?? 'no earlier answer for this record'));
  return [...agreement, ...left.violations, ...writeAgainRules(operationId, left.previous, json, headers, left.previousAnsweredAt)];
}
