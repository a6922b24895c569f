// Type guards backed by the spec's schemas: the way data from outside (examples, seed files, responses) becomes a
// generated type without a cast.
import type { components } from '../../generated/types.ts';
import { pointerTo } from './openapi.ts';
import { formatErrors, specValidator } from './ajv.ts';

export type Schemas = components['schemas'];

/** The violations of `value` against the component schema `name` ('' when it conforms). */
export function schemaViolations(name: keyof Schemas, value: unknown): string {
  return formatErrors(specValidator().validate(pointerTo('components', 'schemas', name), value));
}

export function conforms<K extends keyof Schemas>(name: K, value: unknown): value is Schemas[K] {
  return schemaViolations(name, value) === '';
}
