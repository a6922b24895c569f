// The conformance core lives in spec/lib/conformance.ts (one checker for the suite, the proxy, the fuzzers and the
// mock's self-check); this module keeps the suite's import path and signatures.
export { checkResponse, explain, mediaTypeOf, unknownFields, type CheckOptions, type ResponseLike } from '../../spec/lib/conformance.ts';
