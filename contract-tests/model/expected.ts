// Production's answers, as expectations a response is compared with. Fixed bodies come from the spec's own response
// examples (generated/openapi.json); the messages with a variable part from the spec's templates (spec/lib/messages.ts),
// checked against the spec's examples by contract-tests/selftest/model.test.ts. No text is written here.
import { isDeepStrictEqual } from 'node:util';
import { contentTypes, messages } from '../../spec/lib/messages.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import type { ApiResponse } from './exchange.ts';
import { responseExample, responseExampleText, type OperationModel } from './profiles.ts';
import { excerpt } from './contract-failure.ts';
import { violation, type Violation } from '../../spec/lib/violations.ts';

type ExpectedBody = { kind: 'text'; text: string } | { kind: 'json'; value: unknown } | { kind: 'schema' };
/**
 * How production frames an answer (RULES.md#media-types, RULES.md#headers): its exact Content-Type (`null`: none at
 * all), and whether it carries an x-request-id (only the endpoint's own errors, rendered before its plugs, have none).
 */
export type Framing = { contentType: string | null; requestId: boolean };
/** One acceptable answer: a status, the exact body (JSON compared parsed, text byte for byte) and its framing. */
export type Expected = { status: number; body: ExpectedBody; label: string; framing: Framing };
/** Production's answer; several alternatives where production itself is nondeterministic (RULES.md#decision-2). */
export type Expectation = { alternatives: Expected[] };

/** The framings production uses: JSON, no Content-Type (the plug's own and the pre-token errors), the endpoint's error views. */
const FRAMED = {
  json: { contentType: contentTypes.json, requestId: true },
  bare: { contentType: null, requestId: true },
  endpointHtml: { contentType: contentTypes.html, requestId: false },
  endpointJson: { contentType: contentTypes.json, requestId: false },
} as const satisfies Record<string, Framing>;

const text = (status: number, body: string, label: string, framing: Framing = FRAMED.bare): Expected => ({
  status,
  body: { kind: 'text', text: body },
  label,
  framing,
});
const json = (status: number, value: unknown, label: string, framing: Framing = FRAMED.json): Expected => ({
  status,
  body: { kind: 'json', value },
  label,
  framing,
});

/** A plain-text answer sent without a Content-Type (the Match plug's, for paths and methods the spec does not describe). */
export const plain = (status: number, body: string): Expected => text(status, body, `${status} ${JSON.stringify(body)} in plain text`);

/** 200 with a body the spec's schema accepts (checkResponse judges the body). */
export const success: Expected = { status: 200, body: { kind: 'schema' }, label: '200 with the changed record', framing: FRAMED.json };

export function one(expected: Expected): Expectation {
  return { alternatives: [expected] };
}
export function either(...alternatives: Expected[]): Expectation {
  return { alternatives };
}

/** The messages of production's 400s (RULES.md#error-table), formatted from the spec's templates by spec/lib/messages.ts. */
export { messages };

/** Production's error answers for one operation, read from the spec's examples for that operation. */
export function answers(model: OperationModel) {
  const badRequestExample = responseExample(model, 400, 'application/json', 'missing_required_fields');
  const badRequestTitle = isObject(badRequestExample) ? badRequestExample['error'] : undefined;
  if (typeof badRequestTitle !== 'string')
    throw new Error(`the spec's missing_required_fields example of ${model.operationId} has no error title; run npm run generate`);
  // The decoding plug sends its 400s bare; only the missing-fields check, after the token, sets the JSON type.
  const badRequest = (message: string, label: string, framing: Framing = FRAMED.bare): Expected =>
    json(400, { error: badRequestTitle, message }, `400 ${label}`, framing);
  const unauthorized = responseExampleText(model, 401, 'text/plain');
  const readOnly = responseExampleText(model, 403, 'text/plain');
  const decodingCrash = responseExample(model, 500, 'application/json', 'decoding_crash');
  const operationFailed = responseExample(model, 500, 'application/json', 'operation_failed');
  const unsupportedMediaType = responseExample(model, 415, 'application/json');
  const notAcceptable = responseExampleText(model, 406, 'text/html');
  const invalidJsonHtml = responseExampleText(model, 400, 'text/html');
  const invalidJsonJson = responseExample(model, 400, 'application/json', 'invalid_json');
  return {
    unauthorized: text(401, unauthorized, `401 ${JSON.stringify(unauthorized)} in plain text`),
    readOnly: text(403, readOnly, `403 ${JSON.stringify(readOnly)} in plain text`),
    forbidden: json(403, responseExample(model, 403, 'application/json'), '403 JSON Forbidden'),
    notFound: json(404, responseExample(model, 404, 'application/json'), '404 JSON Not found'),
    /** The same body before the token, for an id that does not decode: sent without a Content-Type (RULES.md#error-17). */
    undecodable: json(404, responseExample(model, 404, 'application/json'), '404 Not found (an undecodable id, sent bare)', FRAMED.bare),
    decodingCrash: json(500, decodingCrash, `500 ${JSON.stringify(decodingCrash)}`),
    operationFailed: json(500, operationFailed, `500 ${JSON.stringify(operationFailed)} (the operation failed)`),
    unsupportedMediaType: json(415, unsupportedMediaType, `415 ${JSON.stringify(unsupportedMediaType)}`),
    notAcceptable: text(406, notAcceptable, `406 ${JSON.stringify(notAcceptable)}`, FRAMED.endpointHtml),
    invalidJsonHtml: text(400, invalidJsonHtml, `400 ${JSON.stringify(invalidJsonHtml)} (text/html)`, FRAMED.endpointHtml),
    invalidJsonJson: json(400, invalidJsonJson, `400 ${JSON.stringify(invalidJsonJson)}`, FRAMED.endpointJson),
    missingFields: (names: ReadonlyArray<string>) => badRequest(messages.missingFields(names), `"${messages.missingFields(names)}"`, FRAMED.json),
    nullField: (name: string) => badRequest(messages.nullField(name), `"${messages.nullField(name)}"`),
    unknownField: (name: string) => badRequest(messages.unknownField(name), `"${messages.unknownField(name)}"`),
    unknownType: (type: 'string' | 'boolean') => badRequest(messages.unknownType(type), `"${messages.unknownType(type)}"`),
    invalidEnum: (enumName: string, printed: string, allowed: ReadonlyArray<string>) =>
      badRequest(messages.invalidEnum(enumName, printed, allowed), `"${messages.invalidEnum(enumName, printed, allowed)}"`),
  };
}
export type Answers = ReturnType<typeof answers>;

function bodyMatches(response: ApiResponse, body: ExpectedBody): boolean {
  if (body.kind === 'schema') return true;
  if (body.kind === 'text') return response.text === body.text;
  try {
    return isDeepStrictEqual(JSON.parse(response.text), body.value);
  } catch {
    return false;
  }
}

const show = (body: ExpectedBody): string =>
  body.kind === 'text' ? JSON.stringify(body.text) : body.kind === 'json' ? JSON.stringify(body.value) : 'the schema';

/**
 * How the answer's framing departs from production's for its class: the exact Content-Type, charset included, or none
 * where production sends none (RULES.md#media-types); an x-request-id wherever production's plugs ran (RULES.md#headers).
 */
function framingViolations(response: ApiResponse, matched: Expected): Violation[] {
  const out: Violation[] = [];
  const wanted = matched.framing.contentType;
  const got = response.headers['content-type'];
  if (got !== (wanted ?? undefined))
    out.push(
      violation(
        ['response', 'header', 'content-type'],
        'media-type.exact',
        `production sends ${matched.label} ${wanted === null ? 'without a Content-Type' : `with Content-Type ${JSON.stringify(wanted)}`} (RULES.md#media-types); got ${got === undefined ? 'none' : JSON.stringify(got)}`,
      ),
    );
  if (matched.framing.requestId && response.headers['x-request-id'] === undefined)
    out.push(
      violation(
        ['response', 'header', 'x-request-id'],
        'header.request-id-missing',
        `production's plugs ran, so ${matched.label} carries an x-request-id (RULES.md#headers); none was sent`,
      ),
    );
  return out;
}

/**
 * The violations without the spec's warning "no Content-Type, as production sends some errors" where the comparison
 * with production found the answer's class is one production frames (`media-type.exact`): that is an error.
 */
export function withoutExcusedMediaType<V extends Violation>(violations: ReadonlyArray<V>): V[] {
  if (!violations.some((v) => v.code === 'media-type.exact')) return [...violations];
  return violations.filter((v) => !(v.code === 'content-type.missing' && v.severity === 'warning'));
}

/**
 * The one rule for an error answer sent without a Content-Type, which the suite's report and the validation proxy's
 * summary both apply. Production sends its plain-text errors and its pre-token errors bare, and the spec documents
 * them under their media type (REFERENCE decision 2; RULES.md#decision-2, RULES.md#media-types): the check of the spec
 * finds such an answer's missing Content-Type (`content-type.missing`) a warning, never a failure. Where the comparison
 * with production's answer finds the class is one production frames, that warning is an error instead
 * (`withoutExcusedMediaType`). What remains is production's own way: said once, with its count, as expected, and not
 * counted among the warnings (a warning is for what may be wrong).
 */
export function expectedOfProduction(finding: Violation): boolean {
  return finding.severity === 'warning' && finding.code === 'content-type.missing';
}

/** The one line both the suite's report and the proxy's summary say for `count` such answers. */
export function expectedNote(count: number): string {
  return `${count} error answer${count === 1 ? '' : 's'} came without a Content-Type, as production sends them (the spec's "Errors"; RULES.md#decision-2): expected, not counted as warnings`;
}

/** How the response departs from production's answer (nothing when it matches one alternative). */
export function compare(response: ApiResponse, expectation: Expectation): Violation[] {
  const { alternatives } = expectation;
  const matched = alternatives.find((a) => a.status === response.status && bodyMatches(response, a.body));
  if (matched) {
    const framing = framingViolations(response, matched);
    if (framing.length > 0) return framing;
    // Production sends its error bodies byte for byte (key order included); a client comparing bytes would notice.
    if (matched.body.kind === 'json' && response.text !== JSON.stringify(matched.body.value)) {
      return [
        violation(
          ['response', 'body'],
          'expected.bytes',
          `the same JSON as production, but not the same bytes (key order or spacing): production sends ${JSON.stringify(matched.body.value)}`,
          'warning',
        ),
      ];
    }
    return [];
  }
  const sameStatus = alternatives.filter((a) => a.status === response.status);
  const wanted = alternatives.map((a) => a.label).join(' or ');
  if (sameStatus.length > 0) {
    return [
      violation(
        ['response', 'body'],
        'expected.body',
        `expected the body ${sameStatus.map((a) => show(a.body)).join(' or ')}; got ${JSON.stringify(excerpt(response.text, 200))}`,
      ),
    ];
  }
  return [violation(['response', 'status'], 'expected.status', `expected ${wanted}; got ${response.status} ${JSON.stringify(excerpt(response.text, 80))}`)];
}
