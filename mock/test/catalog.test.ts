// The error catalog against the spec: messages with a variable part reproduce the spec's examples, every reply the
// catalog can send on a documented path is documented, and a response that breaks the spec is a loud 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject, loadDocument, resolvePointer } from '../../spec/lib/openapi.ts';
import * as errors from '../src/answers/errors.ts';
import { createReplyChecker } from '../src/answers/reply.ts';
import { RESUME, doc, startMock, type RunningMock } from './http.ts';

const document = loadDocument();
const example = (name: string): unknown => resolvePointer(document, `#/components/examples/${name}/value`);

describe('messages with a variable part say what the spec examples say', () => {
  it.each([
    ['ResumeProjectMissingFields', errors.MISSING_REQUIRED_FIELDS(['project_id', 'message'])],
    ['CloseGoalMissingFields', errors.MISSING_REQUIRED_FIELDS(['goal_id', 'success', 'retrospective', 'success_status'])],
    ['ResumeProjectNullField', errors.NULL_FIELD('project_id')],
    ['CloseGoalNullField', errors.NULL_FIELD('success_status')],
    ['UnknownInputField', errors.UNKNOWN_INPUT_FIELD('name')],
    ['UnknownInputTypeBoolean', errors.UNKNOWN_INPUT_TYPE('boolean')],
    ['UnknownInputTypeString', errors.UNKNOWN_INPUT_TYPE('string')],
    ['InvalidSuccessStatus', errors.INVALID_ENUM_VALUE('success_status', 'Achieved', ['achieved', 'missed'])],
  ])('%s', (name, reply) => {
    expect(JSON.stringify(reply.body)).toBe(JSON.stringify(example(name)));
  });
});

describe('every catalog reply on a documented operation is documented there', () => {
  const check = createReplyChecker();
  const onOperations: errors.ErrorReply[] = [
    errors.INVALID_JSON(false),
    errors.INVALID_JSON(true),
    errors.PAYLOAD_TOO_LARGE(false),
    errors.PAYLOAD_TOO_LARGE(true),
    errors.NOT_ACCEPTABLE,
    errors.UNSUPPORTED_MEDIA_TYPE,
    errors.UNKNOWN_INPUT_FIELD('x'),
    errors.UNKNOWN_INPUT_TYPE('boolean'),
    errors.NULL_FIELD('x'),
    errors.UNDECODABLE_ID,
    errors.DECODING_CRASH,
    errors.UNAUTHORIZED,
    errors.READ_ONLY_TOKEN,
    errors.MISSING_REQUIRED_FIELDS(['a', 'b']),
    errors.NOT_FOUND,
    errors.FORBIDDEN,
    errors.OPERATION_FAILED,
    errors.METHOD_NOT_ALLOWED,
  ];
  it.each(
    onOperations.flatMap((reply) => ['resumeProject', 'closeGoal'].map((op) => [`${op} ${reply.code} ${reply.status} ${reply.framing}`, op, reply] as const)),
  )('%s', async (_label, operationId, reply) => {
    expect(await check(reply, operationId)).toEqual([]);
  });

  it('documents the enum message for close only', async () => {
    expect(await check(errors.INVALID_ENUM_VALUE('success_status', 'x', ['achieved', 'missed']), 'closeGoal')).toEqual([]);
  });

  it('names the documented statuses when a status is not documented', async () => {
    const teapot: errors.ErrorReply = { code: 'TEAPOT', status: 418, body: "I'm a teapot", framing: 'none' };
    expect(await check(teapot, 'closeGoal')).toEqual([
      'status 418 is not documented for closeGoal; documented: 200, 400, 401, 403, 404, 405, 406, 413, 415, 500',
    ]);
  });

  it('names the violation when a body breaks its schema', async () => {
    const wrong: errors.ErrorReply = { ...errors.NOT_FOUND, body: { error: 'Not found', message: 'Nope' } };
    expect((await check(wrong, 'resumeProject')).join()).toContain('resumeProject 404 application/json');
  });
});

describe('a response that breaks the spec is a loud 500, never a quiet pass', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock();
  });
  afterAll(() => mock.close());

  it('answers 500 naming the violation when a stored record drifts from the schema', async () => {
    const state = await mock.state();
    expect(isObject(state)).toBe(true);
    const { createMockApp } = await import('../src/index.ts');
    const app = createMockApp();
    const project = app.mock.store().state.projects[0];
    if (!project) throw new Error('no project');
    Object.assign(project.template, { tasks_view: 'grid' });
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const { send } = await import('./http.ts');
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const response = await send(port, {
      path: RESUME,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${mock.fixtures.tokens['full_access']}` },
      body: JSON.stringify({ project_id: mock.fixtures.projects['paused'], message: doc('x') }),
    });
    server.close();
    expect(response.status).toBe(500);
    expect(response.json()).toMatchObject({ error: 'Mock response invalid' });
    expect(response.text).toContain('/project/tasks_view');
  });
});
