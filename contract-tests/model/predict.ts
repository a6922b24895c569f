// Production's answer to any request of an operation, as far as the request alone decides it: the suite's own rules
// (the operation model, inputs.ts, id-model.ts, expected.ts) applied in production's order of checks
// (RULES.md#order-of-checks): transport, then the inputs one by one, then the token, the read-only
// guard, missing fields, and last the record. Where several answers are possible (production is nondeterministic, a
// token or a record this side does not know), every one is accepted; where the model says nothing, nothing is
// predicted. The validation proxy uses it on live traffic; selftest/predict.test.ts holds it to the suite's tables.
import { texts } from '../../spec/lib/messages.ts';
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { TOKEN_FORM, type Persona, type RecordGroup } from './fixtures.ts';
import { answers, either, messages, one, success, type Answers, type Expectation, type Expected } from './expected.ts';
import { inputVerdict, unknownFieldAnswer } from './inputs.ts';
import { rightsOf } from './personas.ts';
import { operationModels, type OperationModel } from './profiles.ts';
import { specValidator } from '../../spec/lib/ajv.ts';

/** A request as it went over the wire. */
export type RawRequest = {
  method: string;
  /** The request target as sent: the path and the query string. */
  url: string;
  /** Header names and values in the order sent; a repeated header repeats. */
  headers: ReadonlyArray<readonly [string, string]>;
  /** The body, or undefined when it was too large to keep. */
  body: Buffer | undefined;
};

/** The step of production's order of checks that decides the answer ('unmodelled': the model cannot tell). */
export type Stage = 'transport' | 'inputs' | 'token' | 'read-only' | 'missing-fields' | 'record' | 'unmodelled';

/** Who a token belongs to, and how that is known (a sentence for messages; never the token). */
export type Who = { persona: Persona; source: string };

/** What is known about the server beyond the spec: personas of tokens, fixture stories of records. */
export type Knowledge = {
  who(token: string): Who | undefined;
  story(group: RecordGroup, id: string): string | undefined;
};

const NOTHING_KNOWN: Knowledge = { who: () => undefined, story: () => undefined };

export type Prediction = {
  op: OperationModel;
  stage: Stage;
  /** The rule that decides the answer, in one sentence with its source. */
  rule: string;
  /** Production's acceptable answers, when the request decides them. */
  expectation?: Expectation;
  /** When the exact answer is not modelled but a 200 is impossible (the request has a defect). */
  notSuccess?: boolean;
  /** The parameters the service decodes (the query merged with the body), once they are known. */
  params?: JsonObject;
  who?: Who;
  /** The fixture story of the record the request names, when known. */
  story?: string;
};

const segmentsOf = (path: string): string[] => path.split('/').filter(Boolean);

/** The operation a request calls: POST on its path (empty segments and a trailing slash are ignored, as Phoenix does). */
function operationOf(method: string, url: string): OperationModel | undefined {
  if (method.toUpperCase() !== 'POST') return undefined;
  const path = url.split('?')[0] ?? '';
  // Percent-escapes in the path are routed in ways the model does not follow (pipeline.ts of the mock): left out.
  if (path.includes('%')) return undefined;
  const segments = segmentsOf(path).join('/');
  return operationModels().find((op) => segmentsOf(op.path).join('/') === segments);
}

/** The first value of a header (only the first Authorization header counts: RULES.md#decision-5). */
export function firstHeader(headers: RawRequest['headers'], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([n]) => n.toLowerCase() === lower)?.[1];
}

/**
 * The token the service reads from an Authorization value (RULES.md#reading-the-header): trimmed,
 * split at the first space; `Bearer` (case-sensitive) and the trimmed rest, or the whole value when it has no space.
 * The same rule as the mock's tokenFromAuthorization (mock/src/domain/security.ts), written twice on purpose: the suite's
 * model of production is independent of the mock it checks, so a slip in one disagrees with the other in a test.
 */
export function tokenOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const value = authorization.trim();
  const space = value.indexOf(' ');
  const token = space < 0 ? value : value.slice(0, space) === 'Bearer' ? value.slice(space + 1).trim() : undefined;
  return token ? token : undefined;
}

type BodyKind = 'json' | 'form' | 'none' | 'unsupported';

/** How the service reads a body by its Content-Type (RULES.md#content-type). */
function bodyKind(contentType: string | undefined): BodyKind {
  if (contentType === undefined) return 'none';
  const match = /^\s*([\w.+-]+)\/([\w.+-]+)\s*(;.*)?$/.exec(contentType);
  const type = match?.[1]?.toLowerCase();
  const subtype = match?.[2]?.toLowerCase() ?? '';
  if (type === 'application' && (subtype === 'json' || subtype.endsWith('+json'))) return 'json';
  if ((type === 'application' && subtype === 'x-www-form-urlencoded') || (type === 'multipart' && (subtype === 'form-data' || subtype === 'mixed')))
    return 'form';
  return 'unsupported';
}

type AcceptEntry = { media: string; q: number | undefined; parameters: boolean };

function acceptEntries(accept: string): AcceptEntry[] {
  return accept.split(',').flatMap((entry) => {
    const [range, ...parameters] = entry.split(';');
    const media = (range ?? '').trim().toLowerCase();
    if (!/^[\w.+*-]+\/[\w.+*-]+$/.test(media)) return [];
    const q = parameters.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return [{ media, q: q === undefined ? undefined : Number(q), parameters: parameters.length > 0 }];
  });
}

/** Whether Accept lets the API answer JSON (406 otherwise; error table #4); undefined where q-values make it unclear. */
function acceptsJson(accept: string | undefined): boolean | undefined {
  if (accept === undefined || accept.trim() === '') return true;
  const entries = acceptEntries(accept);
  const fits = entries.filter((e) => ['*/*', 'application/*', 'application/json'].includes(e.media));
  if (fits.some((e) => e.q === undefined || e.q > 0)) return true;
  if (fits.length > 0 || entries.some((e) => e.media.endsWith('+json'))) return undefined;
  return false;
}

/** Which error view an invalid JSON body gets: HTML unless Accept picks JSON first (error table #1); undefined when unclear. */
function errorView(accept: string | undefined): 'html' | 'json' | undefined {
  if (accept === undefined || accept.trim() === '') return 'html';
  const entries = acceptEntries(accept);
  if (entries.some((e) => e.parameters)) return undefined;
  for (const { media } of entries) {
    if (['text/html', 'text/*', '*/*'].includes(media)) return 'html';
    if (['application/json', 'application/*'].includes(media)) return 'json';
  }
  return 'html';
}

/** The body's parameters: zero bytes is {}, a top level that is not an object goes under `_json`. */
function jsonParams(body: Buffer): { ok: true; params: JsonObject } | { ok: false } | undefined {
  if (body.length === 0) return { ok: true, params: {} };
  // Escapes of lone surrogates are decoded differently here and by the service: not modelled. A byte-order mark is
  // kept (Jason reads it as an unexpected byte: invalid JSON).
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return { ok: false };
  }
  if (/\\u[dD][89a-fA-F]/.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  return { ok: true, params: isObject(value) ? value : { _json: value } };
}

/** Plain `key=value` query parameters (the last of a repeated key wins); undefined for forms the model does not follow. */
function queryParams(url: string): JsonObject | undefined {
  const index = url.indexOf('?');
  if (index < 0) return {};
  const search = url.slice(index + 1);
  if (/%(?![0-9A-Fa-f]{2})/.test(search)) return undefined;
  const out: JsonObject = {};
  for (const [key, value] of new URLSearchParams(search)) {
    if (/[[\]]/.test(key) || key === '_format') return undefined;
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function merge(query: JsonObject, body: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const source of [query, body])
    for (const [key, value] of Object.entries(source)) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

const answersByOperation = new Map<string, Answers>();
function answersOf(op: OperationModel): Answers {
  let found = answersByOperation.get(op.operationId);
  if (!found) {
    found = answers(op);
    answersByOperation.set(op.operationId, found);
  }
  return found;
}

/** The answers in `list`, each once. */
function alternatives(list: ReadonlyArray<Expected>): Expectation {
  const out = new Map<string, Expected>();
  for (const expected of list) if (!out.has(expected.label)) out.set(expected.label, expected);
  return { alternatives: [...out.values()] };
}

/** A stage of the order of checks: the answer it decides, or what the next stage needs. */
type Step<T> = { decided: Prediction } | ({ decided?: undefined } & T);

const unmodelled = (op: OperationModel, why: string, params?: JsonObject): { decided: Prediction } => ({
  decided: { op, stage: 'unmodelled', rule: why, ...(params ? { params } : {}) },
});

/** Production's answer to `request`, as far as the request decides it; undefined when it calls no operation of the spec. */
export function predict(request: RawRequest, known: Knowledge = NOTHING_KNOWN): Prediction | undefined {
  const op = operationOf(request.method, request.url);
  if (!op) return undefined;
  const a = answersOf(op);
  const transport = transportStep(op, a, request);
  if (transport.decided) return transport.decided;
  const { params } = transport;
  const inputs = inputsStep(op, a, params);
  if (inputs.decided) return inputs.decided;
  const caller = tokenStep(op, a, request, params, known);
  if (caller.decided) return caller.decided;
  return missingFieldsStep(op, a, params, caller) ?? recordStep(op, a, params, known, inputs, caller);
}

/** 1. Transport: invalid JSON (the endpoint), Accept (the router), the Content-Type (the API's parser); the params. */
function transportStep(op: OperationModel, a: Answers, request: RawRequest): Step<{ params: JsonObject }> {
  const accept = firstHeader(request.headers, 'accept');
  const kind = bodyKind(firstHeader(request.headers, 'content-type'));
  let body: JsonObject = {};
  if (kind === 'json') {
    if (request.body === undefined) return unmodelled(op, 'the body was too large to keep');
    const parsed = jsonParams(request.body);
    if (parsed === undefined) return unmodelled(op, 'a body with a byte-order mark or a lone surrogate escape');
    if (!parsed.ok) {
      const view = errorView(accept);
      const expectation = view === 'html' ? one(a.invalidJsonHtml) : view === 'json' ? one(a.invalidJsonJson) : either(a.invalidJsonHtml, a.invalidJsonJson);
      const rule = `A body that is not JSON is ${a.invalidJsonHtml.label}, or ${a.invalidJsonJson.label} when Accept picks JSON (RULES.md#error-1)`;
      return { decided: { op, stage: 'transport', rule, expectation } };
    }
    body = parsed.params;
  }
  const json = acceptsJson(accept);
  if (json === false)
    return {
      decided: {
        op,
        stage: 'transport',
        rule: `An Accept header that allows no JSON is ${a.notAcceptable.label} (RULES.md#error-4)`,
        expectation: one(a.notAcceptable),
      },
    };
  if (json === undefined) return unmodelled(op, 'an Accept header whose q-values the model does not follow');
  if (kind === 'unsupported')
    return {
      decided: {
        op,
        stage: 'transport',
        rule: 'A Content-Type that is neither JSON nor a form is 415 (RULES.md#error-5)',
        expectation: one(a.unsupportedMediaType),
      },
    };
  if (kind === 'form') return unmodelled(op, 'form bodies');
  const query = queryParams(request.url);
  if (query === undefined) return unmodelled(op, 'a query string with nested keys or _format');
  // Without a Content-Type the body is ignored (RULES.md#content-type).
  const params = merge(query, body);
  if (Object.hasOwn(params, '_method')) return unmodelled(op, 'a _method override', params);
  return { params };
}

/** What the inputs say of the operation's outcome once they pass: a 500 they cause, or names that may make it fail. */
type InputOutcome = { fails: string | undefined; refers: boolean };

/** 2. Inputs, before the token (Order of checks 5): every defect, since the model does not fix their order. */
function inputsStep(op: OperationModel, a: Answers, params: JsonObject): Step<InputOutcome> {
  const fields = new Map(op.fields.map((f) => [f.name, f]));
  const rejected: Expected[] = [];
  const reasons: string[] = [];
  let fails: string | undefined;
  let refers = false;
  let unknown = false;
  for (const [key, value] of Object.entries(params)) {
    const field = fields.get(key);
    if (!field) {
      rejected.push(...unknownFieldAnswer(key, a).alternatives);
      reasons.push(`the unknown field "${key}" (RULES.md#decision-2)`);
      continue;
    }
    const verdict = inputVerdict(field, value, a, (v) => specValidator().validate(field.schemaPointer, v).length === 0);
    if (verdict.kind === 'rejected') {
      rejected.push(...verdict.expectation.alternatives);
      reasons.push(`"${key}" as ${JSON.stringify(value)?.slice(0, 60) ?? 'that value'} (${verdict.source})`);
    } else if (verdict.kind === 'fails') fails ??= verdict.source;
    else if (verdict.kind === 'unknown') unknown = true;
    else refers ||= verdict.refers;
  }
  if (rejected.length > 0) {
    const rule = `Inputs are checked before the token; this request has ${reasons.join(' and ')}`;
    return {
      decided: unknown ? { op, stage: 'inputs', rule, notSuccess: true, params } : { op, stage: 'inputs', rule, expectation: alternatives(rejected), params },
    };
  }
  if (unknown) return unmodelled(op, 'an input value the model does not cover', params);
  return { fails, refers };
}

/** Who is calling, as far as the token tells: the persona when known, else the answers an unknown token may get. */
type Caller = { who: Who | undefined; rights: ReturnType<typeof rightsOf> | undefined; tokenAnswers: Expected[]; unknownToken: string };

/** 3. The token (Order of checks 6–7): none or unreadable 401, not production's form 401, refused 401, read-only 403. */
function tokenStep(op: OperationModel, a: Answers, request: RawRequest, params: JsonObject, known: Knowledge): Step<Caller> {
  const authorization = firstHeader(request.headers, 'authorization');
  const token = tokenOf(authorization);
  if (token === undefined) {
    const rule =
      authorization === undefined
        ? `A request without an Authorization header is 401 ${JSON.stringify(texts.unauthorized)} once the inputs pass (RULES.md#error-21)`
        : 'An Authorization header with no token the service can read (another scheme, "bearer", a tab, no token) is 401 (RULES.md#reading-the-header)';
    return { decided: { op, stage: 'token', rule, expectation: one(a.unauthorized), params } };
  }
  if (!TOKEN_FORM.test(token)) {
    const rule = 'A token not in production’s form (opk_ and 43 characters) is no token the service issued: 401 (RULES.md#decision-5)';
    return { decided: { op, stage: 'token', rule, expectation: one(a.unauthorized), params } };
  }
  const who = known.who(token);
  const rights = who ? rightsOf(who.persona) : undefined;
  if (who && rights?.token === 'refused') {
    const rule = `A refused token (${who.persona}: ${who.source}) is 401 ${JSON.stringify(texts.unauthorized)} (RULES.md#checking-the-token)`;
    return { decided: { op, stage: 'token', rule, expectation: one(a.unauthorized), params, who } };
  }
  if (who && rights?.token === 'read-only') {
    const rule = `A read-only token (${who.source}) is 403 ${JSON.stringify(texts.readOnly)} (RULES.md#read-only-tokens)`;
    return { decided: { op, stage: 'read-only', rule, expectation: one(a.readOnly), params, who } };
  }
  return {
    who,
    rights,
    tokenAnswers: who ? [] : [a.unauthorized, a.readOnly],
    unknownToken: who ? '' : ' (or 401/403 for a token this side does not know)',
  };
}

/** 4. The missing required fields, listed in declaration order (Order of checks 8). */
function missingFieldsStep(op: OperationModel, a: Answers, params: JsonObject, caller: Caller): Prediction | undefined {
  const missing = op.required.filter((name) => !Object.hasOwn(params, name));
  if (missing.length === 0) return undefined;
  return {
    op,
    stage: 'missing-fields',
    rule: `The missing required fields are 400 "${messages.missingFields(missing)}", in declaration order, after the token${caller.unknownToken} (RULES.md#error-23)`,
    expectation: alternatives([...caller.tokenAnswers, a.missingFields(missing)]),
    params,
    ...(caller.who ? { who: caller.who } : {}),
  };
}

/** 5. The record: 404 when it cannot be seen, 403 JSON when it cannot be edited, 500 when the operation fails. */
function recordStep(op: OperationModel, a: Answers, params: JsonObject, known: Knowledge, inputs: InputOutcome, caller: Caller): Prediction {
  const { who, rights } = caller;
  const { fails, refers } = inputs;
  const id = params[op.targetField];
  const story = typeof id === 'string' ? known.story(op.group, id) : undefined;
  const context = { op, stage: 'record' as const, params, ...(who ? { who } : {}), ...(story === undefined ? {} : { story }) };
  const outcome = fails ? [a.operationFailed] : refers ? [success, a.operationFailed] : [success];
  const done = fails
    ? `; and ${fails}`
    : refers
      ? '; it names other people or records, so the operation may fail with 500'
      : '; valid input is never a server error';
  const record = `the ${story} ${op.group.replace(/s$/, '')}`;
  if (who && rights && story !== undefined) {
    if (rights.records === 'edit')
      return { ...context, rule: `The ${who.persona} person (${who.source}) can edit ${record} (a fixture)${done}`, expectation: alternatives(outcome) };
    if (rights.records === 'view')
      return {
        ...context,
        rule: `A person who can see ${record} but not edit it (${who.persona}, ${who.source}) gets 403 JSON (RULES.md#decision-3)`,
        expectation: one(a.forbidden),
      };
    if (rights.records === 'none')
      return {
        ...context,
        rule: `A person who cannot see ${record} (${who.persona}, ${who.source}) gets 404, never 403 (RULES.md#decision-3)`,
        expectation: one(a.notFound),
      };
  }
  return {
    ...context,
    rule: `After the token, the record decides: 404 when it cannot be seen, 403 JSON when it cannot be edited, else 200${caller.unknownToken}${done} (RULES.md#decision-3)`,
    expectation: alternatives([...caller.tokenAnswers, a.notFound, a.forbidden, ...outcome]),
  };
}
