// Per-request control, a superset of Prism's `Prefer`: `code=NNN` answers with that documented status and its
// example, `example=NAME` picks a named example, `delay=MS` waits before answering. A forced answer is built from
// the spec's examples and never touches the state. `fault=network-error|timeout` answers nothing at all (faults.ts).
// `code=502|503|504`, which no operation documents, answers what a gateway in front of the service sends in its place
// (errors.ts MOCK_GATEWAY: the spec's `x-messages/gateway` page), the mock's own, never touching the state either.
import { isObject } from '../../../spec/lib/openapi.ts';
import { operationModels, responseExamples } from '../../../spec/lib/operations.ts';
import * as errors from './errors.ts';
import { FAULT_REPLY, FAULTS, isFault, type Fault } from './faults.ts';
import { formatRehearsal, type Rehearsal } from '../../../spec/lib/rehearsal.ts';
import { MAX_DELAY_MS } from '../limits.ts';
import type { Reply } from './reply.ts';

export type Preferences = { code?: number; example?: string; delay?: number; fault?: Fault };

/** A scenario one request consumed (scenarios.ts): its id and the Prefer value the request is answered as if it carried. */
export type TakenScenario = { id: string; prefer: string };

/** Reads `Prefer: code=404, example=name, delay=800, fault=timeout` (also `;`-separated); unknown preferences are ignored. */
export function parsePrefer(header: string | undefined): { ok: true; value: Preferences } | { ok: false; error: Reply } {
  const value: Preferences = {};
  if (!header) return { ok: true, value };
  for (const part of header.split(/[,;]/)) {
    const match = /^\s*([A-Za-z-]+)\s*=\s*"?([^"]*)"?\s*$/.exec(part);
    if (!match?.[1]) continue;
    const key = match[1].toLowerCase();
    const raw = match[2] ?? '';
    if (key === 'code') {
      if (!/^\d{3}$/.test(raw)) return { ok: false, error: errors.MOCK_CONTROL_ERROR(`Prefer: code must be a three-digit status, got "${raw}"`) };
      value.code = Number(raw);
    } else if (key === 'example') {
      value.example = raw;
    } else if (key === 'delay') {
      if (!/^\d+$/.test(raw) || Number(raw) > MAX_DELAY_MS)
        return { ok: false, error: errors.MOCK_CONTROL_ERROR(`Prefer: delay must be whole milliseconds from 0 to ${MAX_DELAY_MS}, got "${raw}"`) };
      value.delay = Number(raw);
    } else if (key === 'fault') {
      if (!isFault(raw)) return { ok: false, error: errors.MOCK_CONTROL_ERROR(`Prefer: fault must be ${FAULTS.join(' or ')}, got "${raw.slice(0, 80)}"`) };
      value.fault = raw;
    }
  }
  return { ok: true, value };
}

const FRAMING: Record<string, 'json' | 'none' | 'html'> = { 'application/json': 'json', 'text/plain': 'none', 'text/html': 'html' };

/** The forced reply for an operation, or a mock error naming what is documented. */
export function forcedReply(operationId: string, preferences: Preferences): Reply | undefined {
  if (preferences.code === undefined && preferences.example === undefined) return undefined;
  const operation = operationModels().find((o) => o.operationId === operationId);
  if (!operation) return undefined;
  const examples = responseExamples(operation);
  const statuses = [...operation.responses.keys()];
  const gateway = preferences.code !== undefined && !statuses.includes(String(preferences.code)) ? errors.MOCK_GATEWAY(preferences.code) : undefined;
  if (gateway) {
    if (preferences.example === undefined) return gateway;
    return errors.MOCK_CONTROL_ERROR(
      `Prefer: code=${preferences.code} is a gateway status the mock answers with a gateway's page; it has no examples, so leave example=${preferences.example} out`,
    );
  }
  if (preferences.code !== undefined && !statuses.includes(String(preferences.code))) {
    return errors.MOCK_CONTROL_ERROR(`Prefer: code=${preferences.code} is not documented for ${operationId}; documented: ${statuses.join(', ')}`);
  }
  const candidates = examples.filter((e) => (preferences.code === undefined ? true : e.status === preferences.code));
  const chosen = preferences.example === undefined ? candidates[0] : candidates.find((e) => e.name === preferences.example);
  if (!chosen) {
    const names = candidates.map((e) => e.name).filter((n) => n !== undefined);
    const scope = preferences.code === undefined ? operationId : `${operationId} ${preferences.code}`;
    return errors.MOCK_CONTROL_ERROR(
      `Prefer: example=${preferences.example ?? ''} is not an example of ${scope}; examples: ${names.join(', ') || '(none named)'}`,
    );
  }
  const framing = FRAMING[chosen.mediaType] ?? 'json';
  if (chosen.status === 200 && isObject(chosen.value)) return { code: 'OK', status: 200, body: chosen.value, framing: 'json' };
  if (typeof chosen.value === 'string') return { code: 'FORCED', status: chosen.status, body: chosen.value, framing: framing === 'json' ? 'none' : framing };
  if (isObject(chosen.value)) return { code: 'FORCED', status: chosen.status, body: chosen.value, framing };
  return errors.MOCK_CONTROL_ERROR(`the example for ${operationId} ${chosen.status} is not usable`);
}

/**
 * What a request that reached `operationId` is answered with in place of the operation: the fault, forced reply or
 * nothing its own Prefer (`own`) asks for, or a queued scenario's in its place; `preferences` are the ones the answer
 * follows (its delay too), and `mark` the X-Mock-Rehearsal value (spec/lib/rehearsal.ts) of an answer that is not the
 * operation's own: a forced status or example, never a mock error or a fault (which sends no answer to mark).
 */
export function rehearsed(
  operationId: string,
  own: Preferences,
  queued: TakenScenario | string | undefined,
): { preferences: Preferences; reply: Reply | undefined; mark: string | undefined } {
  const fromScenario = typeof queued === 'string' ? { prefer: queued } : queued;
  const preferences = fromScenario ? queuedPreferences(fromScenario.prefer) : own;
  if (preferences.fault) return { preferences, reply: FAULT_REPLY, mark: undefined };
  const reply = forcedReply(operationId, preferences);
  if (!reply || reply.code === 'MOCK_CONTROL_ERROR') return { preferences, reply, mark: undefined };
  const by: Rehearsal = fromScenario ? { by: 'scenario', id: 'id' in fromScenario ? fromScenario.id : 'unknown' } : { by: 'prefer' };
  return { preferences, reply, mark: formatRehearsal(by) };
}

/** A queued Prefer value read back: it was checked when it was queued, so a failure here is a store that was edited. */
function queuedPreferences(prefer: string): Preferences {
  const parsed = parsePrefer(prefer);
  if (!parsed.ok) throw new Error(`a queued scenario holds a Prefer value the mock refuses: "${prefer.slice(0, 100)}"`);
  return parsed.value;
}
