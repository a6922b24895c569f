// Wrong inputs and production's answer to each, derived from a field's kind (operations.ts), following
// transport-auth-errors.md "The decoding steps, in order" and its error table. Used by the validation table and by
// the property tests, so both predict the same answers.
import type { Answers, Expectation } from './expected.ts';
import { either, one } from './expected.ts';
import type { FieldModel } from './operations.ts';

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
  const table = 'transport-auth-errors.md, error table';
  switch (field.kind) {
    case 'string':
      return [42, true, { text: 'yes' }, ['yes']].map((value) => ({ label: `a ${Array.isArray(value) ? 'list' : typeof value}`, value, expectation: one(a.unknownType('string')), source: `${table} #14` }));
    case 'boolean':
      return ['true', 1, { value: true }, [true]].map((value) => ({ label: typeof value === 'string' ? 'the string "true"' : `a ${Array.isArray(value) ? 'list' : typeof value}`, value, expectation: one(a.unknownType('boolean')), source: `${table} #15` }));
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
        { label: 'an object', value: { value: first }, expectation: one(a.decodingCrash), source: 'transport-auth-errors.md, The decoding steps (enum)' },
      ];
    }
    case 'id':
      return [
        { label: 'a number', value: 42, expectation: one(a.decodingCrash), source: `${table} #18` },
        { label: 'a boolean', value: true, expectation: one(a.decodingCrash), source: `${table} #18` },
        { label: 'an object', value: { id: 'x' }, expectation: one(a.decodingCrash), source: `${table} #18` },
        { label: 'an id ending in a dash', value: 'some-record-', expectation: one(a.decodingCrash), source: `${table} #18` },
        { label: 'an id with a character outside base 62', value: 'not an id!', expectation: one(a.notFound), source: `${table} #17` },
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
        { label: 'a list holding an undecodable id', value: ['not an id!'], expectation: one(a.notFound), source: `${table} #17` },
      ];
    default:
      return [];
  }
}

/** An unknown field: 400 `Unknown input field` or production's alternative 500 (REFERENCE.md decision 2). */
export function unknownFieldAnswer(name: string, a: Answers): Expectation {
  return either(a.unknownField(name), a.decodingCrash);
}
