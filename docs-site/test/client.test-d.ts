// The typed client turns the contract into compile errors: a request the spec rejects does not compile, and a
// result's body is typed by its status.
import { describe, expectTypeOf, it } from 'vitest';
import type { components } from '../../generated/types.ts';
import {
  createClient,
  type ApiResult,
  type CloseGoalBody,
  type CloseGoalResult,
  type RequestBody,
  type ResumeProjectBody,
  type ResumeProjectResult,
} from '../client/index.ts';

// Production's texts as the generated types hold them (the spec's `const`s), never written here: a changed text in the
// spec changes these types and no test.
type UnauthorizedText = components['responses']['Unauthorized']['content']['text/plain'];
type ReadOnlyText = components['responses']['Forbidden']['content']['text/plain'];
type ForbiddenTitle = NonNullable<components['responses']['Forbidden']['content']['application/json']['error']>;
type NotFoundTitle = NonNullable<components['responses']['NotFound']['content']['application/json']['error']>;

const api = createClient({ baseUrl: 'http://127.0.0.1:4010', token: 'opk_token' });
const retrospective = JSON.stringify({ type: 'doc', content: [] });
const goal_id = 'convert-more-visitors-FEBoOzPNE0H4GNy9U6K4Cq';
const project_id = 'localize-onboarding-for-FjO1YSsAoCpZz3SMRvlSvK';

describe('request bodies', () => {
  it('reject closeGoal without success_status', () => {
    // @ts-expect-error success_status is required
    void api.closeGoal({ goal_id, success: 'yes', retrospective });
  });

  it('reject a success_status outside the enum', () => {
    // @ts-expect-error only achieved and missed exist
    void api.closeGoal({ goal_id, success: 'yes', retrospective, success_status: 'done' });
  });

  it('reject resumeProject with an unknown field', () => {
    // @ts-expect-error request bodies are closed: notify_everyone is not a field
    void api.resumeProject({ project_id, message: retrospective, notify_everyone: true });
  });

  it('reject a rich-text message passed as an object instead of a JSON string', () => {
    // @ts-expect-error message is a string holding JSON: JSON.stringify(doc)
    void api.resumeProject({ project_id, message: { type: 'doc', content: [] } });
  });

  it('accept the minimal bodies and null in the optional fields', () => {
    expectTypeOf(api.resumeProject({ project_id, message: retrospective, subscriber_ids: null })).resolves.toEqualTypeOf<ApiResult<'resumeProject'>>();
    expectTypeOf(
      api.closeGoal({ goal_id, success: 'no', retrospective, success_status: 'missed', send_notifications_to_everyone: null }),
    ).resolves.toEqualTypeOf<ApiResult<'closeGoal'>>();
  });

  it('reject a missing token when creating the client', () => {
    // @ts-expect-error token is required
    createClient({ baseUrl: 'http://127.0.0.1:4010' });
  });
});

describe('results', () => {
  it('are discriminated by status, each with the body the spec documents for it', () => {
    expectTypeOf<ApiResult<'resumeProject'>['status']>().toEqualTypeOf<200 | 400 | 401 | 403 | 404 | 405 | 406 | 413 | 415 | 500>();
    expectTypeOf<Extract<ApiResult<'resumeProject'>, { status: 200 }>['body']>().toEqualTypeOf<components['schemas']['ResumeProjectResponse']>();
    expectTypeOf<Extract<ApiResult<'closeGoal'>, { status: 200 }>['body']['goal']>().toEqualTypeOf<components['schemas']['Goal']>();
    // The texts are literal types, not `string`: a client can switch on them.
    expectTypeOf<string>().not.toExtend<UnauthorizedText | ReadOnlyText | ForbiddenTitle | NotFoundTitle>();
    expectTypeOf<Extract<ApiResult<'closeGoal'>, { status: 401 }>['body']>().toEqualTypeOf<UnauthorizedText>();
    expectTypeOf<Extract<ApiResult<'closeGoal'>, { status: 403 }>['body']>().toExtend<ReadOnlyText | { error: ForbiddenTitle }>();
    expectTypeOf<ReadOnlyText>().toExtend<Extract<ApiResult<'closeGoal'>, { status: 403 }>['body']>();
  });

  it('narrow in a switch on status, and on ok', async () => {
    const result = await api.closeGoal({ goal_id, success: 'yes', retrospective, success_status: 'achieved' });
    switch (result.status) {
      case 200:
        expectTypeOf(result.body.goal.status).toEqualTypeOf<components['schemas']['GoalStatus']>();
        break;
      case 401:
        expectTypeOf(result.body).toEqualTypeOf<UnauthorizedText>();
        // @ts-expect-error a 401 has no record
        void result.body.goal;
        break;
      case 404:
        expectTypeOf(result.body.error).toEqualTypeOf<NotFoundTitle>();
        break;
      default:
        expectTypeOf(result.ok).toEqualTypeOf<false>();
    }
    if (result.ok) expectTypeOf(result).toEqualTypeOf<Extract<ApiResult<'closeGoal'>, { status: 200 }>>();
    // @ts-expect-error status 418 is not documented for closeGoal
    if (result.status === 418) void result;
  });
});

describe('the named aliases of 0.1 (deprecated)', () => {
  it('are the generic types of their operation', () => {
    expectTypeOf<ResumeProjectBody>().toEqualTypeOf<RequestBody<'resumeProject'>>();
    expectTypeOf<ResumeProjectResult>().toEqualTypeOf<ApiResult<'resumeProject'>>();
    expectTypeOf<CloseGoalBody>().toEqualTypeOf<RequestBody<'closeGoal'>>();
    expectTypeOf<CloseGoalResult>().toEqualTypeOf<ApiResult<'closeGoal'>>();
  });
});
