// The typed client for API consumers, imported as `service-external-api/client`: openapi-fetch over the generated
// `paths`, plus one method per operation that answers with a result discriminated by its HTTP status.
//
// Every type here is looked up in generated/types.ts (`operations[K]…`), and every method's route and documented
// statuses in generated/operations.ts: nothing restates an operation, a field, a status or a body, so an operation
// the spec adds is a method here after `npm run generate`, with no edit. Response bodies are typed by the contract,
// not validated at run time (as in openapi-fetch itself): the client checks that the status is one the spec
// documents and parses the body defensively, and the contract test suite is what proves that a server honours the
// shapes.
import createFetchClient, { mergeHeaders, type Client, type HeadersOptions } from 'openapi-fetch';
import { OPERATIONS } from '../../generated/operations.ts';
import type { operations, paths } from '../../generated/types.ts';

export type { operations, paths };

/** The operations of the API, by operationId: `resumeProject`, `closeGoal`. */
export type OperationId = keyof operations;

/** The JSON body an operation accepts. Closed: an unknown field is a compile error (and a 400 on the wire). */
export type RequestBody<K extends OperationId> = operations[K]['requestBody']['content']['application/json'];

type Responses<K extends OperationId> = operations[K]['responses'];

/** The statuses the spec documents for an operation (200, 400, 401, 403, 404, 405, 406, 413, 415, 500). */
export type DocumentedStatus<K extends OperationId> = keyof Responses<K> & number;

/** Any body of one media type of a response: `{ content: { 'text/plain': A; 'application/json': B } }` → `A | B`. */
type ContentBody<R> = R extends { content: infer C } ? C[keyof C] : never;

/** The body of one documented response. 401 is the text `Unauthorized`; 403 is the read-only text or JSON. */
export type ResponseBody<K extends OperationId, S extends DocumentedStatus<K>> = ContentBody<Responses<K>[S]>;

/**
 * What an operation answers, one member per documented status, so `switch (result.status)` narrows `body`:
 * `case 200: result.body.project…`. `ok` is true exactly for the 2xx member. `response` is the raw Response
 * (headers such as `x-request-id`).
 */
export type ApiResult<K extends OperationId> = {
  [S in DocumentedStatus<K>]: {
    ok: `${S}` extends `2${string}` ? true : false;
    status: S;
    body: ResponseBody<K, S>;
    response: Response;
  };
}[DocumentedStatus<K>];

// Named aliases of the first two operations, kept so code written against 0.1 still compiles. No operation gets one
// since: `RequestBody<'…'>` and `ApiResult<'…'>` name every operation's types, from the operation table.
/** @deprecated Use `RequestBody<'resumeProject'>`. */
export type ResumeProjectBody = RequestBody<'resumeProject'>;
/** @deprecated Use `ApiResult<'resumeProject'>`. */
export type ResumeProjectResult = ApiResult<'resumeProject'>;
/** @deprecated Use `RequestBody<'closeGoal'>`. */
export type CloseGoalBody = RequestBody<'closeGoal'>;
/** @deprecated Use `ApiResult<'closeGoal'>`. */
export type CloseGoalResult = ApiResult<'closeGoal'>;

export type ClientOptions = {
  /** The service's origin, without the `/api/external/v1` prefix, e.g. `https://app.example.com`. */
  baseUrl: string;
  /** An API token (`opk_…`); sent as `Authorization: Bearer <token>`. */
  token: string;
  /** A fetch implementation (tests, proxies, retries); defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Extra headers for every request. `Authorization` always comes from `token`. */
  headers?: HeadersOptions;
};

/** Per-call options of the typed methods. */
export type CallOptions = {
  /** Aborts the request, e.g. `AbortSignal.timeout(10_000)`. */
  signal?: AbortSignal;
};

/** One operation's method: `api.closeGoal(body, options)` sends the operation's request (generated/operations.ts). */
export type OperationMethod<K extends OperationId> = (body: RequestBody<K>, options?: CallOptions) => Promise<ApiResult<K>>;

export type ApiClient = { [K in OperationId]: OperationMethod<K> } & {
  /** The underlying openapi-fetch client, with the same base URL and headers: `raw.POST(path, { body })`. */
  raw: Client<paths>;
};

/**
 * Thrown when the server answers with a status the spec does not document for the operation (a proxy's 502, say)
 * or with a 2xx body that is not a JSON object. Network failures reject with fetch's own error.
 */
export class UnexpectedResponseError extends Error {
  readonly operationId: OperationId;
  readonly status: number;
  readonly body: unknown;
  readonly response: Response;

  constructor(operationId: OperationId, message: string, body: unknown, response: Response) {
    super(`${operationId}: ${message}`);
    this.name = 'UnexpectedResponseError';
    this.operationId = operationId;
    this.status = response.status;
    this.body = body;
    this.response = response;
  }
}

/**
 * The documented statuses at run time (generated/operations.ts). The annotation makes the compiler check them against
 * generated/types.ts: an operation missing from the table, or a status in it the types do not document, does not
 * compile (both files come from the same bundled document; this says so where the client relies on it).
 */
const DOCUMENTED_STATUSES: { [K in OperationId]: { readonly statuses: ReadonlyArray<DocumentedStatus<K>> } } = OPERATIONS;

function isOperationId(key: string): key is OperationId {
  return Object.hasOwn(OPERATIONS, key);
}

/** The operations in spec order. */
const OPERATION_IDS: ReadonlyArray<OperationId> = Object.keys(OPERATIONS).filter(isOperationId);

/** Every operation's method, built in a loop: the one check that each one is there (the loop cannot type each). */
function hasEveryMethod(methods: Record<string, unknown>): methods is { [K in OperationId]: OperationMethod<K> } {
  return OPERATION_IDS.every((operationId) => typeof methods[operationId] === 'function');
}

/** What every response looks like before the contract is applied. */
type UncheckedResult = { ok: boolean; status: number; body: unknown; response: Response };

/**
 * The one place where a response gets its contract type: the status is checked against the documented set and
 * `ok` against the status; the body's shape is the spec's promise (see the file header).
 */
function isDocumented<K extends OperationId>(operationId: K, result: UncheckedResult): result is ApiResult<K> {
  const statuses: ReadonlyArray<number> = DOCUMENTED_STATUSES[operationId].statuses;
  return statuses.includes(result.status) && result.ok === (result.status >= 200 && result.status < 300);
}

/** A body as text, parsed as JSON when it looks like JSON. 401 and the read-only 403 are text without a Content-Type. */
export function parseBody(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return text;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return parsed;
  } catch {
    return text;
  }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toResult<K extends OperationId>(operationId: K, response: Response, text: string): ApiResult<K> {
  const body = parseBody(text);
  const result: UncheckedResult = { ok: response.ok, status: response.status, body, response };
  if (!isDocumented(operationId, result)) {
    const documented = DOCUMENTED_STATUSES[operationId].statuses.join(', ');
    throw new UnexpectedResponseError(operationId, `status ${response.status} is not documented (documented: ${documented})`, body, response);
  }
  if (result.ok && !isJsonObject(body)) {
    throw new UnexpectedResponseError(operationId, `status ${response.status} came with a body that is not a JSON object`, body, response);
  }
  return result;
}

/**
 * A client for the external API.
 *
 * ```ts
 * const api = createClient({ baseUrl: 'https://app.example.com', token: process.env.API_TOKEN ?? '' });
 * const result = await api.closeGoal({ goal_id, success: 'yes', success_status: 'achieved', retrospective });
 * if (result.status === 200) console.log(result.body.goal.status);
 * ```
 */
export function createClient(options: ClientOptions): ApiClient {
  const raw = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    headers: mergeHeaders(options.headers, { Authorization: `Bearer ${options.token}` }),
    fetch: options.fetch,
  });

  // parseAs 'text' keeps the body as the server sent it: the 200 is read here, errors are read by openapi-fetch
  // (JSON when it parses, else the text) and handed back as text again so one parser decides for both.
  function call<K extends OperationId>(operationId: K): OperationMethod<K> {
    const { method, path } = OPERATIONS[operationId];
    return async (body, options) => {
      const { data, error, response } = await raw.request(method, path, { body, parseAs: 'text', signal: options?.signal });
      return toResult(operationId, response, data ?? textOf(error));
    };
  }
  const methods: Record<string, unknown> = Object.fromEntries(OPERATION_IDS.map((operationId) => [operationId, call(operationId)]));
  if (!hasEveryMethod(methods)) throw new Error('unreachable: OPERATION_IDS holds every operation of generated/operations.ts');
  return { ...methods, raw };
}

/** openapi-fetch's error value back to text: it JSON-parses error bodies when it can, else keeps the text. */
function textOf(error: unknown): string {
  if (error === undefined) return '';
  return typeof error === 'string' ? error : JSON.stringify(error);
}
