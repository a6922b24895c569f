// Wrong inputs and production's answer to each, derived from a field's kind (operations.ts), following
// RULES.md#decoding and its error table. Used by the validation table and by
// the property tests, so both predict the same answers.
import type { Answers, Expectation } from './expected.ts';
import { either, one } from './expected.ts';
import { decodeId } from './id-model.ts';
import type { FieldModel } from './profiles.ts';

export type WrongInput = { label: string; value: unknown; expectation: Expectation; source: string };

/** How production prints an enum value it rejects: raw (`Achieved`, `5`, `true`). */
export function printed(value: string | number | boolean): string {
  return String(value);
}

/** The first enum value with its first letter's case flipped: still wrong, because matching is case-sensitive. */
export function caseVariant(value: string): string {
  const first = value.charAt(0);
  const flipped = first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase();
  return flipped + value.slice(1);
}

/** Values of the wrong type (or shape) for a field, with production's exact answer to each. */
export function wrongInputs(field: FieldModel, a: Answers): WrongInput[] {
  const table = 'RULES.md#error-table';
  switch (field.kind) {
    case 'string':
      return [42, true, { text: 'yes' }, ['yes']].map((value) => ({
        label: `a ${Array.isArray(value) ? 'list' : typeof value}`,
        value,
        expectation: one(a.unknownType('string')),
        source: `${table} #14`,
      }));
    case 'boolean':
      return ['true', 1, { value: true }, [true]].map((value) => ({
        label: typeof value === 'string' ? 'the string "true"' : `a ${Array.isArray(value) ? 'list' : typeof value}`,
        value,
        expectation: one(a.unknownType('boolean')),
        source: `${table} #15`,
      }));
    case 'enum': {
      const values = field.enumValues ?? [];
      const name = field.enumName ?? field.name;
      const first = values[0] ?? 'value';
      const scalars: Array<{ label: string; value: string | number | boolean }> = [
        { label: `"${caseVariant(first)}" (matching is case-sensitive)`, value: caseVariant(first) },
        { label: 'a number', value: 5 },
        { label: 'a boolean', value: true },
      ];
      return [
        ...scalars.map(({ label, value }) => ({ label, value, expectation: one(a.invalidEnum(name, printed(value), values)), source: `${table} #16` })),
        { label: 'an object', value: { value: first }, expectation: one(a.decodingCrash), source: 'RULES.md#decoding' },
      ];
    }
    case 'id':
      return [
        { label: 'a number', value: 42, expectation: one(a.decodingCrash), source: `${table} #18` },
        { label: 'a boolean', value: true, expectation: one(a.decodingCrash), source: `${table} #18` },
        { label: 'an object', value: { id: 'x' }, expectation: one(a.decodingCrash), source: `${table} #18` },
        { label: 'an id ending in a dash', value: 'some-record-', expectation: one(a.decodingCrash), source: `${table} #18` },
        { label: 'an id with a character outside base 62', value: 'not an id!', expectation: one(a.undecodable), source: `${table} #17` },
        { label: 'the empty string (it counts as null)', value: '', expectation: one(a.nullField(field.name)), source: `${table} #13` },
      ];
    case 'rich-text':
      return [
        { label: 'an object instead of a JSON string', value: { type: 'doc', content: [] }, expectation: one(a.decodingCrash), source: `${table} #19` },
        { label: 'a number', value: 42, expectation: one(a.decodingCrash), source: `${table} #19` },
        { label: 'a string that is not JSON', value: 'We did it!', expectation: one(a.decodingCrash), source: `${table} #19` },
        { label: 'the string "null" (it counts as null)', value: 'null', expectation: one(a.nullField(field.name)), source: `${table} #13` },
      ];
    case 'id-list':
      return [
        { label: 'a string instead of a list', value: 'bob', expectation: one(a.decodingCrash), source: `${table} #20` },
        { label: 'an object instead of a list', value: { id: 'x' }, expectation: one(a.decodingCrash), source: `${table} #20` },
        { label: 'a list holding an undecodable id', value: ['not an id!'], expectation: one(a.undecodable), source: `${table} #17` },
      ];
    default:
      return [];
  }
}

/** An unknown field: its 400 (RULES.md#error-11) or production's alternative 500 (RULES.md#decision-2). */
export function unknownFieldAnswer(name: string, a: Answers): Expectation {
  return either(a.unknownField(name), a.decodingCrash);
}

/**
 * What production does with one input value before the token is read, by the same rules as `wrongInputs` (the
 * decoding steps of RULES.md#transport; selftest/predict.test.ts holds the two together):
 * - `valid`: decoded; `refers` when it names other records (a mention, a person to subscribe) that may not exist, so
 *   the operation may still fail with 500 after the token;
 * - `rejected`: answered before the token, with this expectation;
 * - `fails`: decoded, but the operation fails after the token (500; RULES.md#error-table, the service's body);
 * - `unknown`: a value the suite's model does not cover.
 */
export type InputVerdict =
  | { kind: 'valid'; refers: boolean }
  | { kind: 'rejected'; expectation: Expectation; source: string }
  | { kind: 'fails'; source: string }
  | { kind: 'unknown' };

const TABLE = 'RULES.md#error-table';
const valid: InputVerdict = { kind: 'valid', refers: false };
const rejected = (expectation: Expectation, source: string): InputVerdict => ({ kind: 'rejected', expectation, source });

/** Whether a rich-text document mentions anyone (every mentioned person is looked up and subscribed). */
function mentions(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentions);
  if (typeof node !== 'object' || node === null) return false;
  return Object.entries(node).some(([key, value]) => (key === 'type' && value === 'mention') || mentions(value));
}

/** Production's treatment of `value` in `field` (see InputVerdict). `fitsSchema` says whether the field's own schema accepts it. */
export function inputVerdict(field: FieldModel, value: unknown, a: Answers, fitsSchema: (value: unknown) => boolean): InputVerdict {
  if (value === null) return field.nullable ? valid : rejected(one(a.nullField(field.name)), `${TABLE} #13`);
  switch (field.kind) {
    case 'string':
      if (typeof value !== 'string') return rejected(one(a.unknownType('string')), `${TABLE} #14`);
      return fitsSchema(value)
        ? valid
        : { kind: 'fails', source: `a ${field.name} the spec refuses (${JSON.stringify(value)}) makes the operation fail after the token (RULES.md#error-26)` };
    case 'boolean':
      return typeof value === 'boolean' ? valid : rejected(one(a.unknownType('boolean')), `${TABLE} #15`);
    case 'enum': {
      const values = field.enumValues ?? [];
      if (typeof value === 'string' && values.includes(value)) return valid;
      if (typeof value === 'object') return Array.isArray(value) ? { kind: 'unknown' } : rejected(one(a.decodingCrash), 'RULES.md#decoding');
      // "nil" becomes the atom nil, and a fraction prints in Elixir's own way: not modelled.
      if (value === 'nil' || (typeof value === 'number' && !Number.isInteger(value))) return { kind: 'unknown' };
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return { kind: 'unknown' };
      return rejected(one(a.invalidEnum(field.enumName ?? field.name, printed(value), values)), `${TABLE} #16`);
    }
    case 'id': {
      if (typeof value !== 'string') return rejected(one(a.decodingCrash), `${TABLE} #18`);
      const decoded = decodeId(value);
      if (decoded.kind === 'null') return rejected(one(a.nullField(field.name)), `${TABLE} #13`);
      if (decoded.kind === 'undecodable') return rejected(one(a.undecodable), `${TABLE} #17`);
      if (decoded.kind === 'crash') return rejected(one(a.decodingCrash), `${TABLE} #18`);
      return valid;
    }
    case 'rich-text': {
      if (typeof value !== 'string') return rejected(one(a.decodingCrash), `${TABLE} #19`);
      let document: unknown;
      try {
        document = JSON.parse(value);
      } catch {
        return rejected(one(a.decodingCrash), `${TABLE} #19`);
      }
      if (document === null) return field.nullable ? valid : rejected(one(a.nullField(field.name)), `${TABLE} #13`);
      if (typeof document !== 'object' || Array.isArray(document))
        return { kind: 'fails', source: `a ${field.name} that is JSON but not a document makes the operation fail after the token (RULES.md#error-26)` };
      return { kind: 'valid', refers: mentions(document) };
    }
    case 'id-list': {
      if (!Array.isArray(value)) return rejected(one(a.decodingCrash), `${TABLE} #20`);
      let refers = false;
      for (const item of value) {
        if (item === null) return { kind: 'fails', source: `null in ${field.name} makes the operation fail after the token (RULES.md#error-26)` };
        if (typeof item !== 'string') return { kind: 'unknown' };
        const decoded = decodeId(item);
        if (decoded.kind === 'undecodable') return rejected(one(a.undecodable), `${TABLE} #17`);
        if (decoded.kind === 'crash') return rejected(one(a.decodingCrash), `${TABLE} #18`);
        if (decoded.kind !== 'uuid') return { kind: 'unknown' };
        refers = true;
      }
      return { kind: 'valid', refers };
    }
    default:
      return { kind: 'unknown' };
  }
}
