// checkResponse with the suite's validators by default: the conformance core of spec/lib/conformance.ts (one checker
// for the suite, the proxy, the fuzzers and the mock's self-check) given spec/lib/ajv.ts's specValidator, Ajv
// compiling generated/openapi.json, unless a caller passes others. What else the suite reads of the spec model it
// imports from spec/lib itself.
import { specValidator } from '../../spec/lib/ajv.ts';
import { checkResponse as check, type CheckOptions, type ResponseLike } from '../../spec/lib/conformance.ts';
import type { Violation } from '../../spec/lib/violations.ts';

/** Every way one response of `operationId` departs from the spec, as violations (empty when it keeps the contract). */
export function checkResponse(operationId: string, response: ResponseLike, options: Partial<CheckOptions> = {}): Violation[] {
  return check(operationId, response, { ...options, validator: options.validator ?? specValidator() });
}
