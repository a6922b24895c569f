// What a contract test uses: the resolved target, requests built from an operation model, and `check`, which sends
// one request, collects the spec violations (check-response.ts), production's expected answer (expected.ts), the rules
// every 200 answer keeps (answer.ts: fields that agree, what the write leaves alone) and the test's own rules, records
// the warnings and the coverage for the report, and fails with everything at once.
import { inject, type TestContext } from 'vitest';
import type {} from './context.ts';
import { answerRules } from '../model/answer.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import { createClient, RequestTimeout, TransportError, type ApiRequest, type ApiResponse, type Client, type Exchange } from '../io/client.ts';
import { checkResponse } from './check-response.ts';
import { mediaTypeOf } from '../../spec/lib/conformance.ts';
import { PERSONAS, recordVariable, tokenVariable, type Persona, type RecordGroup, type RecordStory } from '../io/env.ts';
import { Coverage } from '../model/coverage.ts';
import { compare, type Expectation, withoutExcusedMediaType } from '../model/expected.ts';
import { headerRules, RequestIds } from '../model/headers.ts';
import { describeRehearsal, judgeRehearsal } from '../model/rehearsal.ts';
import { decodeId } from '../model/id-model.ts';
import { RecordMemory } from '../model/memory.ts';
import type { OperationModel } from '../model/profiles.ts';
import { CALLER_FIELDS } from '../model/state-rules.ts';
import { MOCK_SESSION_HEADER, probeRequest, resetMock, type ResolvedTarget } from '../io/target.ts';
import { ContractFailure, excerpt } from '../model/contract-failure.ts';
import { capViolations, errorsOf, formatViolation, violation, warningsOf, type Violation } from '../../spec/lib/violations.ts';

export type Target = ResolvedTarget & { client: Client };

let shared: Target | undefined;
/** Every answer of the run, per record, for the left-alone rule (one worker, files not isolated: one memory). */
const memory = new RecordMemory();
/** Every answer's request id this run (never forgotten on a reset: no two answers may share one). */
const requestIds = new RequestIds();

/** Puts a detected mock back to its seed, and forgets the answers seen before (the records changed unseen). */
export async function resetTarget(): Promise<void> {
  memory.forget();
  await resetMock(target());
}

/** The run's target, as setup.ts resolved it. */
export function target(): Target {
  if (!shared) {
    const resolved = inject('contract');
    const secrets = new Map<string, string>();
    for (const [persona, token] of Object.entries(resolved.tokens)) {
      if (typeof token === 'string' && isPersona(persona)) secrets.set(token, tokenVariable(persona));
    }
    const probe = probeRequest();
    shared = {
      ...resolved,
      client: createClient({ baseUrl: resolved.config.baseUrl, timeoutMs: resolved.config.timeoutMs, secrets, ...(probe ? { probe } : {}) }),
    };
  }
  return shared;
}

function isPersona(value: string): value is Persona {
  return PERSONAS.some((p) => p === value);
}

/**
 * How the request authenticates: none, a persona's token with a scheme (default `Bearer `), a literal header, or
 * several Authorization headers in order (each a persona's Bearer token or a literal value).
 */
export type Auth =
  | { persona: Persona; scheme?: string }
  | { header: string }
  | { headers: ReadonlyArray<{ persona: Persona } | { header: string }> }
  | undefined;

type Send = {
  op: OperationModel;
  /** The JSON body (encoded with JSON.stringify); ignored when `raw` is given. */
  body?: unknown;
  raw?: string | Buffer;
  auth?: Auth;
  /** The Content-Type header; `null` sends none (default application/json). */
  contentType?: string | null;
  accept?: string;
  method?: string;
  path?: string;
  /** For requests the spec does not describe (another method, another path): compare with production only. */
  outsideSpec?: boolean;
};

/** Per-test helpers bound to the test context (to skip with the missing variable's name, and to record warnings). */
export type Contract = {
  target: Target;
  /** The persona's token, or the test is skipped naming the variable. */
  token(persona: Persona): string;
  /** The record id of a fixture story, or the test is skipped naming the variable. */
  record<G extends RecordGroup>(group: G, story: RecordStory<G>): string;
  /** Sends one request and returns it with its spec violations (nothing asserted yet). */
  send(request: Send): Promise<Exchange>;
  /** Sends, compares with production's answer and the spec, applies `rules`, and fails with every violation. */
  check(request: Send, expectation: Expectation | undefined, rules?: (exchange: Exchange) => Violation[]): Promise<Exchange>;
};

export function contract(ctx: TestContext): Contract {
  const t = target();
  if (t.unreachable) throw new ContractFailure(`the server did not answer the first request, so nothing was tested: ${t.unreachable}`, []);

  const token = (persona: Persona): string => {
    const value = t.tokens[persona];
    if (value === undefined) ctx.skip(`needs ${tokenVariable(persona)} (not set)`);
    return value;
  };
  const record = <G extends RecordGroup>(group: G, story: RecordStory<G>): string => {
    const ids: Partial<Record<string, string>> = t.records[group];
    const value = ids[story];
    if (value === undefined) ctx.skip(`needs ${recordVariable(group, story)} (not set)`);
    return value;
  };

  const build = (request: Send): ApiRequest => {
    const headers: Record<string, string | string[]> = {};
    const contentType = request.contentType === undefined ? 'application/json' : request.contentType;
    const body = request.raw ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
    if (contentType !== null && body !== undefined) headers['content-type'] = contentType;
    if (request.accept !== undefined) headers['accept'] = request.accept;
    const auth = request.auth;
    if (auth && 'headers' in auth) headers['authorization'] = auth.headers.map((h) => ('header' in h ? h.header : `Bearer ${token(h.persona)}`));
    else if (auth && 'header' in auth) headers['authorization'] = auth.header;
    else if (auth) headers['authorization'] = `${auth.scheme ?? 'Bearer '}${token(auth.persona)}`;
    if (t.mockSession) headers[MOCK_SESSION_HEADER] = t.mockSession;
    const out: ApiRequest = { method: request.method ?? request.op.method, path: request.path ?? request.op.path, headers };
    if (body !== undefined) out.body = body;
    return out;
  };

  const describeResponse = (response: ApiResponse): string =>
    `${response.status} ${mediaTypeOf(response.headers['content-type']) ?? '(no Content-Type)'}, ${response.bytes.length} bytes: ${excerpt(response.text, 400)}`;

  const fail = (request: ApiRequest, response: ApiResponse | undefined, violations: Violation[], reason?: { code: string; message: string }): never => {
    const curl = t.client.curl(request);
    const lines = [ctx.task.name, `  request:  ${curl}`];
    if (response) lines.push(`  response: ${describeResponse(response)}`);
    if (reason) lines.push(`  ✗ error   ${reason.message}`);
    // At most MAX_REPORTED, then "and N more" (an answer of 6,000 bad items has 42,000).
    for (const v of capViolations([...errorsOf(violations), ...warningsOf(violations)], (more) => more)) lines.push(`  ${formatViolation(v)}`);
    // For the reporter's list of distinct violations (the last failing exchange: a property's shrunk counterexample).
    const errors = errorsOf(violations);
    ctx.task.meta.contractFailure = { request: curl, violations: reason ? [violation(['response'], reason.code, reason.message), ...errors] : errors };
    throw new ContractFailure(lines.join('\n'), violations);
  };

  // What this test exercised, left in its meta for the reporter's coverage.
  const coverage = new Coverage();
  ctx.task.meta.contractCoverage = coverage.data;

  const recordWarnings = (violations: Violation[]): void => {
    const warnings = warningsOf(violations);
    if (warnings.length > 0) ctx.task.meta.contractWarnings = [...(ctx.task.meta.contractWarnings ?? []), ...warnings];
  };

  const scopeOf = (built: ApiRequest): string => `${t.mockSession ?? ''} ${JSON.stringify(built.headers['authorization'] ?? null)}`;

  /**
   * On this package's mock, before the first write to a record this run has no answer for: the record as the write
   * would answer it, without writing (GET /__mock/records/{id}), so that the write's own answer is compared with it.
   */
  const readBaseline = async (request: Send, built: ApiRequest): Promise<void> => {
    const auth = request.auth;
    if (!t.mock || request.outsideSpec || !isObject(request.body) || !auth || !('persona' in auth) || auth.persona !== 'full_access') return;
    const id = request.body[request.op.targetField];
    const scope = scopeOf(built);
    if (typeof id !== 'string' || decodeId(id).kind !== 'uuid' || memory.knows(scope, id)) return;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (t.mockSession) headers[MOCK_SESSION_HEADER] = t.mockSession;
    try {
      const view = await t.client.send({ method: 'GET', path: `/__mock/records/${encodeURIComponent(id)}`, headers });
      if (view.status === 200) memory.baseline(scope, JSON.parse(view.text));
    } catch {
      // No baseline: the record's first answer is compared from the next write on.
    }
  };

  const send = async (request: Send): Promise<Exchange> => {
    const built = build(request);
    await readBaseline(request, built);
    let response: ApiResponse;
    try {
      response = await t.client.send(built);
    } catch (error) {
      if (error instanceof RequestTimeout) return fail(built, undefined, [], { code: 'timeout', message: `timeout: ${error.message}` });
      if (error instanceof TransportError) return fail(built, undefined, [], { code: 'no-response', message: `no HTTP response: ${error.message}` });
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(response.text);
    } catch {
      json = undefined;
    }
    const headers = headerRules(response.status, response.headers, requestIds, `${built.method} ${built.path}`);
    // An answer the mock was asked to rehearse (a scenario queued in the run's session) is not the operation's own:
    // it is said so, and judged no further. From a server that is not the mock, the mark is a violation (rehearsal.ts).
    const rehearsal = judgeRehearsal(response.headers, response.status, { mockTarget: t.mock, prefer: undefined });
    if (rehearsal.kind === 'rehearsed')
      return fail(built, response, [], {
        code: 'rehearsal.answered',
        message: `${describeRehearsal(rehearsal, response.status)}, not its own answer: a scenario is queued in the session this run uses${t.mockSession ? ` (X-Mock-Session: ${t.mockSession})` : ''}; DELETE /__mock/scenarios drops it`,
      });
    if (rehearsal.kind === 'refused') headers.push(rehearsal.violation);
    if (request.outsideSpec) {
      // Another method at the operation's own path: its answer is the operation's documented 405.
      const otherMethod = request.path === undefined && request.method !== undefined && request.method.toUpperCase() !== request.op.method;
      if (otherMethod && response.status === 405) coverage.status(request.op.operationId, 405);
      return { request: built, response, violations: headers, json };
    }
    const { operationId } = request.op;
    const violations = [...checkResponse(operationId, response), ...headers];
    coverage.exchange(operationId, built.body, response.status, json);
    coverage.rule(operationId, 'spec');
    if (response.status === 200) violations.push(...answerRules(operationId, response.headers, json, { memory, coverage, scope: scopeOf(built) }));
    return { request: built, response, violations, json };
  };

  const judge = (exchange: Exchange, violations: Violation[]): void => {
    recordWarnings(violations);
    if (errorsOf(violations).length > 0) fail(exchange.request, exchange.response, violations);
  };

  return {
    target: t,
    token,
    record,
    send,
    async check(request, expectation, rules) {
      const exchange = await send(request);
      const violations = [...exchange.violations];
      const { operationId } = request.op;
      if (expectation) {
        violations.push(...compare(exchange.response, expectation));
        coverage.rule(operationId, 'expected');
      }
      if (rules) {
        violations.push(...rules(exchange));
        if (exchange.response.status === 200) {
          coverage.rule(operationId, 'state');
          const names: ReadonlyArray<string> = CALLER_FIELDS[operationId];
          coverage.rule(
            operationId,
            'caller',
            names.length === 0 ? `${operationId}'s answer names no caller` : t.person === undefined ? 'needs CONTRACT_PERSON_ID (not set)' : undefined,
          );
        }
      }
      // A class production sends with a Content-Type that came without one is an error (compare), not the note on
      // the classes production sends bare (the reporter counts those warnings).
      judge(exchange, withoutExcusedMediaType(violations));
      return exchange;
    },
  };
}
