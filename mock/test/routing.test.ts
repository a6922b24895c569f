// The mock's routing (the spec model: readOperations and missingFields in pipeline.ts) against openapi-backend reading
// the same document its own way (oracle.ts): the same operation for every path, the same security requirement, and
// the same missing required fields, in the same order, for every generated body. The mock loads no router of its own
// (a browser bundle and a cold start pay nothing for one); this is where openapi-backend earns its place.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { operationModels } from '../../spec/lib/operations.ts';
import { missingFields, readOperations } from '../src/core/pipeline.ts';
import { backendDefinition, createRouting, type Routing } from './oracle.ts';

const operations = readOperations();
const models = operationModels();
let oracle: Routing;

beforeAll(async () => {
  oracle = createRouting();
  expect(await oracle.ready).toBeUndefined();
});

/** Paths under the operations' prefix: each operation's, its neighbours, and names no operation has. */
function paths(): string[] {
  const prefix = `/${operations.prefix.join('/')}`;
  const out = new Set<string>([
    prefix,
    `${prefix}/projects`,
    `${prefix}/goals/close/now`,
    `${prefix}/projects/pause`,
    `${prefix}/Projects/resume`,
    '/api/external/v2/projects/resume',
  ]);
  for (const model of models) {
    out.add(model.path);
    const [resource, action] = model.path.split('/').slice(-2);
    out.add(`${prefix}/${action ?? ''}/${resource ?? ''}`);
    out.add(`${model.path}s`);
  }
  return [...out];
}

describe('routing: the spec model and openapi-backend name the same operation', () => {
  it('for every operation path, its neighbours and names no operation has', () => {
    for (const path of paths()) {
      expect(operations.byPath.get(path)?.operationId, path).toBe(oracle.match(path)?.operationId);
    }
    expect(models.every((model) => operations.byPath.get(model.path)?.operationId === model.operationId)).toBe(true);
  });

  it('with the same security requirement', () => {
    for (const model of models) {
      const routed = oracle.match(model.path);
      if (!routed) throw new Error(`openapi-backend does not route ${model.path}`);
      expect(model.security.map((scheme) => scheme.name)).toEqual(oracle.schemes(routed));
      expect(model.security.every((scheme) => scheme.type === 'bearer')).toBe(true);
    }
  });

  it('fails, as the mock would, when the oracle is handed a definition it cannot check', async () => {
    const definition = backendDefinition();
    const paths = definition['paths'] as Record<string, Record<string, Record<string, unknown>>>;
    const [, item] = Object.entries(paths)[0] ?? [];
    if (!item?.['post']) throw new Error('no POST operation in the definition');
    item['post']['parameters'] = [{ name: 'dry_run', in: 'query', required: true, schema: { type: 'boolean' } }];
    expect((await createRouting(definition).ready)?.message).toMatch(/^\w+ takes parameters; the mock validates request bodies only$/);
  });
});

describe('request validation: the same missing required fields, in the same order', () => {
  /** A body with any subset of the operation's fields, each any JSON value (null included), and fields it lacks. */
  const body = (names: ReadonlyArray<string>) =>
    fc.dictionary(
      fc.constantFrom(...names, 'name', 'constructor', 'toString', '__proto__'),
      fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 })),
      { maxKeys: names.length + 2 },
    );

  it.each(models.map((model) => [model.operationId, model] as const))('%s', (_id, model) => {
    const routed = oracle.match(model.path);
    if (!routed) throw new Error(`openapi-backend does not route ${model.path}`);
    fc.assert(
      fc.property(body(model.fields.map((field) => field.name)), (params) => {
        expect(missingFields(model, params)).toEqual(oracle.missing(routed, params));
      }),
      { numRuns: 2000 },
    );
    // The spec's required fields, all absent: every one named, in declared order.
    expect(missingFields(model, {})).toEqual(model.required);
    expect(oracle.missing(routed, {})).toEqual(model.required);
  });
});
