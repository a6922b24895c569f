// Every error the mock sends, in one catalog. Every production text is the spec's (read from generated/): a documented
// response's own example, or for paths and methods the spec does not document and the messages with a variable part,
// the spec's texts and templates (spec/lib/messages.ts; a test checks each template reproduces its 400 example).
import { isObject, loadDocument, resolvePointer } from '../../../spec/lib/openapi.ts';
import { gateway, messages, specText, texts } from '../../../spec/lib/messages.ts';

function specExample(pointer: string): unknown {
  const value = resolvePointer(loadDocument(), pointer);
  if (value === undefined) throw new Error(`the spec has no example at ${pointer}; the error catalog needs it`);
  return value;
}
function specJson(pointer: string): Record<string, unknown> {
  const value = specExample(pointer);
  if (!isObject(value)) throw new Error(`the example at ${pointer} is not a JSON object`);
  return value;
}
const responseJson = (response: string, example?: string): Record<string, unknown> =>
  specJson(`#/components/responses/${response}/content/application~1json/${example ? `examples/${example}/value` : 'example'}`);
function stringAt(value: Record<string, unknown>, key: string, where: string): string {
  const found = value[key];
  if (typeof found !== 'string') throw new Error(`the spec's ${where} has no text ${key}; the error catalog needs it`);
  return found;
}

/** The `error` of the service's 400s (BadRequestError), as the spec's examples have it. */
const BAD_REQUEST = stringAt(specJson('#/components/examples/UnknownInputField/value'), 'error', 'UnknownInputField example');
/** The framework's 500 (decoding_crash): its reason phrase is also the HTML error view's text. */
const FRAMEWORK_CRASH = responseJson('InternalServerError', 'decoding_crash');
const frameworkCrashDetail = ((): string => {
  const errors = FRAMEWORK_CRASH['errors'];
  if (!isObject(errors)) throw new Error("the spec's decoding_crash example has no errors object; the error catalog needs it");
  return stringAt(errors, 'detail', 'decoding_crash example');
})();

/** How production frames the body: no Content-Type header at all, JSON, or an HTML error view. */
type Framing = 'none' | 'json' | 'html';

export type ErrorReply = { status: number; body: string | Record<string, unknown>; framing: Framing; code: string };

function plain(code: string, status: number, body: string): ErrorReply {
  return { code, status, body, framing: 'none' };
}
function service(code: string, status: number, error: string, message: string, framing: Framing): ErrorReply {
  return { code, status, body: { error, message }, framing };
}
function json(code: string, status: number, body: Record<string, unknown>): ErrorReply {
  return { code, status, body, framing: 'json' };
}
function html(code: string, status: number, text: string): ErrorReply {
  return { code, status, body: text, framing: 'html' };
}

/** Phoenix renders endpoint errors as text/html unless Accept picks JSON (render_errors.ex): both are prebuilt. */
function endpointError(code: string, status: number, asHtml: string, asJson: Record<string, unknown>): (errorViewIsJson: boolean) => ErrorReply {
  const htmlReply = html(code, status, asHtml);
  const jsonReply = json(code, status, asJson);
  return (errorViewIsJson) => (errorViewIsJson ? jsonReply : htmlReply);
}

export const INVALID_JSON = endpointError(
  'INVALID_JSON',
  400,
  specText('ResumeProjectBadRequest', 'text/html'),
  specJson('#/components/examples/InvalidJsonAcceptJson/value'),
);
export const PAYLOAD_TOO_LARGE = endpointError('PAYLOAD_TOO_LARGE', 413, specText('PayloadTooLarge', 'text/html'), responseJson('PayloadTooLarge'));
export const ROUTE_NOT_FOUND = endpointError('ROUTE_NOT_FOUND', 404, texts.routeNotFound, { errors: { detail: texts.routeNotFound } });
/** The router raised (a malformed percent escape in the path): the error view's 500. */
export const ROUTER_CRASH = endpointError('ROUTER_CRASH', 500, frameworkCrashDetail, FRAMEWORK_CRASH);
export const NOT_ACCEPTABLE = html('NOT_ACCEPTABLE', 406, specText('NotAcceptable', 'text/html'));
export const UNSUPPORTED_MEDIA_TYPE = json('UNSUPPORTED_MEDIA_TYPE', 415, responseJson('UnsupportedMediaType'));
export const METHOD_NOT_ALLOWED = plain('METHOD_NOT_ALLOWED', 405, specText('MethodNotAllowed', 'text/plain'));
export const MISSING_QUERY_NAME = plain('MISSING_QUERY_NAME', 400, texts.missingQueryName);
export const INVALID_QUERY_NAME = (segments: ReadonlyArray<string>): ErrorReply => plain('INVALID_QUERY_NAME', 400, messages.invalidQueryName(segments));
export const MUTATION_NOT_FOUND = plain('MUTATION_NOT_FOUND', 404, texts.mutationNotFound);
export const QUERY_NOT_FOUND = plain('QUERY_NOT_FOUND', 404, texts.queryNotFound);

// Input decoding (ParseInputs): sent with send_resp, so no Content-Type, before the token is looked at.
export const UNKNOWN_INPUT_FIELD = (name: string): ErrorReply => service('UNKNOWN_INPUT_FIELD', 400, BAD_REQUEST, messages.unknownField(name), 'none');
export const UNKNOWN_INPUT_TYPE = (type: 'string' | 'boolean'): ErrorReply =>
  service('UNKNOWN_INPUT_TYPE', 400, BAD_REQUEST, messages.unknownType(type), 'none');
export const INVALID_ENUM_VALUE = (name: string, printed: string, allowed: ReadonlyArray<string>): ErrorReply =>
  service('INVALID_ENUM_VALUE', 400, BAD_REQUEST, messages.invalidEnum(name, printed, allowed), 'none');
export const NULL_FIELD = (name: string): ErrorReply => service('NULL_FIELD', 400, BAD_REQUEST, messages.nullField(name), 'none');
export const UNDECODABLE_ID: ErrorReply = { code: 'UNDECODABLE_ID', status: 404, body: responseJson('NotFound'), framing: 'none' };
export const DECODING_CRASH = json('DECODING_CRASH', 500, responseJson('InternalServerError', 'decoding_crash'));

// Authentication and the read-only guard: plain text, no Content-Type.
export const UNAUTHORIZED = plain('UNAUTHORIZED', 401, texts.unauthorized);
export const READ_ONLY_TOKEN = plain('READ_ONLY_TOKEN', 403, texts.readOnly);

// After authentication: JSON.
export const MISSING_REQUIRED_FIELDS = (names: ReadonlyArray<string>): ErrorReply =>
  service('MISSING_REQUIRED_FIELDS', 400, BAD_REQUEST, messages.missingFields(names), 'json');
export const NOT_FOUND = json('NOT_FOUND', 404, responseJson('NotFound'));
export const FORBIDDEN = json('FORBIDDEN', 403, responseJson('Forbidden'));
export const OPERATION_FAILED = json('OPERATION_FAILED', 500, responseJson('InternalServerError', 'operation_failed'));

/** Not production's: the mock's own answer when one of its responses breaks the spec (a mock bug, never quiet). */
export const MOCK_RESPONSE_INVALID = (violations: ReadonlyArray<string>): ErrorReply => ({
  code: 'MOCK_RESPONSE_INVALID',
  status: 500,
  body: { error: 'Mock response invalid', message: `The mock's response breaks the spec: ${violations.join('; ')}` },
  framing: 'json',
});

/**
 * Not production's: a control endpoint (/__mock/…), or the mock around it, failed. One line naming what failed; never
 * a stack trace or a file path.
 */
export const MOCK_CONTROL_FAILED = (what: string, error: unknown): ErrorReply => ({
  code: 'MOCK_CONTROL_FAILED',
  status: 500,
  body: {
    error: 'Mock control failed',
    message: `${what} failed: ${error instanceof Error ? `${error.name}: ${error.message.split('\n')[0] ?? ''}` : 'an unexpected error'}`.slice(0, 500),
  },
  framing: 'json',
});

/** Not production's: a mock control (Prefer, X-Mock-Session) was used wrongly. */
export const MOCK_CONTROL_ERROR = (message: string): ErrorReply => ({
  code: 'MOCK_CONTROL_ERROR',
  status: 400,
  body: { error: 'Mock control error', message },
  framing: 'json',
});

/**
 * Not production's: a write that production would store, but whose rich-text document alone is larger than what the
 * mock keeps per session (`--max-session-bytes`). Nothing was changed. 507 Insufficient Storage: the server cannot
 * store what completing the request needs (RFC 4918 §11.5).
 */
export const MOCK_STORAGE_LIMIT = (detail: string): ErrorReply => ({
  code: 'MOCK_STORAGE_LIMIT',
  status: 507,
  body: {
    error: 'Mock storage limit',
    message: `The mock did not apply this write: ${detail} (--max-session-bytes). Production would store it; send the mock a smaller document.`,
  },
  framing: 'json',
});

/**
 * Not production's, and never sent by a mock that keeps its state in memory: the shared store (`--store redis://…`)
 * cannot be reached or did not answer in time. The request may or may not have been applied; retry it.
 */
export const MOCK_STORE_UNAVAILABLE = (message: string): ErrorReply => ({
  code: 'MOCK_STORE_UNAVAILABLE',
  status: 503,
  body: { error: 'Mock store unavailable', message },
  framing: 'json',
});

/**
 * Not the service's: what a gateway or load balancer in front of it answers in its place (502, 503, 504), the spec's
 * page for the status (`x-messages/gateway`) as text/html. Answered only when asked for (`Prefer: code=503`, or a
 * scenario), framed as an endpoint error view (no x-request-id: the service never saw the request); undefined for a
 * status that is no gateway status.
 */
export const MOCK_GATEWAY = (status: number): ErrorReply | undefined => {
  const page = gateway().get(status);
  return page === undefined ? undefined : { code: 'MOCK_GATEWAY', status, body: page, framing: 'html' };
};

/** The gateway statuses the mock answers when asked, in order (the spec's `x-messages/gateway`). */
export const gatewayStatuses = (): number[] => [...gateway().keys()].sort((a, b) => a - b);

/**
 * Not production's: the mock cannot take this request now, and did nothing with it: it is draining after SIGTERM
 * (a request on a new connection), or it already holds its limit of delayed requests (core/delay.ts). Retry it, on
 * another replica or a moment later.
 */
export const MOCK_UNAVAILABLE = (message: string): ErrorReply => ({
  code: 'MOCK_UNAVAILABLE',
  status: 503,
  body: { error: 'Mock unavailable', message },
  framing: 'json',
});
