// The typed client against the real mock over HTTP: both operations, and the plain-text and JSON errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import { startMock, doc, type RunningMock } from '../../mock/test/http.ts';
import { createClient } from '../client/index.ts';

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());

const client = (persona: string) =>
  createClient({ baseUrl: mock.url, token: mock.fixtures.tokens[persona] ?? '', headers: { 'x-mock-session': `client-${persona}` } });

describe('createClient against the mock', () => {
  it('resumes the paused project: 200 with the project, typed', async () => {
    const result = await client('full_access').resumeProject({
      project_id: mock.fixtures.projects['paused'] ?? '',
      message: doc('Back on.'),
      subscriber_ids: null,
    });
    if (result.status !== 200) throw new Error(`expected 200, got ${result.status}`);
    expect(result.ok).toBe(true);
    expect(result.body.project.state).toBe('active');
    expect(result.body.project.success_status).toBe('nil');
    expect(result.response.headers.get('x-request-id')).toBeTruthy();
  });

  it('closes the open goal: 200 with the goal, closed by the caller', async () => {
    const result = await client('full_access').closeGoal({
      goal_id: mock.fixtures.goals['open'] ?? '',
      success: 'yes',
      retrospective: doc('Done.'),
      success_status: 'achieved',
    });
    if (result.status !== 200) throw new Error(`expected 200, got ${result.status}`);
    expect(result.body.goal).toMatchObject({ is_closed: true, status: 'achieved', success: true });
    expect(result.body.goal.closed_by?.id).toBe(mock.fixtures.people['full_access']);
  });

  it('reads the read-only 403 as text although the mock, like production, sends no Content-Type', async () => {
    const result = await client('read_only').closeGoal({
      goal_id: mock.fixtures.goals['open'] ?? '',
      success: 'yes',
      retrospective: doc('Done.'),
      success_status: 'achieved',
    });
    expect([result.status, result.ok, result.body]).toEqual([403, false, production.readOnly]);
  });

  it('reads the JSON 403 of a comment-only person and the 404 of a no-access person', async () => {
    const forbidden = await client('comment_only').resumeProject({ project_id: mock.fixtures.projects['paused'] ?? '', message: doc('x') });
    expect([forbidden.status, forbidden.body]).toEqual([403, JSON.parse(production.forbidden)]);
    const notFound = await client('no_access').resumeProject({ project_id: mock.fixtures.projects['paused'] ?? '', message: doc('x') });
    expect([notFound.status, notFound.body]).toEqual([404, JSON.parse(production.notFound)]);
  });

  it('reads the plain-text 401 of a suspended person', async () => {
    const result = await client('suspended').resumeProject({ project_id: mock.fixtures.projects['paused'] ?? '', message: doc('x') });
    expect([result.status, result.body]).toEqual([401, production.unauthorized]);
  });
});
