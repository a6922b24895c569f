// The package's contract entry point, `service-external-api/contract`: the conformance core the suite (and any tool of
// QA's) checks one response with, the suite's configuration, and the suite itself as a function.
//   import { checkResponse, formatViolation } from 'service-external-api/contract';
//   checkResponse('resumeProject', { status, headers, text }) → Violation[] (empty when the response keeps the contract)
export { checkResponse } from './harness/check-response.ts';
export { mediaTypeOf, type ResponseLike } from '../spec/lib/conformance.ts';
export { errorsOf, formatLocation, formatViolation, warningsOf, type Severity, type Violation } from '../spec/lib/violations.ts';
export { ConfigError, knownVariables, readConfig, recordVariable, tokenVariable, type ContractConfig } from './io/env.ts';

/**
 * The suite itself, as `service-external-api contract` runs it. Its runner (vitest, an optional peer) loads only when
 * it runs: importing this entry point for the checker costs what the checker costs.
 */
export async function runContract(argv: string[]): Promise<never> {
  const { runContract: run } = await import('./run.ts');
  return run(argv);
}
