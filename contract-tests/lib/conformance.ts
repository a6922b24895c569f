// The suite's response checker: the conformance core of spec/lib/conformance.ts (one checker for the suite, the
// proxy, the fuzzers and the mock's self-check) with the suite's validators, Ajv compiling generated/openapi.json
// (validator.ts), unless a caller passes others.
import { checkResponse as check, type CheckOptions, type ResponseLike } from '../../spec/lib/conformance.ts';
import type { Violation } from '../../spec/lib/violations.ts';
import { specValidator } from './validator.ts';

export { mediaTypeOf, type ResponseLike } from '../../spec/lib/conformance.ts';

/** Every way one response of `operationId` departs from the spec, as violations (empty when it keeps the contract). */
export function checkResponse(operationId: string, response: ResponseLike, options: Partial<CheckOptions> = {}): Violation[] {
  return check(operationId, response, { ...options, validator: options.validator ?? specValidator() });
}
