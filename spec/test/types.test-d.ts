// The generated types are the compiler's copy of the contract: a request the spec rejects does not compile.
import { describe, expectTypeOf, it } from 'vitest';
import type { components, operations } from '../../generated/types.ts';

type CloseGoalBody = operations['closeGoal']['requestBody']['content']['application/json'];
type ResumeProjectBody = operations['resumeProject']['requestBody']['content']['application/json'];
const retrospective = JSON.stringify({ type: 'doc', content: [] });

describe('generated request types', () => {
  it('reject a close request without success_status', () => {
    // @ts-expect-error success_status is required
    const body: CloseGoalBody = { goal_id: 'FjO1YSsAoCpZz3SMRvlSvK', success: 'yes', retrospective };
    expectTypeOf(body).toEqualTypeOf<CloseGoalBody>();
  });

  it('reject a success_status outside the enum', () => {
    // @ts-expect-error only achieved and missed are allowed
    const body: CloseGoalBody = { goal_id: 'FjO1YSsAoCpZz3SMRvlSvK', success: 'yes', retrospective, success_status: 'done' };
    expectTypeOf(body.success_status).toEqualTypeOf<'achieved' | 'missed'>();
  });

  it('reject a rich-text document passed as an object instead of a string', () => {
    // @ts-expect-error message is a string holding JSON
    const body: ResumeProjectBody = { project_id: 'FjO1YSsAoCpZz3SMRvlSvK', message: { type: 'doc' } };
    expectTypeOf(body.message).toBeString();
  });

  it('accept null for the optional notification fields', () => {
    const body: ResumeProjectBody = {
      project_id: 'FjO1YSsAoCpZz3SMRvlSvK',
      message: retrospective,
      send_notifications_to_everyone: null,
      subscriber_ids: null,
    };
    expectTypeOf(body.subscriber_ids).toEqualTypeOf<string[] | null | undefined>();
  });
});

describe('generated response types', () => {
  it('make success_status a string that can be "nil", never null', () => {
    expectTypeOf<components['schemas']['Project']['success_status']>().toEqualTypeOf<'nil' | 'achieved' | 'missed'>();
  });

  it('make closed_by a nullable person that is always present', () => {
    expectTypeOf<components['schemas']['Goal']['closed_by']>().toEqualTypeOf<components['schemas']['Person'] | null>();
  });
});
