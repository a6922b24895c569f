// OperationInputs (operations/index.ts) is complete by construction: a table of every operation's inputs that misses
// one, or names one the spec does not have, does not compile, so a new operation cannot get `unknown` inputs silently.
import { expectTypeOf, test } from 'vitest';
import type { OperationId } from '../../spec/lib/operations.ts';
import type { CloseInputs } from '../src/operations/closeGoal.ts';
import type { OperationInputs } from '../src/operations/index.ts';
import type { ResumeInputs } from '../src/operations/resumeProject.ts';
import type { ByOperation } from '../src/domain/writes.ts';

test("OperationInputs has exactly the spec's operations, each with its own inputs", () => {
  expectTypeOf<keyof OperationInputs>().toEqualTypeOf<OperationId>();
  expectTypeOf<OperationInputs['resumeProject']>().toEqualTypeOf<ResumeInputs>();
  expectTypeOf<OperationInputs['closeGoal']>().toEqualTypeOf<CloseInputs>();
  expectTypeOf<OperationInputs['closeGoal']>().not.toBeUnknown();
});

test('a table that misses an operation does not compile', () => {
  // @ts-expect-error closeGoal is missing
  expectTypeOf<ByOperation<{ resumeProject: ResumeInputs }>>().not.toBeAny();
});

test('a table that names an operation the spec does not have does not compile', () => {
  // @ts-expect-error notAnOperation is no operation of the spec
  expectTypeOf<ByOperation<{ resumeProject: ResumeInputs; closeGoal: CloseInputs; notAnOperation: CloseInputs }>>().not.toBeAny();
});
