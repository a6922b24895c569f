// Production's fixed answers as the spec documents them, for the tests that compare an answer byte for byte: a test
// reads the text here instead of writing it, so a changed text is the spec and RULES.md, and no test. The JSON bodies
// are the spec's examples serialised as production sends them (its keys in the example's order, no spaces). No Node
// API: the mock's browser tests bundle the behaviour table that reads it.
import { messages, specText, texts } from '../lib/messages.ts';
import { isObject, loadDocument, resolvePointer } from '../lib/openapi.ts';

function example(pointer: string): Record<string, unknown> {
  const value = resolvePointer(loadDocument(), pointer);
  if (!isObject(value)) throw new Error(`the spec has no JSON example at ${pointer}; run npm run generate`);
  return value;
}
const responseExample = (response: string, name?: string): Record<string, unknown> =>
  example(`#/components/responses/${response}/content/application~1json/${name ? `examples/${name}/value` : 'example'}`);
const frameworkDetail = (body: Record<string, unknown>): string => {
  const detail = isObject(body['errors']) ? body['errors']['detail'] : undefined;
  if (typeof detail !== 'string') throw new Error('the spec has a framework error example without errors.detail; run npm run generate');
  return detail;
};

/** The exact bytes of each fixed answer, and the service's 400 body around one of its messages. */
export const specAnswers = {
  /** RULES.md#error-21 */
  unauthorized: texts.unauthorized,
  /** RULES.md#error-22 */
  readOnly: texts.readOnly,
  /** RULES.md#error-25: the JSON 403. */
  forbidden: JSON.stringify(responseExample('Forbidden')),
  /** RULES.md#error-24, RULES.md#error-17 */
  notFound: JSON.stringify(responseExample('NotFound')),
  /** RULES.md#error-26 */
  operationFailed: JSON.stringify(responseExample('InternalServerError', 'operation_failed')),
  /** RULES.md#error-12: the framework's 500. */
  decodingCrash: JSON.stringify(responseExample('InternalServerError', 'decoding_crash')),
  /** The router's 500 as the HTML error view renders it: the framework's reason phrase. */
  decodingCrashHtml: frameworkDetail(responseExample('InternalServerError', 'decoding_crash')),
  /** RULES.md#error-5 */
  unsupportedMediaType: JSON.stringify(responseExample('UnsupportedMediaType')),
  /** RULES.md#error-1, as HTML and as JSON. */
  invalidJsonHtml: specText('ResumeProjectBadRequest', 'text/html'),
  invalidJsonJson: JSON.stringify(example('#/components/examples/InvalidJsonAcceptJson/value')),
  /** RULES.md#error-2, as HTML and as JSON. */
  payloadTooLargeHtml: specText('PayloadTooLarge', 'text/html'),
  payloadTooLargeJson: JSON.stringify(responseExample('PayloadTooLarge')),
  /** RULES.md#error-3, as HTML and as JSON. */
  routeNotFound: texts.routeNotFound,
  routeNotFoundJson: JSON.stringify({ errors: { detail: texts.routeNotFound } }),
  /** RULES.md#error-4 */
  notAcceptable: specText('NotAcceptable', 'text/html'),
  /** RULES.md#error-6 */
  methodNotAllowed: specText('MethodNotAllowed', 'text/plain'),
  /** RULES.md#error-7, #error-9, #error-10 */
  missingQueryName: texts.missingQueryName,
  mutationNotFound: texts.mutationNotFound,
  queryNotFound: texts.queryNotFound,
  /** The service's 400 with `message` (RULES.md#error-11, #error-13 … #error-16, #error-23). */
  badRequest: (message: string): string => JSON.stringify({ error: example('#/components/examples/UnknownInputField/value')['error'], message }),
  messages,
};
