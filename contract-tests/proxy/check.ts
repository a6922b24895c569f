// One exchange through the proxy, checked by the suite's own core: the spec (check-response.ts checkResponse: status,
// media type, body schema, documented headers), production's answer to this request as far as the request decides
// it (predict.ts, with expected.ts's compare), and on a 200 the state rules (rules.ts), the caller's included when
// the --tokens file names the person, the fields that agree and what the write leaves alone (answer.ts, with the
// proxy's memory of every record's last answer). Each violation is filed under the rule it breaks, for the summary
// and JUnit; what the exchange exercised goes to the coverage.
import { nestsDeeperThan } from '../../spec/lib/conformance.ts';
import { texts } from '../../spec/lib/messages.ts';
import { answerRules, type AnswerContext } from '../model/answer.ts';
import type { ApiRequest, ApiResponse } from '../io/client.ts';
import { checkResponse } from '../harness/check-response.ts';
import { compare, withoutExcusedMediaType } from '../model/expected.ts';
import { headerRules, type RequestIds } from '../model/headers.ts';
import type { Exchange } from '../io/client.ts';
import { firstHeader, predict, type Knowledge, type Prediction, type RawRequest, type Stage } from '../model/predict.ts';
import { CALLER_FIELDS, STATE_RULES } from '../model/state-rules.ts';
import { describeRehearsal, judgeRehearsal } from '../model/rehearsal.ts';
import { violation, type Violation } from '../../spec/lib/violations.ts';

/** The rules the proxy checks, in the order reports list them. */
export const RULES = {
  'spec.status': 'The status is one the spec documents for the operation',
  'spec.media-type': 'The Content-Type is the documented one (a success must have one; production’s error bodies may come without)',
  'spec.schema': 'The body matches the spec’s schema (unknown fields are warnings)',
  headers:
    'Every answer’s headers, whatever its status: the documented ones as the spec has them, a fresh x-request-id, never cacheable by a shared cache, no WWW-Authenticate challenge, one copy of each (RULES.md#headers)',
  'answer.transport': 'Production’s answer to the transport: invalid JSON 400, Accept 406, Content-Type 415',
  'answer.inputs': 'Production’s exact answer to a wrong or unknown input, before the token: an unknown field answered 200 is a violation',
  'answer.token': `No readable token, a refused or a suspended person’s token: 401 ${JSON.stringify(texts.unauthorized)} (a missing token answered 200 is a violation)`,
  'answer.read-only': `A read-only token: 403 ${JSON.stringify(texts.readOnly)} (answered 200 is a violation)`,
  'answer.missing-fields': 'Missing fields: the 400 that names them in declaration order (RULES.md#error-23)',
  'answer.record': 'The record and the persona decide: 404, 403 JSON or 200; valid input is never a 500',
  state: 'A 200 keeps the state rules (RULES.md#decision-3; RULES.md#state)',
  agreement:
    'A 200’s fields agree: ids are their records’ slugs, references name the nested records, state and status are computed from each other (RULES.md#agreement)',
  'left-alone':
    'A 200 changes only what the write changes: every other field is as the same record’s previous answer through the proxy showed it (RULES.md#left-alone)',
  'write-again':
    'A 200 computes from the record as its previous answer through the proxy showed it: the next check-in by the coming-Friday rule, a close again with a new time and a new retrospective (RULES.md#state-resume; RULES.md#state-close)',
  caller: 'A 200 that names who wrote names the caller (the --tokens file’s people)',
  timeout: 'The target answers within --timeout',
  size: 'The answer is small enough for the proxy to check (--max-body-bytes; an operation’s documented answers are a few KB)',
  encoding: 'The body decodes as its Content-Encoding says (gzip, deflate, br); the decoded body is what is checked',
} as const;
export type Rule = keyof typeof RULES;
export const RULE_ORDER: ReadonlyArray<Rule> = Object.keys(RULES).filter((k): k is Rule => Object.hasOwn(RULES, k));

/** A violation under its rule; `follows` names the decisive violation it is a consequence of, when there is one. */
export type FiledViolation = Violation & { rule: Rule; follows?: string };

/** What decides first: production's expected answer, then the status, the media type, the state; the schema last. */
const PRECEDENCE: ReadonlyArray<Rule> = [
  'answer.transport',
  'answer.inputs',
  'answer.token',
  'answer.read-only',
  'answer.missing-fields',
  'answer.record',
  'spec.status',
  'spec.media-type',
  'headers',
  'state',
  'agreement',
  'left-alone',
  'write-again',
  'caller',
  'timeout',
  'size',
  'spec.schema',
];

/**
 * The violations in the order a reader needs them: the decisive one first (the answer production gives, when the
 * target gave another), and every other error grouped under it as its consequence (a 200 where production answers
 * 403 breaks the 403's schema forty ways; the forty follow from the one).
 */
function byPrecedence(violations: ReadonlyArray<FiledViolation>): FiledViolation[] {
  const rank = (v: FiledViolation): number => (v.severity === 'error' ? 0 : 1) * PRECEDENCE.length + PRECEDENCE.indexOf(v.rule);
  const sorted = [...violations].sort((a, b) => rank(a) - rank(b));
  const decisive = sorted.find((v) => v.severity === 'error' && v.code.startsWith('expected.'));
  if (!decisive) return sorted;
  return sorted.map((v) => (v === decisive || v.severity !== 'error' ? v : { ...v, follows: decisive.code }));
}

export type Checked = {
  operationId: string;
  prediction: Prediction;
  /** The rules this exchange was checked against (each counts once). */
  rules: Rule[];
  violations: FiledViolation[];
  /** The X-Mock-Rehearsal mark of an answer the mock was asked to rehearse (excused from production's rules). */
  rehearsed?: string;
};

/** A response as the proxy received it: status, headers (lower-case names, repeats joined), body. */
export type Received = { status: number; headers: Record<string, string>; body: Buffer };

const ANSWER_RULE: Record<Stage, Rule | undefined> = {
  transport: 'answer.transport',
  inputs: 'answer.inputs',
  token: 'answer.token',
  'read-only': 'answer.read-only',
  'missing-fields': 'answer.missing-fields',
  record: 'answer.record',
  unmodelled: undefined,
};

function ruleOf(code: string, answerRule: Rule): Rule {
  if (code === 'status.undocumented' || code === 'operation.unknown') return 'spec.status';
  if (code.startsWith('content-type.') || code.startsWith('media-type.') || code.startsWith('body.')) return 'spec.media-type';
  if (code.startsWith('header.')) return 'headers';
  if (code.startsWith('expected.')) return answerRule;
  if (code === 'state.caller') return 'caller';
  if (code.startsWith('agreement.')) return 'agreement';
  if (code === 'left-alone') return 'left-alone';
  if (code.startsWith('write.')) return 'write-again';
  if (code.startsWith('state.')) return 'state';
  return 'spec.schema';
}

/** The ApiRequest the suite's helpers take (curl lines, the state rules), from the raw request. */
export function apiRequest(request: RawRequest, skip: ReadonlySet<string> = new Set()): ApiRequest {
  const headers: Record<string, string[]> = {};
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    if (skip.has(lower)) continue;
    const values = headers[lower] ?? [];
    headers[lower] = values;
    values.push(value);
  }
  const out: ApiRequest = {
    method: request.method,
    path: request.url,
    headers: Object.fromEntries(Object.entries(headers).map(([n, v]) => [n, v.length === 1 ? (v[0] ?? '') : v])),
  };
  if (request.body !== undefined && request.body.length > 0) out.body = request.body;
  return out;
}

/**
 * Checks one exchange; undefined when the request calls no operation of the spec (it is forwarded unchecked). With
 * `context`, a complete answer: the agreement and left-alone rules run too, and the exchange is counted in the coverage.
 */
export function checkExchange(
  request: RawRequest,
  received: Received,
  known: Knowledge & { person(persona: 'full_access'): string | undefined },
  context?: AnswerContext & { requestIds: RequestIds; mockTarget?: boolean },
): Checked | undefined {
  const predicted = predict(request, known);
  if (!predicted) return undefined;
  // This package's mock marks what it was asked to rehearse (X-Mock-Rehearsal: a status or example from Prefer or a
  // queued scenario): from a target known to be the mock, such an answer is held to the spec only, and a gateway's
  // status (502, 503, 504, which no operation documents) to nothing. From any other target the mark is a violation and
  // excuses nothing (model/rehearsal.ts).
  const verdict = judgeRehearsal(received.headers, received.status, {
    mockTarget: context?.mockTarget === true,
    prefer: firstHeader(request.headers, 'prefer'),
  });
  const rehearsed = verdict.kind === 'rehearsed' ? verdict : undefined;
  const prediction: Prediction = rehearsed ? { op: predicted.op, stage: 'unmodelled', rule: describeRehearsal(rehearsed, received.status) } : predicted;
  if (rehearsed?.gateway) return { operationId: predicted.op.operationId, prediction, rules: [], violations: [], rehearsed: rehearsed.mark };
  const { op } = prediction;
  const text = received.body.toString('utf8');
  const response: ApiResponse = { status: received.status, headers: received.headers, text, bytes: received.body, durationMs: 0 };
  const answerRule = ANSWER_RULE[prediction.stage];
  const rules: Rule[] = ['spec.status', 'spec.media-type', 'spec.schema', 'headers'];
  const found: Violation[] = [...checkResponse(op.operationId, response)];
  if (verdict.kind === 'refused') found.push(verdict.violation);
  if (context)
    found.push(
      ...headerRules(
        received.status,
        received.headers,
        context.requestIds,
        `${request.method} ${request.url.split('?')[0] ?? ''}`,
        firstHeader(request.headers, 'x-request-id'),
      ),
    );
  const json = received.status === 200 ? parsed(text) : undefined;

  if (answerRule) rules.push(answerRule);
  if (prediction.expectation) {
    found.push(...compare(response, prediction.expectation).map((v) => ({ ...v, message: `${prediction.rule}: ${v.message}` })));
  } else if (prediction.notSuccess && received.status === 200) {
    found.push(violation(['response', 'status'], 'expected.status', `${prediction.rule}: a request with a defect is never 200`));
  }

  // The state rules, on a 200 that was a possible answer (a 200 that was not is already a violation above).
  const successExpected = prediction.expectation?.alternatives.some((a) => a.status === 200) ?? false;
  if (received.status === 200 && successExpected && prediction.params) {
    const exchange: Exchange = { request: apiRequest(request), response, violations: [], json };
    const caller = prediction.who?.persona === 'full_access' ? known.person('full_access') : undefined;
    rules.push('state');
    const callerFields: ReadonlyArray<string> = CALLER_FIELDS[op.operationId];
    if (caller !== undefined && callerFields.length > 0) rules.push('caller');
    else
      context?.coverage.rule(
        op.operationId,
        'caller',
        callerFields.length === 0 ? `${op.operationId}'s answer names no caller` : 'the --tokens file names no person for the caller (people.full_access)',
      );
    found.push(...STATE_RULES[op.operationId](exchange, prediction.params, prediction.story, caller));
    if (context) {
      rules.push('agreement', 'left-alone', 'write-again');
      found.push(...answerRules(op.operationId, received.headers, json, context));
    }
  }
  // A rehearsed answer exercised nothing of the target's own behaviour: it counts in no coverage.
  if (context && !rehearsed) {
    context.coverage.exchange(op.operationId, request.body, received.status, json);
    for (const rule of rules) if (rule !== 'agreement' && rule !== 'left-alone' && rule !== 'write-again') context.coverage.rule(op.operationId, rule);
  }
  return {
    operationId: op.operationId,
    prediction,
    rules,
    violations: byPrecedence(withoutExcusedMediaType(found).map((v) => ({ ...v, rule: ruleOf(v.code, answerRule ?? 'answer.record') }))),
    ...(rehearsed ? { rehearsed: rehearsed.mark } : {}),
  };
}

/** The answer's JSON for the state rules; none when it is no JSON or nests too deep to walk (the spec check says which). */
function parsed(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return nestsDeeperThan(value) ? undefined : value;
  } catch {
    return undefined;
  }
}
