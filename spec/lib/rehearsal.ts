// The mark of a rehearsed answer: the mock (mock/docs/rehearsing.md, "Rehearsing failure") answers a forced status or example
// (`Prefer: code=…` / `example=…`, or a queued scenario, the mock's gateway statuses included) with
// `X-Mock-Rehearsal: prefer` or `X-Mock-Rehearsal: scenario <id>`, so that the validation proxy and the contract suite
// can tell it from the service's own answer (contract-tests/model/rehearsal.ts). Production never sends it.

/** The header, in lower case as the adapters and the checkers name headers. */
export const REHEARSAL_HEADER = 'x-mock-rehearsal';

/** What forced the answer: the request's own Prefer, or the queued scenario with this id. */
export type Rehearsal = { by: 'prefer' } | { by: 'scenario'; id: string };

export function formatRehearsal(rehearsal: Rehearsal): string {
  return rehearsal.by === 'prefer' ? 'prefer' : `scenario ${rehearsal.id}`;
}

/** The header's value read back; undefined for a value the mock never sends. */
export function parseRehearsal(value: string | undefined): Rehearsal | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === 'prefer') return { by: 'prefer' };
  const match = /^scenario ([A-Za-z0-9._:-]{1,100})$/.exec(text);
  return match?.[1] ? { by: 'scenario', id: match[1] } : undefined;
}
