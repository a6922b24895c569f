// The mock and the docs show the same data: replaying each request example of the spec against a fresh mock, at the
// moment the examples were written, gives the paired response example (except ids the mock generates anew).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject, listOperations, loadDocument, resolvePointer, dereference } from '../../spec/lib/openapi.ts';
import { startMock, type RunningMock } from './http.ts';

const EXAMPLES_WRITTEN_AT = new Date('2025-06-13T15:42:07Z');
const document = loadDocument();

type Pair = { operationId: string; path: string; name: string; request: unknown; response: unknown };

function pairs(): Pair[] {
  const out: Pair[] = [];
  for (const op of listOperations(document)) {
    const requestExamples = resolvePointer(document, `${op.pointer}/requestBody/content/application~1json/examples`);
    const response = dereference(document, `${op.pointer}/responses/200`);
    const responseExamples = resolvePointer(document, `${response.pointer}/content/application~1json/examples`);
    if (!isObject(requestExamples) || !isObject(responseExamples)) continue;
    for (const name of Object.keys(requestExamples)) {
      const request = dereference(document, `${op.pointer}/requestBody/content/application~1json/examples/${name}`).value;
      const reply = dereference(document, `${response.pointer}/content/application~1json/examples/${name}`).value;
      if (isObject(request) && isObject(reply))
        out.push({ operationId: op.operationId, path: op.path, name, request: request['value'], response: reply['value'] });
    }
  }
  return out;
}

/** Drops what a new write generates (the closing activity's id) and what the example leaves short (nested projects). */
function comparable(body: unknown): unknown {
  const copy = structuredClone(body);
  if (isObject(copy) && isObject(copy['goal'])) {
    const goal = copy['goal'];
    if (isObject(goal['retrospective'])) delete goal['retrospective']['id'];
    delete goal['projects'];
  }
  return copy;
}

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock({ now: () => EXAMPLES_WRITTEN_AT });
});
afterAll(() => mock.close());

const all = pairs();

it('pairs every named request example of every operation with the 200 example of the same name', () => {
  const requests = listOperations(document).flatMap((op) => {
    const examples = resolvePointer(document, `${op.pointer}/requestBody/content/application~1json/examples`);
    return isObject(examples) ? Object.keys(examples).map((name) => `${op.operationId}/${name}`) : [];
  });
  expect(requests).toContain('closeGoal/achieved_goal');
  expect(all.map((p) => `${p.operationId}/${p.name}`).sort()).toEqual(requests.sort());
});

describe.each(all.map((p) => [`${p.operationId} ${p.name}`, p] as const))('%s', (_label, pair) => {
  it('answers the request example with the response example', async () => {
    await mock.send({ path: '/__mock/reset' });
    const response = await mock.post(pair.path, pair.request, mock.fixtures.tokens['full_access']);
    expect(response.status, response.text.slice(0, 500)).toBe(200);
    expect(comparable(response.json())).toEqual(comparable(pair.response));
  });
});
