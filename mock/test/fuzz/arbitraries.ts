// fast-check arbitraries for whole HTTP requests to one operation: random JSON and non-JSON bodies, a random value
// of a random type for every declared input (names from the spec, see operations.ts), huge strings, deep nesting,
// random Accept / Content-Type / Authorization / Prefer headers, random id forms, query-string and form inputs.
//
// Values are generated as JSON *text*, never as nested JS values, so a body nested 100,000 levels deep costs the test
// process nothing (JSON.stringify of such a value would overflow the test's own stack).
import fc from 'fast-check';
import type { FuzzOperation, InputField } from './operations.ts';

/**
 * Families of hostile input that each once made the mock misbehave, all fixed (reliability.test.ts pins each fix).
 * Every run generates them, the bounded test included; `npm run fuzz -- --skip-known` (or `--include`) leaves them out
 * to see whether a new finding is one of the old ones. A new family that breaks the mock goes here with its finding,
 * and its entry stays once it is fixed, as a generator.
 */
export const KNOWN_ISSUES = {
  'deep-nesting':
    'JSON nested thousands of levels deep in a rich-text or enum input (once a stack overflow; the walks are iterative now and documents deeper than 1000 levels are refused before anything is stored)',
  'method-override': 'a POST with "_method": "PUT" is production\'s 405 (RULES.md#transport); the spec documents it',
  'message-pattern':
    "an empty field name, or a line break in a field name or enum value, echoed in a 400 message (once refused by the spec's message pattern; it now allows them)",
} as const;
export type KnownIssue = keyof typeof KNOWN_ISSUES;
export const ALL_KNOWN_ISSUES = Object.keys(KNOWN_ISSUES).filter((k): k is KnownIssue => k in KNOWN_ISSUES);

/** The deepest nesting generated when 'deep-nesting' is excluded: far beyond any editor's output, well inside the stack. */
export const SAFE_DEPTH = 1000;

export type FuzzContext = {
  operation: FuzzOperation;
  /** Every operation, so one operation's field names can be sent to the other as unknown fields. */
  operations: ReadonlyArray<FuzzOperation>;
  /** Raw tokens by persona (GET /__mock/fixtures). */
  tokens: Record<string, string>;
  /** Record ids (projects, goals) and person ids in the slug form responses carry. */
  recordIds: ReadonlyArray<string>;
  personIds: ReadonlyArray<string>;
  /** The same records' UUIDs, from GET /__mock/state. */
  uuids: ReadonlyArray<string>;
  /** The deepest nesting to generate, and the longest huge string (characters). */
  maxDepth: number;
  hugeLength: number;
  /** Known issues to generate inputs for (see KNOWN_ISSUES). */
  include: ReadonlySet<KnownIssue>;
};

/** One generated request. The X-Mock-Session header is added by the sender (one session per property run). */
export type FuzzRequest = {
  operationId: string;
  method: 'POST';
  /** Path and query string. */
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  /** A `Prefer: code=… / example=…` was sent: the answer is forced and must never change the state. */
  forced: boolean;
  /** An X-Mock-Session name the mock must refuse (400 "Mock control error"), sent instead of the run's session. */
  badSession?: string;
  /**
   * Sent with an absolute-form target (`POST http://127.0.0.1:P/api/… HTTP/1.1`, RFC 9112 §3.2.2): the mock answers it
   * exactly as its origin form, so every property holds unchanged.
   */
  absolute?: boolean;
  /** What kind of body this is, for the statistics. */
  bodyKind: string;
};

/** What the spec's message pattern cannot match ('message-pattern'): an empty text or a line break. */
const LINE_BREAK = /[\n\r\u2028\u2029]/;
const echoable =
  (ctx: FuzzContext) =>
  (value: string): boolean =>
    ctx.include.has('message-pattern') || (value !== '' && !LINE_BREAK.test(value));
/** JSON text whose printed form (a string, or chardata: code points and strings in lists) has no line break. */
const echoableJson =
  (ctx: FuzzContext) =>
  (json: string): boolean =>
    ctx.include.has('message-pattern') || !/\\[nr]|[\u2028\u2029]|(^|[[,])(10|13|8232|8233)(?=[\],])/.test(json);
const echoableCodes =
  (ctx: FuzzContext) =>
  (codes: number[]): boolean =>
    ctx.include.has('message-pattern') || !codes.some((c) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029);

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const text = (value: string): string => JSON.stringify(value);

/** Printable ASCII: what an HTTP client may put in a header value. */
const headerChar = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
const headerText = (maxLength: number) => fc.string({ unit: headerChar, maxLength });

// ── values of any type ───────────────────────────────────────────────────────────────────────────────────────────

const scalarJson = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '0', '-0', '1', '-1', '1e400', '-1e400', '1e-400', '0.5', '123456789012345678901234567890', '9007199254740993'),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map(text),
  fc.string({ unit: 'binary', maxLength: 20 }).map(text),
);

/** Nested arrays, objects or a rich-text-like mix, `depth` levels deep, as JSON text. */
function nested(depth: number, form: 'array' | 'object' | 'paragraphs'): string {
  if (form === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  if (form === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return `${'{"type":"paragraph","content":['.repeat(depth)}{"type":"text","text":"deep"}${']}'.repeat(depth)}`;
}

function deepJson(ctx: FuzzContext) {
  return fc
    .record({
      depth: fc.integer({ min: 2, max: Math.max(2, ctx.maxDepth) }),
      form: fc.constantFrom('array' as const, 'object' as const, 'paragraphs' as const),
    })
    .map(({ depth, form }) => nested(depth, form));
}

function hugeRaw(ctx: FuzzContext) {
  return fc
    .record({
      length: fc.integer({ min: Math.min(1000, ctx.hugeLength), max: ctx.hugeLength }),
      unit: fc.constantFrom('a', 'é', '€', '😀', ' ', '\u0000', '"', '\\', '-', 'A1'),
    })
    .map(({ length, unit }) => unit.repeat(Math.ceil(length / unit.length)));
}

function garbageJson(ctx: FuzzContext) {
  return fc.oneof(
    { weight: 4, arbitrary: scalarJson },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: deepJson(ctx) },
    { weight: 1, arbitrary: hugeRaw(ctx).map(text) },
  );
}

// ── ids ──────────────────────────────────────────────────────────────────────────────────────────────────────────

const shortOf = (id: string): string => id.slice(id.lastIndexOf('-') + 1);
const slugPrefix = fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}$/);
const base62 = fc.string({ unit: fc.constantFrom(...BASE62), minLength: 1, maxLength: 22 });

/** An id as a raw string: the records' own ids in every form the service accepts, near misses, and garbage. */
function idRaw(ctx: FuzzContext, people = false) {
  const own = people ? ctx.personIds : ctx.recordIds;
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...own) },
    { weight: 1, arbitrary: fc.constantFrom(...(people ? ctx.recordIds : ctx.personIds)) },
    { weight: 2, arbitrary: fc.constantFrom(...own).map(shortOf) },
    { weight: 2, arbitrary: fc.constantFrom(...ctx.uuids).chain((u) => fc.constantFrom(u, u.toUpperCase())) },
    { weight: 1, arbitrary: fc.tuple(slugPrefix, fc.constantFrom(...own).map(shortOf)).map(([slug, short]) => `${slug}-${short}`) },
    { weight: 2, arbitrary: fc.tuple(fc.option(slugPrefix, { nil: undefined }), base62).map(([slug, short]) => (slug ? `${slug}-${short}` : short)) },
    { weight: 1, arbitrary: fc.uuid() },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        '-',
        'abc_def',
        'no such id!',
        'convert-more-',
        'A'.repeat(23),
        '9999999999999999999999',
        'HxECNQWFdpvuJxIw3HPrmH',
        'HxECNQWFdpvuJxIw3HPrmI',
        'nonexistent',
        '00000000-0000-0000-0000-000000000000',
        'ÄÖÜ',
        ' x',
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  );
}

// ── one value per input shape, as JSON text ──────────────────────────────────────────────────────────────────────

function docRaw(ctx: FuzzContext) {
  const mentionId = fc.oneof({ weight: 5, arbitrary: idRaw(ctx, true).map(text) }, { weight: 1, arbitrary: scalarJson });
  const node = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 40 }).map((t) => `{"type":"text","text":${text(t)}}`),
    fc.tuple(mentionId, fc.string({ maxLength: 12 })).map(([id, label]) => `{"type":"mention","attrs":{"id":${id},"label":${text(label)}}}`),
  );
  return fc.array(node, { maxLength: 4 }).map((nodes) => `{"type":"doc","content":[{"type":"paragraph","content":[${nodes.join(',')}]}]}`);
}

/** A rich-text input's raw string: mostly documents, and every string the service treats specially. */
function richRaw(ctx: FuzzContext) {
  return fc.oneof(
    { weight: 8, arbitrary: docRaw(ctx) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'null',
        '',
        ' ',
        'not json',
        '[]',
        '1',
        '"x"',
        'true',
        '{}',
        '{"type":"doc"}',
        '{"type":"doc","content":[]}',
        '{"type":"doc","content":"x"}',
        '{"__proto__":{"polluted":1},"type":"doc"}',
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 1, arbitrary: deepJson(ctx).map((deep) => `{"type":"doc","content":[${deep}]}`) },
    // Deep under a key the mention walk skips: only serializing the stored document meets the depth.
    { weight: 1, arbitrary: deepJson(ctx).map((deep) => `{"type":"doc","content":[],"attrs":${deep}}`) },
    { weight: 1, arbitrary: hugeRaw(ctx).map((huge) => `{"type":"doc","content":[{"type":"text","text":${text(huge)}}]}`) },
    // Wide rather than long: many small nodes cost far more kept than their JSON text (the session's byte budget).
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: Math.max(1, Math.floor(ctx.hugeLength / 3)) })
        .map((count) => `{"type":"doc","content":[${Array(count).fill('{}').join(',')}]}`),
    },
  );
}

function stringRaw(ctx: FuzzContext) {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('yes', 'no') },
    { weight: 2, arbitrary: fc.constantFrom('', ' ', '\t', '\n', 'maybe', 'null', 'YES') },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 1, arbitrary: hugeRaw(ctx) },
    // Around the longest success the real service's column holds (255 characters, counted as code points).
    {
      weight: 1,
      arbitrary: fc
        .record({ length: fc.integer({ min: 250, max: 260 }), unit: fc.constantFrom('y', '😀', 'é') })
        .map(({ length, unit }) => unit.repeat(length)),
    },
  );
}

function shapeJson(ctx: FuzzContext, field: InputField) {
  switch (field.kind) {
    case 'id':
      return fc.oneof({ weight: 8, arbitrary: idRaw(ctx).map(text) }, { weight: 1, arbitrary: garbageJson(ctx) });
    case 'id-list': {
      const item = fc.oneof(
        { weight: 6, arbitrary: idRaw(ctx, true).map(text) },
        { weight: 1, arbitrary: fc.constant('null') },
        { weight: 1, arbitrary: scalarJson },
      );
      return fc.oneof(
        { weight: 6, arbitrary: fc.array(item, { maxLength: 5 }).map((items) => `[${items.join(',')}]`) },
        { weight: 1, arbitrary: garbageJson(ctx) },
      );
    }
    case 'rich-text':
      return fc.oneof(
        { weight: 8, arbitrary: richRaw(ctx).map(text) },
        { weight: 1, arbitrary: docRaw(ctx) /* the object itself, not a string */ },
        { weight: 1, arbitrary: garbageJson(ctx) },
      );
    case 'enum': {
      const values = field.enumValues && field.enumValues.length > 0 ? field.enumValues : ['x'];
      return fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...values).map(text) },
        { weight: 1, arbitrary: fc.constantFrom(...values).map((v) => text(v.charAt(0).toUpperCase() + v.slice(1))) },
        { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }).filter(echoable(ctx)).map(text) },
        // Lists print as chardata (code points and strings), so they are valid enum input of a sort.
        {
          weight: 1,
          arbitrary: fc
            .array(fc.integer({ min: 0, max: 0x10ffff }), { minLength: 1, maxLength: 6 })
            .filter(echoableCodes(ctx))
            .map((codes) => JSON.stringify(codes)),
        },
        {
          weight: 1,
          arbitrary: fc
            .array(fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -3, max: 300 })), { minLength: 1, maxLength: 4 })
            .filter((items) => echoable(ctx)(items.map((i) => (typeof i === 'number' && i >= 0 ? String.fromCodePoint(i) : String(i))).join('') || 'x'))
            .map((items) => JSON.stringify(items)),
        },
        { weight: 2, arbitrary: garbageJson(ctx).filter(echoableJson(ctx)) },
      );
    }
    case 'boolean':
      return fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom('true', 'false') },
        { weight: 1, arbitrary: fc.constantFrom('"true"', '"false"', '0', '1', '"yes"') },
        { weight: 1, arbitrary: garbageJson(ctx) },
      );
    case 'string':
      return fc.oneof({ weight: 8, arbitrary: stringRaw(ctx).map(text) }, { weight: 1, arbitrary: garbageJson(ctx) });
    case 'other':
      return garbageJson(ctx);
  }
}

function fieldJson(ctx: FuzzContext, field: InputField) {
  return fc.oneof({ weight: 10, arbitrary: shapeJson(ctx, field) }, { weight: 1, arbitrary: fc.constant('null') }, { weight: 1, arbitrary: garbageJson(ctx) });
}

/**
 * A field's raw string as a form or query value would carry it. In a query string, huge values would only meet
 * Node's 16 KB limit on the request head (431, covered by reliability.test.ts), so the query gets ordinary sizes.
 */
function fieldRaw(ctx: FuzzContext, field: InputField, inQuery = false): fc.Arbitrary<string> {
  if (inQuery) return fieldRaw({ ...ctx, hugeLength: 100, maxDepth: Math.min(ctx.maxDepth, 100) }, field);
  switch (field.kind) {
    case 'id':
    case 'id-list':
      return idRaw(ctx, field.kind === 'id-list');
    case 'rich-text':
      return richRaw(ctx);
    case 'enum':
      return fc.oneof(fc.constantFrom(...(field.enumValues ?? ['x'])), fc.string({ maxLength: 10 }).filter(echoable(ctx)));
    case 'boolean':
      return fc.constantFrom('true', 'false', '', '1');
    case 'string':
      return stringRaw(ctx);
    case 'other':
      return fc.string({ maxLength: 10 });
  }
}

// ── keys that are not the operation's inputs ─────────────────────────────────────────────────────────────────────

function extraKey(ctx: FuzzContext) {
  const own = ctx.operation.fields.map((f) => f.name);
  const others = ctx.operations.flatMap((o) => o.fields.map((f) => f.name)).filter((n) => !own.includes(n));
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', '_json', '_format', 'name', 'id', ...others),
    },
    // Own names again: a duplicate key in JSON (the last one wins) or a key in another case.
    { weight: 2, arbitrary: fc.constantFrom(...own).chain((n) => fc.constantFrom(n, n.toUpperCase(), ` ${n}`, `${n}[]`)) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).filter(echoable(ctx)) },
  );
}

/** `_method` values that Plug.MethodOverride leaves alone (PUT, PATCH and DELETE are 'method-override'). */
function methodOverride(ctx: FuzzContext) {
  return ctx.include.has('method-override')
    ? fc.constantFrom('"PUT"', '"patch"', '"DELETE"', '"get"', '"POST"', '1')
    : fc.constantFrom('"get"', '"POST"', '"x"', '1', 'null');
}

// ── bodies ───────────────────────────────────────────────────────────────────────────────────────────────────────

type Body = { body: string | Buffer | undefined; contentType: string | undefined; kind: string };

function jsonObjectText(ctx: FuzzContext) {
  const fields = ctx.operation.fields.map((field) =>
    fc
      .option(fieldJson(ctx, field), { freq: field.required ? 8 : 2, nil: undefined })
      .map((value) => (value === undefined ? [] : [`${text(field.name)}:${value}`])),
  );
  const extras = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string[]>([]) },
    {
      weight: 2,
      arbitrary: fc.array(
        fc.tuple(extraKey(ctx), garbageJson(ctx)).map(([k, v]) => `${text(k)}:${v}`),
        { minLength: 1, maxLength: 3 },
      ),
    },
    { weight: 1, arbitrary: methodOverride(ctx).map((v) => [`"_method":${v}`]) },
  );
  return fc.tuple(fc.tuple(...fields), extras).map(([present, extra]) => `{${[...present.flat(), ...extra].join(',')}}`);
}

function formText(ctx: FuzzContext) {
  const pair = (field: InputField) =>
    fc.oneof(
      { weight: 6, arbitrary: fieldRaw(ctx, field).map((v): Array<[string, string]> => [[field.name, v]]) },
      { weight: 1, arbitrary: fc.array(fieldRaw(ctx, field), { maxLength: 3 }).map((vs): Array<[string, string]> => vs.map((v) => [`${field.name}[]`, v])) },
      { weight: 1, arbitrary: fieldRaw(ctx, field).map((v): Array<[string, string]> => [[`${field.name}[x]`, v]]) },
    );
  const fields = ctx.operation.fields.map((field) => fc.option(pair(field), { freq: field.required ? 6 : 2, nil: undefined }).map((p) => p ?? []));
  const extras = fc.oneof(
    { weight: 5, arbitrary: fc.constant<Array<[string, string]>>([]) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Array<[string, string]>>(
        [['__proto__[polluted]', '1']],
        [['constructor[prototype][polluted]', '1']],
        [['a[__proto__][polluted]', '1']],
        [['_method', 'get']],
        [['__proto__', 'x']],
      ),
    },
    { weight: 1, arbitrary: fc.array(fc.tuple(extraKey(ctx), fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 2 }) },
  );
  return fc.tuple(fc.tuple(...fields), extras).map(([present, extra]) => new URLSearchParams([...present.flat(), ...extra]).toString());
}

function bodyOf(ctx: FuzzContext) {
  const json =
    (kind: string) =>
    (body: string): Body => ({ body, contentType: 'application/json', kind });
  return fc.oneof(
    { weight: 14, arbitrary: jsonObjectText(ctx).map(json('json object')) },
    // Valid examples from the spec, so a good share of requests reaches the token, the lookup and the write.
    ...(ctx.operation.examples.length
      ? [{ weight: 6, arbitrary: fc.constantFrom(...ctx.operation.examples).map((e) => json('spec example')(JSON.stringify(e.value))) }]
      : []),
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc
            .jsonValue({ maxDepth: 2 })
            .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
            .map((v) => JSON.stringify(v) ?? 'null'),
          deepJson(ctx),
        )
        .map(json('json, not an object')),
    },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.constantFrom('', ' ', '\n\t', '{', '{"a":}', "{'a':1}", 'NaN', '[1,]', '{"a":1}}', '\ufeff{}', '{"a":"\\x"}', '{"a":"\\ud800"}', 'null null'),
          fc.string({ unit: 'grapheme', maxLength: 60 }),
          jsonObjectText(ctx).chain((t) => fc.integer({ min: 0, max: Math.max(0, t.length - 1) }).map((cut) => t.slice(0, cut))),
        )
        .map(json('not JSON')),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc.uint8Array({ minLength: 1, maxLength: 4 }).map((bad) => Uint8Array.from([...Buffer.from('{"success":"'), 0xff, ...bad, ...Buffer.from('"}')])),
        )
        .map((bytes): Body => ({ body: Buffer.from(bytes), contentType: 'application/json', kind: 'raw bytes' })),
    },
    { weight: 3, arbitrary: formText(ctx).map((body): Body => ({ body, contentType: 'application/x-www-form-urlencoded', kind: 'form' })) },
    { weight: 1, arbitrary: fc.constant<Body>({ body: undefined, contentType: undefined, kind: 'no body' }) },
  );
}

// ── headers, path and query ──────────────────────────────────────────────────────────────────────────────────────

const CONTENT_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'text/plain',
  'text/html',
  'application/xml',
  'foo',
  '',
  'application/',
  '*/*',
];

/** The body's own Content-Type most of the time; otherwise another (or none), so parsing and 415 get their share. */
const contentTypeChoice = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ matching: true as const }) },
  { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES).map((value) => ({ matching: false as const, value })) },
  { weight: 1, arbitrary: headerText(30).map((value) => ({ matching: false as const, value })) },
);

const ACCEPTS = [
  '*/*',
  'application/json',
  'application/*',
  'text/html',
  'text/plain',
  'text/*',
  'image/png',
  'application/json;q=0',
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'application/json, text/html',
  'text/html;q=0.1, application/json;q=0.2',
  'foo',
  '',
  ',,,',
  'application/json;q=abc',
];

function accept() {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.constantFrom(...ACCEPTS) },
    { weight: 1, arbitrary: headerText(40) },
  );
}

function authorization(ctx: FuzzContext) {
  const tokens = Object.values(ctx.tokens);
  const randomToken = fc.string({ unit: fc.constantFrom(...`${BASE62}-_`), minLength: 43, maxLength: 43 }).map((t) => `opk_${t}`);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    // The token that may write, often: it is the only way to the lookup, the write and the 200.
    { weight: 8, arbitrary: fc.constant(`Bearer ${ctx.tokens['full_access'] ?? tokens[0] ?? ''}`) },
    { weight: 6, arbitrary: fc.constantFrom(...tokens).map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: fc.constantFrom(...tokens) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...tokens)
        .chain((t) =>
          fc.constantFrom(
            `bearer ${t}`,
            `  Bearer    ${t}  `,
            `Bearer\t${t}`,
            `Token ${t}`,
            `Bearer ${t}x`,
            `Bearer ${t.slice(0, -1)}`,
            `Bearer ${t.toUpperCase()}`,
            `Bearer ${t} ${t}`,
          ),
        ),
    },
    { weight: 2, arbitrary: randomToken.map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: fc.constantFrom('Bearer', 'Bearer ', '', 'Basic dXNlcjpwYXNz', `Bearer opk_${'A'.repeat(5000)}`) },
    { weight: 1, arbitrary: headerText(60).map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: headerText(60) },
  );
}

/** `Prefer`, tagged with whether it forces an answer. Random garbage never contains `=`, so it forces nothing. */
function prefer(ctx: FuzzContext) {
  const statuses = [...ctx.operation.responses.keys()];
  const forcing = fc.oneof(
    fc.constantFrom(...statuses).map((s) => `code=${s}`),
    fc.integer({ min: 100, max: 599 }).map((s) => `code=${s}`),
    fc.constantFrom(...ctx.operation.responseExampleNames, 'nope').map((n) => `example=${n}`),
    fc.tuple(fc.constantFrom(...statuses), fc.constantFrom(...ctx.operation.responseExampleNames)).map(([s, n]) => `code=${s}, example=${n}`),
    fc.constantFrom('code=abc', 'code=2000', 'code=', 'delay=-1', 'delay=99999999', 'delay=abc'),
  );
  return fc.oneof(
    { weight: 20, arbitrary: fc.constant({ value: undefined, forced: false }) },
    { weight: 2, arbitrary: forcing.map((value) => ({ value, forced: true })) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }).map((ms) => ({ value: `delay=${ms}`, forced: false })) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom('return=minimal', 'respond-async', 'wait', ''),
          headerText(20).filter((s) => !s.includes('=')),
        )
        .map((value) => ({ value, forced: false })),
    },
  );
}

function pathOf(ctx: FuzzContext) {
  const path = ctx.operation.path;
  const segments = path.split('/').filter(Boolean);
  const variants = fc.oneof(
    { weight: 20, arbitrary: fc.constant(path) },
    // Percent-escaped names and malformed escapes reach no operation in production (mock/test/errors.test.ts pins
    // their exact answers), so the per-operation properties do not apply to them.
    { weight: 1, arbitrary: fc.constantFrom(`${path}/`, `/${segments.join('//')}`, `${path}//`, `${path}#fragment`, `/${path}`) },
  );
  const queryPair = fc.oneof(
    ...ctx.operation.fields.map((field) => fieldRaw(ctx, field, true).map((v): [string, string] => [field.name, v])),
    fc.constantFrom<[string, string]>(
      ['_format', 'json'],
      ['_format', 'html'],
      ['_format', ''],
      ['__proto__[polluted]', '1'],
      ['constructor[prototype][polluted]', '1'],
    ),
    fc.tuple(extraKey(ctx), fc.string({ maxLength: 8 })),
  );
  const query = fc.oneof(
    { weight: 8, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.array(queryPair, { minLength: 1, maxLength: 3 }).map((pairs) => `?${new URLSearchParams(pairs).toString()}`) },
  );
  return fc.tuple(variants, query).map(([p, q]) => (p.includes('#') ? p.replace('#', `${q}#`) : `${p}${q}`));
}

/** The names of a query string or form, as the service reads them (the part before any `[`). */
function formNames(text: string): Array<{ name: string; value: string }> {
  return [...new URLSearchParams(text)].map(([key, value]) => ({ name: /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key)?.[1] ?? key, value }));
}

/**
 * Whether a request reaches the spec's message pattern with text it cannot match ('message-pattern'): an empty input
 * name, or a line break in an input name or an enum value, from the query, a form or a JSON object. The generators
 * avoid these already; this catches what random bytes and mismatched Content-Types still produce.
 */
function reachesMessagePattern(ctx: FuzzContext, request: FuzzRequest): boolean {
  const enums = new Set(ctx.operation.fields.filter((f) => f.kind === 'enum').map((f) => f.name));
  const bad = (text: string): boolean => text === '' || LINE_BREAK.test(text);
  const pairs: Array<{ name: string; value: unknown }> = [];
  const query = request.path.split('#')[0]?.split('?')[1];
  if (query !== undefined) pairs.push(...formNames(query));
  const type = request.headers['content-type'] ?? '';
  const body = request.body === undefined ? '' : typeof request.body === 'string' ? request.body : request.body.toString('utf8');
  if (/^\s*application\/x-www-form-urlencoded\s*(;.*)?$/i.test(type)) pairs.push(...formNames(body));
  if (/^\s*application\/([\w.+-]+\+)?json\s*(;.*)?$/i.test(type)) {
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
        pairs.push(...Object.entries(parsed).map(([name, value]) => ({ name, value })));
    } catch {
      // not JSON: the endpoint's 400
    }
  }
  return pairs.some(({ name, value }) => bad(name) || (enums.has(name) && typeof value === 'string' && LINE_BREAK.test(value)));
}

/** Whole requests to `ctx.operation`. */
export function requestArbitrary(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      path: pathOf(ctx),
      body: bodyOf(ctx),
      contentType: contentTypeChoice,
      accept: accept(),
      authorization: authorization(ctx),
      prefer: prefer(ctx),
      origin: fc.oneof(
        { weight: 9, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom('http://localhost:5173', 'null', 'https://evil.example') },
      ),
      absolute: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      // Header values arrive trimmed, so a name is refused only if it is still bad after trimming.
      badSession: fc.oneof(
        { weight: 40, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc.oneof(
            fc.constantFrom('', ' ', 'no spaces please', 's'.repeat(65), 'a/b', 'ünï'),
            headerText(20).filter((n) => !/^[A-Za-z0-9._:-]{1,64}$/.test(n.trim())),
          ),
        },
      ),
    })
    .map((r) => {
      const headers: Record<string, string> = {};
      const type = r.contentType.matching ? r.body.contentType : r.contentType.value;
      if (type !== undefined) headers['content-type'] = type;
      if (r.accept !== undefined) headers['accept'] = r.accept;
      if (r.authorization !== undefined) headers['authorization'] = r.authorization;
      if (r.prefer.value !== undefined) headers['prefer'] = r.prefer.value;
      if (r.origin !== undefined) headers['origin'] = r.origin;
      const request: FuzzRequest = {
        operationId: ctx.operation.operationId,
        method: 'POST',
        path: r.path,
        headers,
        body: r.body.body,
        forced: r.prefer.forced,
        bodyKind: r.body.kind,
      };
      if (r.badSession !== undefined) request.badSession = r.badSession;
      if (r.absolute) request.absolute = true;
      return request;
    })
    .filter((request) => ctx.include.has('message-pattern') || !reachesMessagePattern(ctx, request));
}
