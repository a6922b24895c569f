// vitest globalSetup of the contract suite: takes the target run.ts resolved (its preflight, provided through the
// config), or resolves it here when the suite runs under vitest directly; puts a detected mock back to its seed, and
// provides the result to every test file.
import type { TestProject } from 'vitest/node';
import { readConfig } from '../io/env.ts';
import { resetMock, resolveTarget, type ResolvedTarget } from '../io/target.ts';
import type {} from './context.ts';

export default async function setup(project: TestProject): Promise<void> {
  const provided: Partial<{ contract: ResolvedTarget }> = project.getProvidedContext();
  const target = provided.contract ?? (await resolveTarget(readConfig()));
  if (target.mock && !target.unreachable) await resetMock(target);
  project.provide('contract', target);
}
