// The precompiled response validators (generated/response-validators.js) against Ajv compiling the same schemas from
// the bundled document: the same verdict on every documented example and on thousands of broken copies of them. The
// generator rewrites Ajv's standalone code (no annotations, no error contexts, no error objects); a rewrite that
// changed a verdict fails here.
import { describe, expect, it } from 'vitest';
import { validators } from '../../generated/response-validators.js';
import { isObject, loadDocument } from '../lib/openapi.ts';
import { createSchemaValidator } from '../lib/ajv.ts';
import { operationModels, responseExamples } from '../lib/operations.ts';
import { responseSchemaPointer } from '../lib/openapi.ts';

const document = loadDocument();
const detailed = createSchemaValidator(document);

/** Every example with the pointer of the schema it is documented under. */
function examples(): Array<{ pointer: string; label: string; value: unknown }> {
  const out: Array<{ pointer: string; label: string; value: unknown }> = [];
  for (const model of operationModels(document)) {
    for (const example of responseExamples(model, document)) {
      const pointer = responseSchemaPointer(document, model.pointer, example.status, example.mediaType);
      if (pointer && pointer in validators)
        out.push({ pointer, label: `${model.operationId} ${example.status} ${example.name ?? 'example'}`, value: example.value });
    }
  }
  return out;
}

/** Copies of `value`, each broken in one place: a key removed, a value of another type, a string no enum holds. */
function* broken(value: unknown, path: ReadonlyArray<string | number> = []): Generator<{ where: string; value: unknown }> {
  const at = (replace: (node: unknown) => unknown): unknown => {
    const copy = structuredClone(value);
    return replace(copy);
  };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const inner of broken(value[i], [...path, i]))
        yield { where: inner.where, value: at((copy) => Object.assign(copy as unknown[], { [i]: inner.value })) };
    }
    yield { where: `/${path.join('/')} as an object`, value: {} };
    return;
  }
  if (isObject(value)) {
    for (const key of Object.keys(value)) {
      yield {
        where: `/${[...path, key].join('/')} removed`,
        value: at((copy) => {
          delete (copy as Record<string, unknown>)[key];
          return copy;
        }),
      };
      for (const inner of broken(value[key], [...path, key]))
        yield { where: inner.where, value: at((copy) => Object.assign(copy as Record<string, unknown>, { [key]: inner.value })) };
    }
    yield { where: `/${path.join('/')} as an array`, value: [] };
    return;
  }
  const where = `/${path.join('/')}`;
  if (typeof value === 'string') {
    yield { where: `${where} as a number`, value: 7 };
    yield { where: `${where} as a string no enum or format holds`, value: 'zz not a value' };
  } else if (typeof value === 'number') yield { where: `${where} as a string`, value: '7' };
  else if (typeof value === 'boolean') yield { where: `${where} as a string`, value: 'true' };
  else if (value === null) yield { where: `${where} as an object`, value: {} };
}

describe('the precompiled response validators agree with Ajv on the same schemas', () => {
  const cases = examples();

  it('covers every response schema that has an example, and every documented example is valid to both', () => {
    expect(cases.length).toBeGreaterThan(10);
    for (const { pointer, label, value } of cases) {
      expect(detailed.validate(pointer, value), label).toEqual([]);
      expect(validators[pointer]?.(value), label).toBe(true);
    }
  });

  it('gives the same verdict on every copy of an example broken in one place', () => {
    let compared = 0;
    let invalid = 0;
    const disagreements: string[] = [];
    for (const { pointer, label, value } of cases) {
      for (const copy of broken(value)) {
        const expected = detailed.validate(pointer, copy.value).length === 0;
        const got = validators[pointer]?.(copy.value);
        compared++;
        if (!expected) invalid++;
        if (got !== expected) disagreements.push(`${label}: ${copy.where}: Ajv says ${expected ? 'valid' : 'invalid'}, precompiled ${String(got)}`);
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([]);
    // Most breaks break the contract: a test whose copies were all still valid would prove nothing.
    expect(invalid).toBeGreaterThan(compared / 2);
  });
});
