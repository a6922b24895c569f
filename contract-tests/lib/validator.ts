// The one set of JSON Schema validators of the suite, compiled from generated/openapi.json once per process and once
// per schema: spec/lib/ajv.ts's shared validators (conformance, request builders and env.ts use them).
export { specValidator } from '../../spec/lib/ajv.ts';
