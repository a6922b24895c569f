// Production's answers, as expectations a response is compared with. Fixed bodies come from the spec's own response
// examples (generated/openapi.json); the messages with a variable part are production's templates from
// RULES.md#error-table (spec/lib/messages.ts), checked against the spec's examples by contract-tests/selftest/model.test.ts.
import { isDeepStrictEqual } from 'node:util';
import { messages } from '../../spec/lib/messages.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import type { ApiResponse } from './client.ts';
import { responseExample, responseExampleText, type OperationModel } from './profiles.ts';
import { excerpt, violation, type Violation } from './violations.ts';

type ExpectedBody = { kind: 'text'; text: string } | { kind: 'json'; value: unknown } | { kind: 'schema' };
/** One acceptable answer: a status and the exact body (JSON compared parsed, text byte for byte). */
export type Expected = { status: number; body: ExpectedBody; label: string };
/** Production's answer; several alternatives where production itself is nondeterministic (RULES.md#decision-2). */
export type Expectation = { alternatives: Expected[] };

const text = (status: number, body: string, label: string): Expected => ({ status, body: { kind: 'text', text: body }, label });
const json = (status: number, value: unknown, label: string): Expected => ({ status, body: { kind: 'json', value }, label });

/** 200 with a body the spec's schema accepts (checkResponse judges the body). */
export const success: Expected = { status: 200, body: { kind: 'schema' }, label: '200 with the changed record' };

export function one(expected: Expected): Expectation {
  return { alternatives: [expected] };
}
export function either(...alternatives: Expected[]): Expectation {
  return { alternatives };
}

/** The messages of production's 400s (RULES.md#error-table), written once in spec/lib/messages.ts. */
export { messages };

/** Production's error answers for one operation, read from the spec's examples for that operation. */
export function answers(model: OperationModel) {
  const badRequestExample = responseExample(model, 400, 'application/json', 'missing_required_fields');
  const badRequestTitle = isObject(badRequestExample) && typeof badRequestExample['error'] === 'string' ? badRequestExample['error'] : 'Bad request';
  const badRequest = (message: string, label: string): Expected => json(400, { error: badRequestTitle, message }, `400 ${label}`);
  return {
    unauthorized: text(401, responseExampleText(model, 401, 'text/plain'), '401 "Unauthorized" in plain text'),
    readOnly: text(403, responseExampleText(model, 403, 'text/plain'), '403 "Read-only API tokens cannot execute mutations" in plain text'),
    forbidden: json(403, responseExample(model, 403, 'application/json'), '403 JSON Forbidden'),
    notFound: json(404, responseExample(model, 404, 'application/json'), '404 JSON Not found'),
    decodingCrash: json(500, responseExample(model, 500, 'application/json', 'decoding_crash'), '500 {"errors":{"detail":"Internal Server Error"}}'),
    operationFailed: json(
      500,
      responseExample(model, 500, 'application/json', 'operation_failed'),
      '500 {"error":"Internal server error",…} (the operation failed)',
    ),
    unsupportedMediaType: json(415, responseExample(model, 415, 'application/json'), '415 Unsupported Media Type'),
    notAcceptable: text(406, responseExampleText(model, 406, 'text/html'), '406 "Not Acceptable"'),
    invalidJsonHtml: text(400, responseExampleText(model, 400, 'text/html'), '400 "Bad Request" (text/html)'),
    invalidJsonJson: json(400, responseExample(model, 400, 'application/json', 'invalid_json'), '400 {"errors":{"detail":"Bad Request"}}'),
    missingFields: (names: ReadonlyArray<string>) => badRequest(messages.missingFields(names), `"${messages.missingFields(names)}"`),
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

/** How the response departs from production's answer (nothing when it matches one alternative). */
export function compare(response: ApiResponse, expectation: Expectation): Violation[] {
  const { alternatives } = expectation;
  const matched = alternatives.find((a) => a.status === response.status && bodyMatches(response, a.body));
  if (matched) {
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
