// The mock and the docs show the same data: each 200 example of the spec is the mock's answer to the request example of
// the same name, on the seed at the examples' instant, whole (mock/tools/examples.ts; `npm run examples` writes them).
// Nothing here names an operation: a new one is checked as soon as its path file names its examples.
import { describe, expect, it } from 'vitest';
import { dereference, isObject, listOperations, loadDocument } from '../../spec/lib/openapi.ts';
import { exampleFiles, exampleRefs } from '../../spec/lib/example-files.ts';
import { answerExamples } from '../tools/examples.ts';

const document = loadDocument();
const answers = await answerExamples();

it('pairs every named request example of every operation with the 200 example of the same name, in its own file', () => {
  for (const op of listOperations(document)) {
    const requests = dereference(document, `${op.pointer}/requestBody/content/application~1json/examples`).value;
    const names = isObject(requests) ? Object.keys(requests) : [];
    expect(names.length, `${op.operationId} has no named request example`).toBeGreaterThan(0);
    expect([...exampleFiles(op.path, op.method).keys()].sort(), op.operationId).toEqual([...names].sort());
    expect(answers.filter((a) => a.operationId === op.operationId).map((a) => a.name)).toEqual(names);
  }
  expect(answers.map((a) => a.file)).toContain('spec/components/examples/CloseGoalResponse.yaml');
});

describe.each(answers.map((a) => [`${a.operationId} ${a.name}`, a] as const))('%s', (_label, pair) => {
  it("is the mock's answer to its request example, whole (npm run examples writes it)", () => {
    expect(pair.status, JSON.stringify(pair.answer).slice(0, 500)).toBe(200);
    expect(pair.example).toEqual(pair.answer);
  });
});

it("keeps every operation's examples in spec/components/examples/: one written inline in the path file is refused", () => {
  const path = (example: string): string =>
    ['post:', '  responses:', "    '200':", '      content:', '        application/json:', '          examples:', `            done: ${example}`].join('\n');
  expect([...exampleRefs('spec/paths/goals_reopen.yaml', path('{$ref: ../components/examples/ReopenGoalResponse.yaml}'), 'post')]).toEqual([
    ['done', 'spec/components/examples/ReopenGoalResponse.yaml'],
  ]);
  expect(() => exampleRefs('spec/paths/goals_reopen.yaml', path('{value: {goal: {}}}'), 'post')).toThrow(
    'spec/paths/goals_reopen.yaml: the 200 example done is not a $ref to ../components/examples/<Name>.yaml',
  );
  expect(() => exampleRefs('spec/paths/goals_reopen.yaml', path('{$ref: ../../etc/passwd}'), 'post')).toThrow('is not a $ref');
});
