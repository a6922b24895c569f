// Every error the mock sends, in one catalog. Texts are production's (transport-auth-errors.md, the error table);
// where the spec holds the same text as a response example, a test checks that the two agree.

/** How production frames the body: no Content-Type header at all, JSON, or an HTML error view. */
export type Framing = 'none' | 'json' | 'html';

export type ErrorReply = { status: number; body: string | Record<string, unknown>; framing: Framing; code: string };

function plain(code: string, status: number, body: string): ErrorReply {
  return { code, status, body, framing: 'none' };
}
function service(code: string, status: number, error: string, message: string, framing: Framing): ErrorReply {
  return { code, status, body: { error, message }, framing };
}
function framework(code: string, status: number, detail: string): ErrorReply {
  return { code, status, body: { errors: { detail } }, framing: 'json' };
}
function html(code: string, status: number, text: string): ErrorReply {
  return { code, status, body: text, framing: 'html' };
}

/** Phoenix renders endpoint errors as text/html unless Accept selects JSON only (render_errors.ex). */
export function frameworkOrHtml(code: string, status: number, reason: string, acceptsJsonOnly: boolean): ErrorReply {
  return acceptsJsonOnly ? framework(code, status, reason) : html(code, status, reason);
}

export const INVALID_JSON = (acceptsJsonOnly: boolean): ErrorReply => frameworkOrHtml('INVALID_JSON', 400, 'Bad Request', acceptsJsonOnly);
export const PAYLOAD_TOO_LARGE = (acceptsJsonOnly: boolean): ErrorReply => frameworkOrHtml('PAYLOAD_TOO_LARGE', 413, 'Request Entity Too Large', acceptsJsonOnly);
export const ROUTE_NOT_FOUND = (acceptsJsonOnly: boolean): ErrorReply => frameworkOrHtml('ROUTE_NOT_FOUND', 404, 'Not Found', acceptsJsonOnly);
export const NOT_ACCEPTABLE = html('NOT_ACCEPTABLE', 406, 'Not Acceptable');
export const UNSUPPORTED_MEDIA_TYPE = framework('UNSUPPORTED_MEDIA_TYPE', 415, 'Unsupported Media Type');
export const METHOD_NOT_ALLOWED = plain('METHOD_NOT_ALLOWED', 405, 'Method Not Allowed');
export const MISSING_QUERY_NAME = plain('MISSING_QUERY_NAME', 400, 'Missing query name');
export const INVALID_QUERY_NAME = (segments: ReadonlyArray<string>): ErrorReply => plain('INVALID_QUERY_NAME', 400, `Invalid query name: ${segments.join('/')}`);
export const MUTATION_NOT_FOUND = plain('MUTATION_NOT_FOUND', 404, 'Mutation not found');
export const QUERY_NOT_FOUND = plain('QUERY_NOT_FOUND', 404, 'Query not found');

// Input decoding (ParseInputs): sent with send_resp, so no Content-Type, before the token is looked at.
export const UNKNOWN_INPUT_FIELD = (name: string): ErrorReply => service('UNKNOWN_INPUT_FIELD', 400, 'Bad request', `Unknown input field: ${name}`, 'none');
export const UNKNOWN_INPUT_TYPE = (type: 'string' | 'boolean'): ErrorReply => service('UNKNOWN_INPUT_TYPE', 400, 'Bad request', `Unknown input type: ${type}`, 'none');
export const INVALID_ENUM_VALUE = (name: string, printed: string, allowed: ReadonlyArray<string>): ErrorReply =>
  service('INVALID_ENUM_VALUE', 400, 'Bad request', `Invalid value for enum ${name}: ${printed}. Allowed values: ${allowed.join(', ')}`, 'none');
export const NULL_FIELD = (name: string): ErrorReply => service('NULL_FIELD', 400, 'Bad request', `Field '${name}' cannot be null`, 'none');
export const UNDECODABLE_ID = service('UNDECODABLE_ID', 404, 'Not found', 'The requested resource was not found', 'none');
export const DECODING_CRASH = framework('DECODING_CRASH', 500, 'Internal Server Error');

// Authentication and the read-only guard: plain text, no Content-Type.
export const UNAUTHORIZED = plain('UNAUTHORIZED', 401, 'Unauthorized');
export const READ_ONLY_TOKEN = plain('READ_ONLY_TOKEN', 403, 'Read-only API tokens cannot execute mutations');

// After authentication: JSON.
export const MISSING_REQUIRED_FIELDS = (names: ReadonlyArray<string>): ErrorReply =>
  service('MISSING_REQUIRED_FIELDS', 400, 'Bad request', `Missing required fields: ${names.join(', ')}`, 'json');
export const NOT_FOUND = service('NOT_FOUND', 404, 'Not found', 'The requested resource was not found', 'json');
export const FORBIDDEN = service('FORBIDDEN', 403, 'Forbidden', "You don't have permission to perform this action", 'json');
export const OPERATION_FAILED = service('OPERATION_FAILED', 500, 'Internal server error', 'An unexpected error occurred', 'json');

/** Not production's: the mock's own answer when one of its responses breaks the spec (a mock bug, never quiet). */
export const MOCK_RESPONSE_INVALID = (violations: ReadonlyArray<string>): ErrorReply => ({
  code: 'MOCK_RESPONSE_INVALID',
  status: 500,
  body: { error: 'Mock response invalid', message: `The mock's response breaks the spec: ${violations.join('; ')}` },
  framing: 'json',
});
