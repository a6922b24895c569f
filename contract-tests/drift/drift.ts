// Drift: a recording checked offline with the validation proxy's own filing (proxy/file-exchange.ts: the spec, the
// answer production gives to each request in its order of checks, the state rules, the agreement, what a write
// leaves alone, the caller), fed from the HAR instead of live sockets, in recorded order, so the state the rules
// carry (each record's last answer, the request ids, the tokens learned) runs through the sequence as it did live.
// Nothing is sent. A masked credential is read back as a token of the same kind: `$<persona>` as that persona's token
// (the --tokens file's, else a stand-in in production's form the knowledge maps to the persona), `$token-<n>` as a
// token in production's form or not, as the recording notes (`_tokens`).
import { createHash } from 'node:crypto';
import { isObject } from '../../spec/lib/openapi.ts';
import { PERSONAS, type Persona } from '../model/fixtures.ts';
import { RecordMemory } from '../model/memory.ts';
import { RequestIds } from '../model/headers.ts';
import { operationModels } from '../model/profiles.ts';
import type { RawRequest } from '../model/predict.ts';
import { createFiling } from '../proxy/file-exchange.ts';
import { parseFixtures, TokenKnowledge, type Fixtures } from '../proxy/knowledge.ts';
import { ViolationLog, type Entry } from '../proxy/log.ts';
import { sessionOf } from '../proxy/scope-of.ts';
import type { Har, RecordedExchange } from '../har/har.ts';

/** An exchange that broke the contract, as the proxy describes it, with its place in the recording. */
type Finding = Omit<Entry, 'at' | 'seq'> & { entry: number; startedDateTime: string; url: string };

export type DriftResult = {
  exchanges: number;
  checked: number;
  broken: number;
  violations: number;
  warnings: number;
  findings: Finding[];
  log: ViolationLog;
  origin: string;
};

/** A stand-in token in production's form for a name (`opk_` and 43 characters: a SHA-256 in base64url). */
const standIn = (name: string): string => `opk_${createHash('sha256').update(`drift:${name}`).digest('base64url')}`;

/** What the drift knows: the --tokens file's tokens, records and people, else the recording's (`_fixtures`). */
function driftFixtures(har: Har, given: Fixtures | undefined): Fixtures {
  const tokens: Partial<Record<Persona, string>> = {};
  for (const persona of PERSONAS) tokens[persona] = given?.tokens[persona] ?? standIn(persona);
  let records = given?.records ?? { projects: {}, goals: {} };
  let people = given?.people ?? {};
  const recorded = har.log._fixtures;
  if (given === undefined && isObject(recorded)) {
    const parsed = parseFixtures(JSON.stringify({ ...recorded, tokens: { full_access: standIn('full_access') } }));
    if (parsed.ok) {
      records = parsed.fixtures.records;
      people = parsed.fixtures.people;
    }
  }
  return { tokens, records, people };
}

/** The request with its masked credentials read back as tokens of the same kind. */
export function unmasked(request: RawRequest, fixtures: Fixtures, forms: Har['log']['_tokens']): RawRequest {
  const personas: ReadonlyArray<string> = PERSONAS;
  const read = (value: string): string =>
    value.replace(/\$(token-\d+|[a-z_]+)(?![A-Za-z0-9_-])/g, (found, name: string) => {
      if (name.startsWith('token-')) return forms?.[name] === 'other' ? `masked-${name}` : standIn(name);
      if (!personas.includes(name)) return found;
      const persona = PERSONAS.find((p) => p === name);
      return persona === undefined ? found : (fixtures.tokens[persona] ?? standIn(persona));
    });
  return { ...request, headers: request.headers.map(([n, v]) => [n, /^authorization$/i.test(n) ? read(v) : v] as const) };
}

export function drift(har: Har, exchanges: ReadonlyArray<RecordedExchange>, given?: Fixtures): DriftResult {
  const fixtures = driftFixtures(har, given);
  const knowledge = new TokenKnowledge(fixtures);
  const log = new ViolationLog(Math.max(1, exchanges.length));
  const memory = new RecordMemory();
  const requestIds = new RequestIds();
  const first = exchanges[0]?.url;
  let origin = '';
  try {
    origin = first === undefined ? '' : new URL(first).origin;
  } catch {
    origin = '';
  }
  const findings: Finding[] = [];
  let current: RecordedExchange | undefined;
  const filing = createFiling({
    origin,
    knowledge,
    log,
    memory,
    requestIds,
    onViolation: (entry) => {
      if (current === undefined) return;
      const { at: _at, seq: _seq, ...rest } = entry;
      findings.push({ ...rest, entry: current.index, startedDateTime: current.startedDateTime, url: current.url });
    },
  });
  for (const exchange of exchanges) {
    current = exchange;
    const request = unmasked(exchange.request, fixtures, har.log._tokens);
    const path = request.url.split('?')[0] ?? '';
    // A mock control that changes state (a reset, a new fixture) changes records unseen: their last answers go.
    if (path.startsWith('/__proxy')) continue;
    if (path.startsWith('/__mock/') && request.method !== 'GET' && request.method !== 'HEAD') memory.forget(`${sessionOf(request.headers)} `);
    filing.file(request, exchange.received);
  }
  const summary = log.summary(origin, knowledge.learned);
  return {
    exchanges: exchanges.length,
    checked: summary.checked,
    broken: summary.broken,
    violations: summary.violations,
    warnings: summary.warnings,
    findings,
    log,
    origin,
  };
}

/** The operations of the spec, in order (for the JUnit report). */
export const operationIds = (): string[] => operationModels().map((o) => o.operationId);
