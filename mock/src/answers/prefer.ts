// Per-request control, a superset of Prism's `Prefer`: `code=NNN` answers with that documented status and its
// example, `example=NAME` picks a named example, `delay=MS` waits before answering. A forced answer is built from
// the spec's examples and never touches the state. `fault=network-error|timeout` answers nothing at all (faults.ts).
import { isObject } from '../../../spec/lib/openapi.ts';
import { operationModels, responseExamples } from '../../../spec/lib/operations.ts';
import * as errors from './errors.ts';
import { FAULTS, isFault, type Fault } from './faults.ts';
import { MAX_DELAY_MS } from '../limits.ts';
import type { Reply } from './reply.ts';

export type Preferences = { code?: number; example?: string; delay?: number; fault?: Fault };

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
