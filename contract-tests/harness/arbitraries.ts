// fast-check arbitraries derived from an operation model: valid bodies (every optional field absent, null or set;
// the target id in any accepted form) and bodies with exactly one defect, each with production's answer. Object
// values only use common key names: production converts every key, nested ones too, to an existing atom first and
// answers 500 otherwise (RULES.md#decoding).
import fc from 'fast-check';
import type { JsonObject } from '../../spec/lib/openapi.ts';
import { either, one, type Answers, type Expectation } from '../model/expected.ts';
import { decodeId, shortIdOf } from '../model/id-model.ts';
import { printed } from '../model/inputs.ts';
import type { FieldModel, OperationModel } from '../model/profiles.ts';

/** A body with one defect, and production's answer with and without a valid token. */
export type Defect = { field: string; value: unknown; expect: (withToken: boolean) => Expectation };

const objectValue = fc.constantFrom<unknown>({ id: 'x' }, { type: 'doc' }, { value: true }, { name: 'x' });
const isJsonText = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
const text = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 12 }));

/** What production answers to an id string, by the id model (ids.ts). */
function idAnswer(a: Answers, field: string, id: string): (withToken: boolean) => Expectation {
  const decoded = decodeId(id);
  if (decoded.kind === 'null') return () => one(a.nullField(field));
  if (decoded.kind === 'undecodable') return () => one(a.undecodable);
  if (decoded.kind === 'crash') return () => one(a.decodingCrash);
  return (withToken) => one(withToken ? a.notFound : a.unauthorized);
}

function wrongValue(field: FieldModel, a: Answers): fc.Arbitrary<Defect> | undefined {
  const fixed = (arb: fc.Arbitrary<unknown>, expectation: Expectation): fc.Arbitrary<Defect> =>
    arb.map((value) => ({ field: field.name, value, expect: () => expectation }));
  switch (field.kind) {
    case 'string':
      return fixed(fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), objectValue), one(a.unknownType('string')));
    case 'boolean':
      return fixed(fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.array(fc.boolean(), { maxLength: 2 }), objectValue), one(a.unknownType('boolean')));
    case 'enum': {
      const values = field.enumValues ?? [];
      const name = field.enumName ?? field.name;
      // "nil" would become the atom nil, which prints as nothing: left out (its answer is not the same kind).
      const scalar = fc.oneof(
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,15}$/).filter((s) => !values.includes(s) && s !== 'nil'),
        fc.integer({ min: -100_000, max: 100_000 }),
        fc.boolean(),
      );
      return fc.oneof(
        scalar.map((value) => ({ field: field.name, value, expect: () => one(a.invalidEnum(name, printed(value), values)) })),
        fixed(objectValue, one(a.decodingCrash)),
      );
    }
    case 'id': {
      const nearly = fc.tuple(fc.stringMatching(/^[a-z0-9-]{0,12}$/), fc.stringMatching(/^[A-Za-z0-9]{0,25}$/)).map(([slug, short]) => `${slug}-${short}`);
      const strings = fc.oneof(text, nearly).map((id) => ({ field: field.name, value: id, expect: idAnswer(a, field.name, id) }));
      return fc.oneof(
        strings,
        fixed(fc.oneof(fc.integer(), fc.boolean(), objectValue, fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 })), one(a.decodingCrash)),
      );
    }
    case 'rich-text': {
      // Not JSON at all (a backslash is left out: JavaScript and the server disagree about lone surrogate escapes).
      const notJson = text.filter((s) => !s.includes('\\') && !isJsonText(s));
      return fc.oneof(fixed(notJson, one(a.decodingCrash)), fixed(fc.oneof(fc.integer(), fc.boolean(), objectValue), one(a.decodingCrash)));
    }
    case 'id-list': {
      const undecodable = fc.string({ maxLength: 10 }).map((s) => `${s}!`);
      return fc.oneof(
        fixed(fc.array(undecodable, { minLength: 1, maxLength: 3 }), one(a.undecodable)),
        fixed(fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), objectValue), one(a.decodingCrash)),
      );
    }
    default:
      return undefined;
  }
}

/** A valid body with exactly one field made wrong, or one unknown field added. */
export function defects(op: OperationModel, a: Answers): fc.Arbitrary<Defect> {
  const declared = new Set(op.fields.map((f) => f.name));
  const unknown = fc
    .stringMatching(/^[a-z][a-z0-9_]{0,20}$/)
    .filter((name) => !declared.has(name))
    .map((name): Defect => ({ field: name, value: 1, expect: () => either(a.unknownField(name), a.decodingCrash) }));
  const wrong = op.fields.map((f) => wrongValue(f, a)).filter((arb): arb is fc.Arbitrary<Defect> => arb !== undefined);
  return fc.oneof(unknown, ...wrong);
}

/** A rich-text document, as the JSON string the API takes. */
const richText = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
  .map((words) => JSON.stringify({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: words }] }] }));

/** The forms of one record id the service accepts: as given, bare short id, UUID in either case, any slug. */
function idForms(id: string): fc.Arbitrary<string> {
  const decoded = decodeId(id);
  if (decoded.kind !== 'uuid') return fc.constant(id);
  const short = shortIdOf(decoded.uuid);
  return fc.oneof(
    fc.constant(id),
    fc.constant(short),
    fc.constantFrom(decoded.uuid, decoded.uuid.toUpperCase()),
    fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}$/).map((slug) => `${slug}-${short}`),
  );
}

function validValue(field: FieldModel, targetId: string, targetField: string): fc.Arbitrary<unknown> | undefined {
  switch (field.kind) {
    case 'id':
      return field.name === targetField ? idForms(targetId) : undefined;
    case 'rich-text':
      return richText;
    case 'string':
      return fc.oneof(
        fc.constantFrom('yes', 'no'),
        fc.string({ minLength: 1, maxLength: 20 }).filter((s) => /\S/.test(s)),
      );
    case 'enum':
      return fc.constantFrom(...(field.enumValues ?? []));
    case 'boolean':
      return fc.boolean();
    case 'id-list':
      // People ids of the server under test are not known: an empty list is the portable valid value.
      return fc.constant([]);
    default:
      return undefined;
  }
}

/** Valid bodies for the operation's target record: optional fields absent, null (when nullable) or set. */
export function validBodies(op: OperationModel, targetId: string): fc.Arbitrary<JsonObject> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of op.fields) {
    const value = validValue(field, targetId, op.targetField);
    if (!value) {
      if (field.required) throw new Error(`cannot generate the required field ${op.operationId}.${field.name} (${field.kind})`);
      continue;
    }
    shape[field.name] = field.nullable ? fc.oneof(value, fc.constant(null)) : value;
  }
  return fc.record(shape, { requiredKeys: op.required });
}
