// Numbers as production writes them. Production encodes answers with Jason: an Elixir integer as its digits (`70`), an
// Elixir float with `:erlang.float_to_binary(f, [:short])` (Jason's `float/1`; `:io_lib_format.fwrite_g/1` before OTP 25,
// the same text): the shortest digits that read back to the same float, always with a fraction or an exponent, in
// whichever of the decimal and the scientific form is shorter (the decimal one on a tie): `70.0`, `5.2`, `100.0`,
// `2140.0`, but `1.2e3` for 1200.0 and `1.0e-5`. JSON.parse reads `70` and `70.0` alike, so only the raw bytes tell.
// Which fields are integers and which floats is the spec's (`type: integer` / `type: number`, from types.ex's
// `:integer` / `:float`); that float fields hold Elixir floats is the schemas' (`field :from, :float` in goals/target.ex,
// the embedded goal_target_updates; goal.ex progress_percentage divides with `/`, always a float, except the integer 0
// it returns for a goal without targets). The mock writes its answers with productionJson; the contract suite and the
// validation proxy check answers with numberFormViolations.
import { isObject, loadDocument, type JsonObject } from './openapi.ts';
import { violation, type Violation } from './violations.ts';

type NumberKind = 'integer' | 'float';

/** Jason's text for an Elixir float (erlang float_to_binary with [short]; io_lib_format insert_decimal/insert_exp). */
export function elixirFloat(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  const [mantissa = '0', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  return sign + insertDecimal(Number(exponent) + 1, digits);
}

function insertExp(exponent: string, digits: string): string {
  return digits.length === 1 ? `${digits}.0e${exponent}` : `${digits[0]}.${digits.slice(1)}e${exponent}`;
}

function insertDecimal(place: number, digits: string): string {
  if (place === 0) return `0.${digits}`;
  const length = digits.length;
  if (place > 0 && place < length) return `${digits.slice(0, place)}.${digits.slice(place)}`;
  const exponent = String(place - 1);
  const expCost = exponent.length + 1 + (length === 1 ? 2 : 1);
  if (place < 0) return 2 - place <= expCost ? `0.${'0'.repeat(-place)}${digits}` : insertExp(exponent, digits);
  return place - length + 2 <= expCost ? `${digits}${'0'.repeat(place - length)}.0` : insertExp(exponent, digits);
}

/** Per record type (`__typename`), and per `type.key` for the untyped records a typed one lists, its number fields. */
type NumberTable = { typed: Map<string, Map<string, NumberKind>>; listed: Map<string, Map<string, NumberKind>> };

let table: NumberTable | undefined;

function kindOf(schema: unknown, schemas: JsonObject, depth = 0): NumberKind | undefined {
  if (!isObject(schema) || depth > 8) return undefined;
  const ref = schema['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) return kindOf(schemas[ref.slice(21)], schemas, depth + 1);
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    const list = schema[key];
    if (Array.isArray(list))
      for (const branch of list) {
        const kind = kindOf(branch, schemas, depth + 1);
        if (kind) return kind;
      }
  }
  const type = schema['type'];
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'float';
  return undefined;
}

function propertiesOf(schema: unknown): JsonObject {
  return isObject(schema) && isObject(schema['properties']) ? schema['properties'] : {};
}

function typenameOf(schema: unknown): string | undefined {
  const tag = propertiesOf(schema)['__typename'];
  return isObject(tag) && typeof tag['const'] === 'string' ? tag['const'] : undefined;
}

/** The spec's number fields, by the record that holds them (read once from generated/openapi.json). */
export function numberTable(): NumberTable {
  if (table) return table;
  const components = loadDocument()['components'];
  const schemas = isObject(components) && isObject(components['schemas']) ? components['schemas'] : {};
  const fields = new Map<string, Map<string, NumberKind>>();
  for (const [name, schema] of Object.entries(schemas)) {
    const kinds = new Map<string, NumberKind>();
    for (const [key, property] of Object.entries(propertiesOf(schema))) {
      const kind = kindOf(property, schemas);
      if (kind) kinds.set(key, kind);
    }
    if (kinds.size > 0) fields.set(name, kinds);
  }
  const typed = new Map<string, Map<string, NumberKind>>();
  const listed = new Map<string, Map<string, NumberKind>>();
  for (const [name, schema] of Object.entries(schemas)) {
    const typename = typenameOf(schema);
    if (typename === undefined) continue;
    const own = fields.get(name);
    if (own) typed.set(typename, own);
    // An untyped record this one holds (goal_progress_update.goal_target_updates[]): its fields by `type.key`.
    for (const [key, property] of Object.entries(propertiesOf(schema))) {
      const items = isObject(property) && isObject(property['items']) ? property['items'] : property;
      const ref = isObject(items) ? items['$ref'] : undefined;
      if (typeof ref !== 'string' || !ref.startsWith('#/components/schemas/')) continue;
      const target = ref.slice(21);
      const theirs = fields.get(target);
      if (theirs && typenameOf(schemas[target]) === undefined) listed.set(`${typename}.${key}`, theirs);
    }
  }
  table = { typed, listed };
  return table;
}

/** The kind of number the field `key` of `holder` holds; `parent` is the typed record that lists an untyped holder. */
function fieldKind(holder: JsonObject, key: string, parent: { typename: string; key: string } | undefined): NumberKind | undefined {
  const { typed, listed } = numberTable();
  const typename = holder['__typename'];
  if (typeof typename === 'string') return typed.get(typename)?.get(key);
  return parent ? listed.get(`${parent.typename}.${parent.key}`)?.get(key) : undefined;
}

/** Floats that hold whole or scientific-form values somewhere in `value`: whether productionJson must rewrite any. */
function marksFloats(value: unknown, parent: { typename: string; key: string } | undefined, mark: (n: number) => string, depth: number): unknown {
  if (depth > 64) return value;
  if (Array.isArray(value)) return value.map((item) => marksFloats(item, parent, mark, depth + 1));
  if (!isObject(value)) return value;
  const typename = typeof value['__typename'] === 'string' ? value['__typename'] : undefined;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    let next: unknown;
    if (typeof child === 'number' && fieldKind(value, key, parent) === 'float' && elixirFloat(child) !== JSON.stringify(child)) next = mark(child);
    else next = marksFloats(child, typename ? { typename, key } : parent, mark, depth + 1);
    Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Records whose answers may hold a float field (a quick test before the walk). */
const MAY_HOLD_FLOATS = /"(?:progress_percentage|from|to|value|previous_value)":-?\d/;
const MARK = '\u0000elixir-float\u0000';
const MARKED = /"\\u0000elixir-float\\u0000([-+.\deE]+)\\u0000elixir-float\\u0000"/g;

/** JSON text of `value` as Jason writes it: JSON.stringify's, but every float field in production's float form. */
export function productionJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (typeof text !== 'string' || !MAY_HOLD_FLOATS.test(text)) return text;
  let marked = false;
  const rewritten = marksFloats(
    value,
    undefined,
    (n) => {
      marked = true;
      return `${MARK}${String(n)}${MARK}`;
    },
    0,
  );
  if (!marked) return text;
  return JSON.stringify(rewritten).replace(MARKED, (_all, n: string) => elixirFloat(Number(n)));
}

/** One number of a JSON text: where it is and its text as written. */
type RawNumber = { path: Array<string | number>; raw: string };

/** The numbers of a JSON text with their paths and raw text; undefined when the text is not JSON or too deep. */
function rawNumbers(text: string, maxDepth = 64): RawNumber[] | undefined {
  const out: RawNumber[] = [];
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] ?? '')) i++;
  };
  const str = (): string | undefined => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) return undefined;
    i++;
    try {
      const parsed: unknown = JSON.parse(text.slice(start, i));
      return typeof parsed === 'string' ? parsed : undefined;
    } catch {
      return undefined;
    }
  };
  const value = (path: Array<string | number>): boolean => {
    if (path.length > maxDepth) return false;
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return i++ > -1;
      for (;;) {
        ws();
        if (text[i] !== '"') return false;
        const key = str();
        if (key === undefined) return false;
        ws();
        if (text[i++] !== ':') return false;
        if (!value([...path, key])) return false;
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        return text[i++] === '}';
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return i++ > -1;
      for (let index = 0; ; index++) {
        if (!value([...path, index])) return false;
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        return text[i++] === ']';
      }
    }
    if (c === '"') return str() !== undefined;
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?)/.exec(text.slice(i, i + 400))?.[0];
    if (!literal) return false;
    if (literal !== 'true' && literal !== 'false' && literal !== 'null') out.push({ path, raw: literal });
    i += literal.length;
    return true;
  };
  if (!value([])) return undefined;
  ws();
  return i === text.length ? out : undefined;
}

/** The record at `path` of a parsed answer and the typed record that lists it, for the number at `path`. */
function holderAt(
  json: unknown,
  path: ReadonlyArray<string | number>,
): { holder: JsonObject; parent: { typename: string; key: string } | undefined } | undefined {
  let current: unknown = json;
  let parent: { typename: string; key: string } | undefined;
  for (const step of path.slice(0, -1)) {
    if (isObject(current) && typeof step === 'string') {
      const typename = current['__typename'];
      if (typeof typename === 'string') parent = { typename, key: step };
      current = current[step];
    } else if (Array.isArray(current) && typeof step === 'number') current = current[step];
    else return undefined;
  }
  return isObject(current) ? { holder: current, parent } : undefined;
}

/**
 * Every number of an answer's raw text that production would write otherwise (RULES.md#numbers): an integer field
 * with a fraction or an exponent (`70.0` for 70), a float field not in Jason's form (`70` or `7e1` for 70.0; a goal's
 * progress_percentage may be the integer `0`, goal.ex's value for a goal without targets). `text` is the body as
 * received; `json` the same body parsed.
 */
export function numberFormViolations(text: string, json: unknown, at: ReadonlyArray<string | number> = ['response', 'body']): Violation[] {
  const numbers = rawNumbers(text);
  if (!numbers) return [];
  const out: Violation[] = [];
  for (const { path, raw } of numbers) {
    const key = path.at(-1);
    if (typeof key !== 'string') continue;
    const found = holderAt(json, path);
    if (!found) continue;
    const kind = fieldKind(found.holder, key, found.parent);
    const value = Number(raw);
    if (kind === 'integer' && !/^-?\d+$/.test(raw))
      out.push(
        violation(
          [...at, ...path],
          'form.number',
          `${key} is an integer field (:integer in types.ex), which production writes as digits (Jason: Integer.to_string), like ${Number.isInteger(value) ? String(value) : '70'}; got ${raw} (RULES.md#numbers)`,
        ),
      );
    if (kind === 'float') {
      const expected = elixirFloat(value);
      const integerZero = key === 'progress_percentage' && raw === '0';
      if (raw !== expected && !integerZero)
        out.push(
          violation(
            [...at, ...path],
            'form.number',
            `${key} is a float field (:float in types.ex), which production writes as Jason writes an Elixir float, always with a fraction or an exponent: ${expected}; got ${raw} (RULES.md#numbers)`,
          ),
        );
    }
  }
  return out;
}
