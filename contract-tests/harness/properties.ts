// Running a property against the server: bounded runs (CONTRACT_NUM_RUNS), a seed that is printed and can be
// replayed (CONTRACT_SEED), and on failure the shrunk counterexample with the failing request as a curl line.
import fc from 'fast-check';
import type { TestContext } from 'vitest';
import type {} from './context.ts';
import type { Contract } from './harness.ts';
import { ContractFailure } from '../model/contract-failure.ts';

let chosen: number | undefined;
/** The seed of this run, the same for every property: CONTRACT_SEED when given, else a fresh one (reported either way). */
function runSeed(c: Contract): number {
  chosen ??= c.target.config.seed ?? (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
  return chosen;
}

export async function holds<T>(ctx: TestContext, c: Contract, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>): Promise<void> {
  const seed = runSeed(c);
  ctx.task.meta.contractSeed = seed;
  const details = await fc.check(fc.asyncProperty(arbitrary, predicate), { seed, numRuns: c.target.config.numRuns });
  if (!details.failed) return;
  const error = details.errorInstance;
  const inner = error instanceof Error ? error.message : String(error);
  const lines = [
    `${ctx.task.name}`,
    `  property failed after ${details.numRuns} run(s) and ${details.numShrinks} shrink(s): seed ${details.seed}, path "${details.counterexamplePath ?? ''}"`,
    `  replay:   CONTRACT_SEED=${details.seed} service-external-api contract (the same variables and filters)`,
    `  shrunk counterexample: ${JSON.stringify(details.counterexample)}`,
    ...inner
      .split('\n')
      .filter((line) => line !== ctx.task.name)
      .map((line) => (line.startsWith('  ') ? line : `  ${line}`)),
  ];
  throw new ContractFailure(lines.join('\n'), error instanceof ContractFailure ? error.violations : []);
}
