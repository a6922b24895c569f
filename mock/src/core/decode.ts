// The input decoder of the real service (TurboConnect ParseInputs, RULES.md#transport "Request decoding and
// validation"), driven by the operation's request schema in generated/openapi.json: the field list, kinds,
// required and nullable flags all come from the spec, never from a list written here.
import { operationModels, type FieldModel } from '../../../spec/lib/operations.ts';
import { decodeId } from '../domain/ids.ts';
import * as errors from '../answers/errors.ts';

/** The declared inputs of an operation, in declaration order (spec/lib/operations.ts). */
export type InputSpec = ReadonlyArray<FieldModel>;

export type Decoded = { ok: true; inputs: Record<string, unknown> } | { ok: false; error: errors.ErrorReply };

/** The inputs of the operation whose request body schema is at `schemaPointer` (as in spec/lib/operations.ts). */
export function inputSpecFrom(document: Parameters<typeof operationModels>[0], schemaPointer: string): InputSpec {
  const model = operationModels(document).find((m) => m.requestSchemaPointer === schemaPointer);
  if (!model) throw new Error(`no operation has its request body schema at ${schemaPointer}`);
  return model.fields;
}

/** How Elixir prints a decoded JSON value in "#{value}" (String.Chars); undefined where that raises. */
function elixirToString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value).replace('e+', 'e');
  if (!Array.isArray(value)) return undefined;
  // A list prints as chardata: strings and code points, nested to any depth; anything else raises. Walked with an
  // explicit stack, since a hostile value can nest deeper than the call stack.
  let out = '';
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) for (let i = item.length - 1; i >= 0; i--) stack.push(item[i]);
    else if (typeof item === 'string') out += item;
    else if (typeof item === 'number' && Number.isInteger(item) && item >= 0 && item <= 0x10ffff) out += String.fromCodePoint(item);
    else return undefined;
  }
  return out;
}

type FieldResult = { ok: true; value: unknown } | { ok: false; error: errors.ErrorReply };

function decodeField(field: FieldModel, raw: unknown): FieldResult {
  switch (field.kind) {
    case 'id': {
      const id = decodeId(raw);
      if (id.kind === 'invalid') return { ok: false, error: errors.UNDECODABLE_ID };
      if (id.kind === 'crash') return { ok: false, error: errors.DECODING_CRASH };
      return { ok: true, value: id.kind === 'uuid' ? id.uuid : null };
    }
    case 'id-list': {
      if (raw === null) return { ok: true, value: [] };
      if (!Array.isArray(raw)) return { ok: false, error: errors.DECODING_CRASH };
      const ids: Array<string | null> = [];
      for (const item of raw) {
        if (item === null) {
          ids.push(null); // kept: elements are not null-checked; the operation fails later (500)
          continue;
        }
        const id = decodeId(item);
        if (id.kind === 'invalid') return { ok: false, error: errors.UNDECODABLE_ID };
        if (id.kind !== 'uuid') return { ok: false, error: errors.DECODING_CRASH };
        ids.push(id.uuid);
      }
      return { ok: true, value: ids };
    }
    case 'rich-text': {
      if (raw === null) return { ok: true, value: null };
      // A non-string, or a string that is not JSON, makes Json.decode return a 3-tuple that ParseInputs does not
      // match: a CaseClauseError, so the framework's 500.
      if (typeof raw !== 'string') return { ok: false, error: errors.DECODING_CRASH };
      try {
        const parsed: unknown = JSON.parse(raw);
        return { ok: true, value: parsed };
      } catch {
        return { ok: false, error: errors.DECODING_CRASH };
      }
    }
    case 'string':
      if (raw === null || typeof raw === 'string') return { ok: true, value: raw };
      return { ok: false, error: errors.UNKNOWN_INPUT_TYPE('string') };
    case 'boolean':
      if (raw === null || typeof raw === 'boolean') return { ok: true, value: raw };
      return { ok: false, error: errors.UNKNOWN_INPUT_TYPE('boolean') };
    case 'enum': {
      if (raw === null) return { ok: true, value: null };
      const values = field.enumValues ?? [];
      if (typeof raw === 'string' && values.includes(raw)) return { ok: true, value: raw };
      const printed = elixirToString(raw);
      if (printed === undefined) return { ok: false, error: errors.DECODING_CRASH };
      return { ok: false, error: errors.INVALID_ENUM_VALUE(field.enumName ?? field.name, printed, values) };
    }
    case 'other':
      // The spec gives this input no kind the service decodes; it is taken as sent.
      return { ok: true, value: raw };
  }
}

/**
 * Decodes the supplied parameters. Keys are visited in Erlang's order for small maps (sorted), and the first error
 * answers. Production answers an unknown key with 400 or 500 depending on whether the name is a known atom; the mock
 * always gives the 400 (RULES.md#decision-2). Whether required fields are missing is the next step's question
 * (pipeline.ts, step 8), as RequiredFieldValidator runs after authentication in production.
 */
const FIELDS_BY_NAME = new WeakMap<InputSpec, Map<string, FieldModel>>();

export function decodeInputs(spec: InputSpec, params: Record<string, unknown>): Decoded {
  let byName = FIELDS_BY_NAME.get(spec);
  if (!byName) {
    byName = new Map(spec.map((f) => [f.name, f]));
    FIELDS_BY_NAME.set(spec, byName);
  }
  const inputs: Record<string, unknown> = {};
  for (const key of Object.keys(params).sort()) {
    const field = byName.get(key);
    if (!field) return { ok: false, error: errors.UNKNOWN_INPUT_FIELD(key) };
    const result = decodeField(field, params[key]);
    if (!result.ok) return result;
    if (result.value === null && !field.nullable) return { ok: false, error: errors.NULL_FIELD(key) };
    inputs[key] = result.value;
  }
  return { ok: true, inputs };
}
