// vitest globalSetup of the contract suite: reads the configuration (env.ts), resolves the target once (target.ts),
// puts a detected mock back to its seed, and provides the result to every test file.
import type { TestProject } from 'vitest/node';
import { readConfig } from './env.ts';
import { resetMock, resolveTarget } from './target.ts';
import type {} from './context.ts';

export default async function setup(project: TestProject): Promise<void> {
  const target = await resolveTarget(readConfig());
  if (target.mock && !target.unreachable) await resetMock(target);
  project.provide('contract', target);
}
