// A rehearsed answer, as the validation proxy and the contract suite recognise it: this package's mock marks every
// answer it was asked to force (a status or example from `Prefer`, or a queued scenario, its gateway statuses 502, 503
// and 504 included) with `X-Mock-Rehearsal: prefer` or `X-Mock-Rehearsal: scenario <id>` (spec/lib/rehearsal.ts).
// The mark excuses an answer from production's rules only when the target is known to be this package's mock (the
// suite and the proxy learn that from the mock's own fixtures document, GET /__mock/fixtures), and a `prefer` mark
// only when the request asked for one. Anywhere else the header is itself a violation, and the answer is checked as
// the service's own: a production target, or a hostile one, cannot get a real violation excused by sending it.
import { gateway } from '../../spec/lib/messages.ts';
import { parseRehearsal, REHEARSAL_HEADER, type Rehearsal } from '../../spec/lib/rehearsal.ts';
import { violation, type Violation } from '../../spec/lib/violations.ts';

export { REHEARSAL_HEADER };

export type RehearsalVerdict =
  /** No mark: the service's own answer, checked as ever. */
  | { kind: 'none' }
  /** A rehearsal of this package's mock: `mark` as the header gave it, `gateway` when the status is a gateway's. */
  | { kind: 'rehearsed'; rehearsal: Rehearsal; mark: string; gateway: boolean }
  /** A mark that excuses nothing: a violation, and the answer is checked as the service's own. */
  | { kind: 'refused'; violation: Violation };

type RehearsalContext = {
  /** Whether the target is known to be this package's mock (it answered GET /__mock/fixtures with its fixtures). */
  mockTarget: boolean;
  /** The request's own `Prefer` header, if any (a `prefer` mark needs one that asks for a code or an example). */
  prefer: string | undefined;
};

/** Whether a Prefer value asks the mock for a status or an example (what a `prefer` mark answers). */
function asksForAnswer(prefer: string | undefined): boolean {
  return prefer !== undefined && /(^|[\s,;])(code|example)\s*=/i.test(prefer);
}

const shown = (value: string): string => JSON.stringify(value.slice(0, 100));

/** What the mark on an answer (lower-case header names) means for its check. */
export function judgeRehearsal(headers: Readonly<Record<string, string>>, status: number, context: RehearsalContext): RehearsalVerdict {
  const value = headers[REHEARSAL_HEADER];
  if (value === undefined) return { kind: 'none' };
  const refuse = (why: string): RehearsalVerdict => ({
    kind: 'refused',
    violation: violation(
      ['response', 'header', REHEARSAL_HEADER],
      'header.mock-rehearsal',
      `X-Mock-Rehearsal: ${shown(value)} ${why}; the answer is checked as the service's own (production never sends this header)`,
    ),
  });
  if (!context.mockTarget)
    return refuse("on an answer of a target not known to be this package's mock (it did not answer GET /__mock/fixtures with the mock's fixtures)");
  const rehearsal = parseRehearsal(value);
  if (!rehearsal) return refuse('is not a mark the mock sends (`prefer` or `scenario <id>`)');
  if (rehearsal.by === 'prefer' && !asksForAnswer(context.prefer)) return refuse('names the Prefer header, but the request asked for no code or example');
  return { kind: 'rehearsed', rehearsal, mark: value.trim(), gateway: gateway().has(status) };
}

/** The one line that says what a rehearsed answer is, for a report: `503 rehearsed (scenario scenario-2)`. */
export function describeRehearsal(verdict: Extract<RehearsalVerdict, { kind: 'rehearsed' }>, status: number): string {
  return `${status} rehearsed by the mock (X-Mock-Rehearsal: ${verdict.mark}${verdict.gateway ? "; a gateway's status, which no operation documents" : ''})`;
}
