// The one response checker of the package: checkResponse(operationId, response, { validator }) → every way the response
// departs from the spec, as violations. The contract suite, the validation proxy, the fuzzers and the mock's own
// self-check all use it, each with its validators: Ajv's, compiled from generated/openapi.json (ajv.ts; the suite's
// `checkResponse` in contract-tests/harness/check-response.ts passes them), or the precompiled ones (the mock), so that
// checking loads no compiler. Errors fail; warnings (an undocumented additive field, a missing Content-Type where
// production sends none) do not.
import type { ErrorObject } from 'ajv/dist/2020.js';
import {
  dereference,
  documentedHeaders,
  documentedResponses,
  type DocumentedHeader,
  isObject,
  listOperations,
  loadDocument,
  pointerTo,
  resolvePointer,
  responseSchemaPointer,
  type JsonObject,
  type SchemaValidator,
} from './openapi.ts';
import { resolveSchema } from './operations.ts';
import { printable, quoted, violation, type Violation } from './violations.ts';

/**
 * What checkResponse needs of a response: the contract client's ApiResponse has it. `body`, when given, is the body
 * already parsed (the mock has it as a value before it is sent), so the text is not parsed again.
 */
export type ResponseLike = { status: number; headers: Readonly<Record<string, string | undefined>>; text: string; body?: unknown };

export type CheckOptions = {
  /** The validators (ajv.ts's specValidator: compiled from generated/openapi.json, first error first). */
  validator: SchemaValidator;
  /** Report fields the spec does not name, as warnings (default true; the walk costs what the body costs). */
  unknownFields?: boolean;
  /** Report warnings at all (default true); a caller that acts on errors only (the mock's self-check) skips them. */
  warnings?: boolean;
};

/** The validators of the check under way (checkResponse sets them for its duration; the walks below read them). */
let current: SchemaValidator | undefined;
const schemas = (): SchemaValidator => {
  if (!current) throw new Error('conformance: no validator (checkResponse sets it)');
  return current;
};

type Path = ReadonlyArray<string | number>;

let operationPointers: Map<string, string> | undefined;
function operationPointer(operationId: string): string | undefined {
  operationPointers ??= new Map(listOperations().map((o) => [o.operationId, o.pointer]));
  return operationPointers.get(operationId);
}

const isJsonMedia = (mediaType: string): boolean => mediaType === 'application/json' || /^application\/[\w.-]+\+json$/.test(mediaType);

/** `application/json; charset=utf-8` → `application/json`. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const media = contentType.split(';')[0]?.trim().toLowerCase();
  return media ? media : undefined;
}

/** A value from the answer, shown in a message: as JSON, unprintable characters escaped, cut at `max` characters. */
function short(value: unknown, max = 80): string {
  const text = value === undefined ? 'nothing' : printable(JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function valueAt(value: unknown, instancePath: string): unknown {
  let node = value;
  for (const raw of instancePath.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return node;
}

function pathOf(instancePath: string): Array<string | number> {
  return instancePath
    .split('/')
    .slice(1)
    .map((raw) => raw.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((key) => (/^\d+$/.test(key) ? Number(key) : key));
}

/** One Ajv error as a violation at `base` (the location of the value that was validated). */
function fromAjv(error: ErrorObject, base: Path, value: unknown): Violation {
  const location = [...base, ...pathOf(error.instancePath)];
  const actual = valueAt(value, error.instancePath);
  const params: Record<string, unknown> = isObject(error.params) ? error.params : {};
  switch (error.keyword) {
    case 'required':
      return violation([...location, String(params['missingProperty'])], 'schema.required', `required field "${String(params['missingProperty'])}" is missing`);
    case 'additionalProperties':
      return violation(
        [...location, String(params['additionalProperty'])],
        'schema.additionalProperties',
        `field ${quoted(String(params['additionalProperty']))} is not allowed here (the schema is closed)`,
      );
    case 'type':
      return violation(
        location,
        'schema.type',
        `must be ${String(params['type']).replace(',', ' or ')}, got ${actual === null ? 'null' : `${jsonType(actual)} ${short(actual)}`}`,
      );
    case 'enum':
      return violation(
        location,
        'schema.enum',
        `must be one of ${Array.isArray(params['allowedValues']) ? params['allowedValues'].map((v) => JSON.stringify(v)).join(', ') : '?'}; got ${short(actual)}`,
      );
    case 'const':
      return violation(location, 'schema.const', `must be ${short(params['allowedValue'], 200)}; got ${short(actual, 200)}`);
    case 'format':
      return violation(location, 'schema.format', `must be a ${String(params['format'])}, got ${short(actual)}`);
    case 'pattern':
      return violation(location, 'schema.pattern', `must match ${String(params['pattern'])}, got ${short(actual)}`);
    default:
      return violation(location, `schema.${error.keyword}`, `${error.message ?? error.keyword}, got ${short(actual)}`);
  }
}

/** Follows `$ref`s to the schema at `pointer` (operations.ts). */
/** Follows `$ref`s to the schema at `pointer`, once per pointer: the document never changes. */
const resolved = new Map<string, { pointer: string; schema: JsonObject }>();
function resolveRef(pointer: string): { pointer: string; schema: JsonObject } {
  let found = resolved.get(pointer);
  if (!found) {
    found = resolveSchema(loadDocument(), pointer);
    resolved.set(pointer, found);
  }
  return found;
}

function typesOf(schema: JsonObject): string[] | undefined {
  const type = schema['type'];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  if (typeof type === 'string') return [type];
  if ('const' in schema) return [jsonType(schema['const']) === 'integer' ? 'number' : jsonType(schema['const'])];
  return undefined;
}

function typeFits(types: string[] | undefined, value: unknown): boolean {
  if (!types) return true;
  const actual = jsonType(value);
  return types.includes(actual) || (actual === 'integer' && types.includes('number'));
}

/** Whether `value` is valid against the schema at `pointer`, without building its errors where the validator can. */
const isValid = (pointer: string, value: unknown): boolean => {
  const validator = schemas();
  return validator.isValid ? validator.isValid(pointer, value) : validator.validate(pointer, value).length === 0;
};

/**
 * The branch of a oneOf/anyOf that best explains `value`: one that passes, else one whose type fits with the fewest
 * errors. `quick`: when only one branch's type fits, take it without validating (for the unknown-field walk).
 */
function bestBranch(pointer: string, keyword: 'oneOf' | 'anyOf', branches: unknown[], value: unknown, quick = false): { pointer: string; passing: number } {
  const candidates = branches.map((_, i) => `${pointer}/${keyword}/${i}`);
  const fitting = candidates.filter((p) => typeFits(typesOf(resolveRef(p).schema), value));
  const pool = fitting.length > 0 ? fitting : candidates;
  const only = pool[0];
  if (pool.length === 1 && only !== undefined) return { pointer: only, passing: quick ? Number.NaN : isValid(only, value) ? 1 : 0 };
  let best = pool[0] ?? candidates[0] ?? pointer;
  let bestErrors = Number.POSITIVE_INFINITY;
  let passing = 0;
  for (const p of pool) {
    const count = isValid(p, value) ? 0 : schemas().validate(p, value).length;
    if (count === 0) passing++;
    if (count < bestErrors) {
      best = p;
      bestErrors = count;
    }
  }
  return { pointer: best, passing };
}

/** How many schema levels `explain` has walked (never reset): the tests count the work of a check with it. */
export const explainSteps = { count: 0 };

/**
 * The schema violations of `value` against the schema at `pointer`, explained level by level so that a oneOf
 * reports the errors of its closest branch instead of every branch's; repeats dropped.
 *
 * Linear in the value: each level asks whether a part is valid (a validator that stops at its first error) and walks
 * into the parts that are not, and takes the errors of its own keywords only (validateOwn), never the whole list of
 * a container's errors (Ajv builds that list by copying it at every failing `$ref`: quadratic in the failing items).
 */
function explain(pointer: string, value: unknown, base: Path): Violation[] {
  const out: Violation[] = [];
  explainInto(out, pointer, value, base);
  return dedupe(out);
}

/** Appends the violations of `value` at `pointer` to `out` (one array for the whole walk: no copies level by level). */
function explainInto(out: Violation[], pointer: string, value: unknown, base: Path): void {
  explainSteps.count++;
  if (isValid(pointer, value)) return;
  const { pointer: at, schema } = resolveRef(pointer);
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const { pointer: branch, passing } = bestBranch(at, keyword, branches, value);
    if (keyword === 'oneOf' && passing > 1) {
      out.push(violation(base, 'schema.oneOf', `matches ${passing} of the documented alternatives; exactly one must match`));
      return;
    }
    const before = out.length;
    explainInto(out, branch, value, base);
    if (out.length > before) return;
    // The closest branch passes: what fails is this level's own keywords (or, when they do not say, the alternatives).
    const atLevel = (errors: ErrorObject[]): ErrorObject[] => errors.filter((e) => e.instancePath === '');
    const own = atLevel(ownErrors(at, value));
    for (const e of own.length > 0 ? own : atLevel(schemas().validate(at, value))) out.push(fromAjv(e, base, value));
    return;
  }
  if (Array.isArray(schema['allOf'])) {
    for (const i of schema['allOf'].keys()) explainInto(out, `${at}/allOf/${i}`, value, base);
  }
  // The parts this level walks into, by the instancePath segment Ajv gives them: their errors are theirs to explain.
  const walked = new Set<string>();
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  if (isObject(value)) {
    for (const key of Object.keys(value)) {
      const child = Object.hasOwn(properties, key)
        ? propertyPointer(at, key)
        : isObject(schema['additionalProperties'])
          ? `${at}/additionalProperties`
          : undefined;
      if (child === undefined) continue;
      walked.add(key.replaceAll('~', '~0').replaceAll('/', '~1'));
      explainInto(out, child, value[key], [...base, key]);
    }
  }
  if (Array.isArray(value) && isObject(schema['items'])) {
    for (const [i, item] of value.entries()) {
      walked.add(String(i));
      explainInto(out, `${at}/items`, item, [...base, i]);
    }
  }
  const hasComposite = Array.isArray(schema['allOf']);
  for (const error of ownErrors(at, value)) {
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf' || error.keyword === 'allOf') continue;
    const segment = firstSegment(error.instancePath);
    if (segment === undefined ? hasComposite && !schemaOwns(schema, error) : walked.has(segment) || hasComposite) continue;
    out.push(fromAjv(error, base, value));
  }
}

/** `${at}/properties/${key}` as a pointer, made once per schema and name (each item of an array asks again). */
const propertyPointers = new Map<string, Map<string, string>>();
function propertyPointer(at: string, key: string): string {
  let byKey = propertyPointers.get(at);
  if (!byKey) {
    byKey = new Map();
    propertyPointers.set(at, byKey);
  }
  let pointer = byKey.get(key);
  if (pointer === undefined) {
    pointer = `${at}/properties/${pointerTo(key).slice(2)}`;
    byKey.set(key, pointer);
  }
  return pointer;
}

/**
 * The errors of the schema at `at` (no `$ref`) that its own level explains: its own keywords' where the validator can
 * take the schema apart, else every error of the value (the parts' errors are left to the parts).
 */
function ownErrors(at: string, value: unknown): ErrorObject[] {
  const validator = schemas();
  return validator.validateOwn?.(at, value) ?? validator.validate(at, value);
}

/** The first segment of an Ajv instancePath (`/goal/checklist/3` → `goal`), undefined for the value itself (''). */
function firstSegment(instancePath: string): string | undefined {
  if (instancePath === '') return undefined;
  const end = instancePath.indexOf('/', 1);
  return end === -1 ? instancePath.slice(1) : instancePath.slice(1, end);
}

/** Whether an error at this level comes from the schema's own keywords rather than from an allOf member. */
function schemaOwns(schema: JsonObject, error: ErrorObject): boolean {
  if (error.keyword === 'required') return Array.isArray(schema['required']) && schema['required'].includes(error.params['missingProperty']);
  if (error.keyword === 'additionalProperties') return schema['additionalProperties'] === false;
  return error.keyword in schema;
}

/** Drops repeats, and value checks (enum, const, format, pattern) where the type is already wrong at the same place. */
function dedupe(violations: Violation[]): Violation[] {
  const seen = new Set<string>();
  const places = violations.map((v) => v.location.join('/'));
  const wrongType = new Set(places.filter((_, i) => violations[i]?.code === 'schema.type'));
  return violations.filter((v, i) => {
    const place = places[i] ?? '';
    if (VALUE_CHECK.test(v.code) && wrongType.has(place)) return false;
    const key = `${v.severity}|${v.code}|${place}|${v.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
const VALUE_CHECK = /^schema\.(enum|const|format|pattern)$/;

/**
 * How what a schema declares depends on the value: not at all, on its JSON type only (a oneOf/anyOf where one branch
 * fits the type, e.g. a nullable reference), or on the value (a branch chosen by validating).
 */
type Varies = 'no' | 'type' | 'value';
type Declared = { properties: Map<string, string>; additional: string | undefined; closed: boolean; varies: Varies };
const VARIES_ORDER: ReadonlyArray<Varies> = ['no', 'type', 'value'];
const most = (a: Varies, b: Varies): Varies => (VARIES_ORDER.indexOf(a) >= VARIES_ORDER.indexOf(b) ? a : b);
/** What `declared` found, by pointer (or pointer and JSON type) where that decides it: the walk runs on every response. */
const declaredCache = new Map<string, Declared>();

/** Property names a schema declares, through $ref and allOf; `closed` when any part forbids others. */
function declared(pointer: string, value: unknown): Declared {
  const fixed = declaredCache.get(pointer);
  if (fixed) return fixed;
  const typed = `${pointer}#${jsonType(value)}`;
  const cached = declaredCache.get(typed);
  if (cached) return cached;
  const result = declaredOf(pointer, value);
  if (result.varies === 'no') declaredCache.set(pointer, result);
  else if (result.varies === 'type') declaredCache.set(typed, result);
  return result;
}

function declaredOf(pointer: string, value: unknown): Declared {
  const { pointer: at, schema } = resolveRef(pointer);
  const properties = new Map<string, string>();
  let varies: Varies = 'no';
  let additional: string | undefined;
  let closed = schema['additionalProperties'] === false;
  if (isObject(schema['additionalProperties'])) additional = `${at}/additionalProperties`;
  if (isObject(schema['properties'])) for (const key of Object.keys(schema['properties'])) properties.set(key, `${at}/properties/${pointerTo(key).slice(2)}`);
  if (Array.isArray(schema['allOf'])) {
    schema['allOf'].forEach((_, i) => {
      const member = declared(`${at}/allOf/${i}`, value);
      for (const [k, p] of member.properties) if (!properties.has(k)) properties.set(k, p);
      additional ??= member.additional;
      closed ||= member.closed;
      varies = most(varies, member.varies);
    });
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const branch = bestBranch(at, keyword, branches, value, true);
    varies = most(varies, Number.isNaN(branch.passing) ? 'type' : 'value');
    const member = declared(branch.pointer, value);
    varies = most(varies, member.varies);
    for (const [k, p] of member.properties) if (!properties.has(k)) properties.set(k, p);
    additional ??= member.additional;
    closed ||= member.closed;
  }
  return { properties, additional, closed, varies };
}

/** Fields the response has and the schema does not name: warnings (responses stay open: RULES.md#decision-1). */
function unknownFields(pointer: string, value: unknown, base: Path, out: Violation[] = []): Violation[] {
  if (isObject(value)) {
    const { properties, additional, closed } = declared(pointer, value);
    for (const [key, child] of Object.entries(value)) {
      const childPointer = properties.get(key) ?? additional;
      if (childPointer) unknownFields(childPointer, child, [...base, key], out);
      else if (!closed)
        out.push(violation([...base, key], 'field.unknown', `field ${quoted(key)} is not in the spec (an additive field: reported, not a failure)`, 'warning'));
    }
  } else if (Array.isArray(value)) {
    const { pointer: at, schema } = resolveRef(pointer);
    if (isObject(schema['items'])) for (const [i, item] of value.entries()) unknownFields(`${at}/items`, item, [...base, i], out);
    else {
      for (const keyword of ['oneOf', 'anyOf'] as const) {
        const branches = schema[keyword];
        if (Array.isArray(branches)) unknownFields(bestBranch(at, keyword, branches, value, true).pointer, value, base, out);
      }
    }
  }
  return out;
}

const documentedCache = new Map<string, Map<string, string[]>>();
function documentedOf(document: JsonObject, operationId: string, opPointer: string): Map<string, string[]> {
  let documented = documentedCache.get(operationId);
  if (!documented) {
    documented = documentedResponses(document, opPointer);
    documentedCache.set(operationId, documented);
  }
  return documented;
}

/** The documented response key for a status: exact, then `4XX`-style, then `default`. */
function documentedKey(documented: Map<string, string[]>, status: number): string | undefined {
  const exact = String(status);
  if (documented.has(exact)) return exact;
  const range = `${exact[0] ?? ''}XX`;
  if (documented.has(range)) return range;
  return documented.has('default') ? 'default' : undefined;
}

/**
 * How deep a body may nest to be checked: the API's answers nest 6 levels; the walks of the check recurse once per
 * level (and so does Ajv), so an answer nested thousands deep is one violation instead of a stack overflow.
 */
export const MAX_BODY_DEPTH = 64;

/** Whether `value` nests deeper than `max` arrays and objects (walked without recursion, stopping at the first too deep). */
export function nestsDeeperThan(value: unknown, max: number = MAX_BODY_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Every violation of one response of `operationId` against the spec. */
export function checkResponse(operationId: string, response: ResponseLike, options: CheckOptions): Violation[] {
  const previous = current;
  current = options.validator;
  try {
    const warnings = options.warnings ?? true;
    return check(operationId, response, warnings && (options.unknownFields ?? true), warnings);
  } finally {
    current = previous;
  }
}

function check(operationId: string, response: ResponseLike, withUnknownFields: boolean, withWarnings: boolean): Violation[] {
  const document = loadDocument();
  const opPointer = operationPointer(operationId);
  if (!opPointer) return [violation(['response'], 'operation.unknown', `operation ${operationId} is not in the spec`)];
  const documented = documentedOf(document, operationId, opPointer);
  const key = documentedKey(documented, response.status);
  if (key === undefined) {
    return [
      violation(
        ['response', 'status'],
        'status.undocumented',
        `status ${response.status} is not documented for ${operationId}; documented: ${[...documented.keys()].join(', ')}`,
      ),
    ];
  }
  const out: Violation[] = [];
  const { responsePointer, headers: documentedHeaders } = responseOf(document, operationId, opPointer, key);
  const mediaTypes = documented.get(key) ?? [];
  const header = mediaTypeOf(response.headers['content-type']);
  // A caller that has the body as a value (the mock) says so: an object is the parsed JSON, a string is text.
  const parsed = !('body' in response)
    ? parseJson(response.text)
    : typeof response.body === 'object' && response.body !== null
      ? { ok: true as const, value: response.body }
      : { ok: false as const, error: 'a text body' };

  // Which documented body applies: the one the Content-Type names; without one (or with an undocumented one), the
  // one the body looks like (JSON if it parses and JSON is documented, else plain text).
  let media: string | undefined;
  if (mediaTypes.length === 0) {
    if (withWarnings && response.text !== '')
      out.push(
        violation(['response', 'body'], 'body.undocumented', `${operationId} documents no body for ${response.status}, got ${short(response.text)}`, 'warning'),
      );
  } else if (header !== undefined && mediaTypes.includes(header)) {
    media = header;
  } else {
    const json = mediaTypes.find(isJsonMedia);
    const text = mediaTypes.find((m) => m === 'text/plain') ?? mediaTypes.find((m) => m.startsWith('text/'));
    const looksJson = parsed.ok && response.text.trim() !== '' && typeof parsed.value === 'object' && parsed.value !== null;
    media = looksJson && json ? json : (text ?? json ?? mediaTypes[0]);
    if (header !== undefined) {
      out.push(
        violation(
          ['response', 'header', 'content-type'],
          'content-type.undocumented',
          `Content-Type ${header} is not documented for ${operationId} ${response.status}; documented: ${mediaTypes.join(', ')}`,
        ),
      );
    } else if (media && (isJsonMedia(media) ? looksJson : media === 'text/plain') && response.status >= 400) {
      if (withWarnings)
        out.push(
          violation(
            ['response', 'header', 'content-type'],
            'content-type.missing',
            `no Content-Type header; the body is read as ${media}, which is documented for ${response.status} (production sends some error bodies without one: RULES.md#decision-2)`,
            'warning',
          ),
        );
    } else if (media && response.status < 400) {
      out.push(
        violation(
          ['response', 'header', 'content-type'],
          'content-type.missing',
          `no Content-Type header on a ${response.status}: ${operationId} documents ${mediaTypes.join(', ')} for it, and only error answers may come without one (the spec's "Errors"; RULES.md#decision-2)`,
        ),
      );
    } else {
      out.push(
        violation(
          ['response', 'header', 'content-type'],
          'content-type.missing',
          `no Content-Type header, and the body is not what ${operationId} ${response.status} documents (${mediaTypes.join(', ')})`,
        ),
      );
    }
  }

  if (media !== undefined) {
    const { schemaPointer, hasSchema } = bodySchemaOf(document, operationId, opPointer, key, responsePointer, response.status, media);
    if (isJsonMedia(media)) {
      if (!parsed.ok) {
        out.push(
          violation(
            ['response', 'body'],
            'body.not-json',
            `the body is not JSON (${printable(parsed.error)}); ${operationId} ${response.status} documents ${media}: ${short(response.text, 160)}`,
          ),
        );
      } else if (hasSchema && nestsDeeperThan(parsed.value, MAX_BODY_DEPTH)) {
        out.push(
          violation(
            ['response', 'body'],
            'body.too-deep',
            `the body nests deeper than ${MAX_BODY_DEPTH} levels (the API's answers nest a few levels); its schema was not checked`,
          ),
        );
      } else if (hasSchema) {
        out.push(...explain(schemaPointer, parsed.value, ['response', 'body']));
        if (withUnknownFields) out.push(...unknownFields(schemaPointer, parsed.value, ['response', 'body']));
      }
    } else if (hasSchema) {
      out.push(...explain(schemaPointer, response.text, ['response', 'body']));
    }
  }

  // Documented headers: a value must match its schema; a missing one is an error when `required`, and nothing when
  // not (the spec says the answer may lack it: the 400 of invalid JSON has no x-request-id).
  for (const { name, lower, schemaPointer, required } of documentedHeaders) {
    const actual = response.headers[lower];
    if (actual === undefined) {
      if (required)
        out.push(
          violation(['response', 'header', lower], 'header.missing', `header ${name} is documented for ${operationId} ${response.status} but was not sent`),
        );
    } else if (schemaPointer !== undefined) {
      out.push(...explain(schemaPointer, actual, ['response', 'header', lower]).map((v) => ({ ...v, code: v.code.replace(/^schema\./, 'header.') })));
    }
  }
  return out.length === 0 ? out : dedupe(out);
}

// What checkResponse looks up in the document, once per operation, response and media type (a server checks every
// answer it sends; the lookups are the same every time).
const responseCache = new Map<string, { responsePointer: string; headers: DocumentedHeader[] }>();
const bodySchemaCache = new Map<string, { schemaPointer: string; hasSchema: boolean }>();

function responseOf(document: JsonObject, operationId: string, opPointer: string, key: string): { responsePointer: string; headers: DocumentedHeader[] } {
  const cacheKey = `${operationId} ${key}`;
  let found = responseCache.get(cacheKey);
  if (!found) {
    const responsePointer = dereference(document, `${opPointer}/responses/${key}`).pointer;
    found = { responsePointer, headers: documentedHeaders(document, responsePointer) };
    responseCache.set(cacheKey, found);
  }
  return found;
}

function bodySchemaOf(
  document: JsonObject,
  operationId: string,
  opPointer: string,
  key: string,
  responsePointer: string,
  status: number,
  media: string,
): { schemaPointer: string; hasSchema: boolean } {
  const cacheKey = `${operationId} ${key} ${status} ${media}`;
  let found = bodySchemaCache.get(cacheKey);
  if (!found) {
    const schemaPointer =
      (key === String(status) ? responseSchemaPointer(document, opPointer, status, media) : undefined) ??
      `${responsePointer}/content/${pointerTo(media).slice(2)}/schema`;
    found = { schemaPointer, hasSchema: resolvePointer(document, schemaPointer) !== undefined };
    bodySchemaCache.set(cacheKey, found);
  }
  return found;
}
