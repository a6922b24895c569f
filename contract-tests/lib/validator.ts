// The one set of JSON Schema validators of the suite, compiled from generated/openapi.json once per process and once
// per schema (spec/lib/openapi.ts createSchemaValidator): conformance, request builders and env.ts share it.
import { createSchemaValidator, loadDocument, type SchemaValidator } from '../../spec/lib/openapi.ts';

let shared: SchemaValidator | undefined;

export function specValidator(): SchemaValidator {
  // Most values the suite checks are valid: test them with a validator that stops at the first error, and collect
  // every error only for the invalid ones.
  shared ??= createSchemaValidator(loadDocument(), { firstErrorOnly: true });
  return shared;
}
