// Type tests of the request builders: the compiler rejects a body with a required field missing or a value outside
// the spec's enum, so a contract test cannot send an invalid body by accident.
import { expectTypeOf, test } from 'vitest';
import type { RequestBody } from '../model/profiles.ts';
import { body, build, withoutField } from '../harness/requests.ts';

const RICH_TEXT = '{"type":"doc","content":[]}';

test('a full body must have every required field', () => {
  body('resumeProject', { project_id: 'FjO1YSsAoCpZz3SMRvlSvK', message: RICH_TEXT });
  // @ts-expect-error project_id is required
  body('resumeProject', { message: RICH_TEXT });
  // @ts-expect-error success_status is required
  body('closeGoal', { goal_id: 'FEBoOzPNE0H4GNy9U6K4Cq', success: 'yes', retrospective: RICH_TEXT });
});

test('overrides are checked against the spec types', () => {
  build('closeGoal', { success_status: 'missed' });
  // @ts-expect-error "Achieved" is not in the success_status enum
  build('closeGoal', { success_status: 'Achieved' });
  // @ts-expect-error no such field
  build('resumeProject', { project: 'x' });
});

test('a body without a required field is no longer a full body', () => {
  const full = build('closeGoal', {});
  expectTypeOf(full).toEqualTypeOf<RequestBody<'closeGoal'>>();
  const missing = withoutField(full, 'goal_id');
  // @ts-expect-error goal_id was removed
  const again: RequestBody<'closeGoal'> = missing;
  expectTypeOf(again).not.toBeAny();
});
