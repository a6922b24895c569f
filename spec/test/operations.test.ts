import { describe, expect, it } from 'vitest';
import { dereference, isObject, listOperations, loadDocument, resolvePointer } from '../lib/openapi.ts';
import { operationModels } from '../lib/operations.ts';
import { loadFullDocument } from '../lib/files.ts';
import { messages, texts } from '../lib/messages.ts';
import { errorTable, rulesBody } from './rules-table.ts';

// The document with its prose: these tests read descriptions.
const document = await loadFullDocument();
const operations = listOperations(document);
const runtimeDocument = loadDocument();

/**
 * What production sends on these paths (RULES.md#error-table); RULES.md#decision-2 lists
 * all but 405, which a POST gets when its body overrides the method with `_method` (Plug.MethodOverride).
 */
const PRODUCTION_STATUSES = ['200', '400', '401', '403', '404', '405', '406', '413', '415', '500'];

function mediaExamples(pointer: string, mediaType: string): unknown[] {
  const { value: media } = dereference(document, `${pointer}/content/${mediaType.replace('/', '~1')}`);
  if (!isObject(media)) return [];
  const values: unknown[] = [];
  if ('example' in media) values.push(media['example']);
  if (isObject(media['examples'])) {
    for (const name of Object.keys(media['examples'])) {
      const { value } = dereference(document, `${pointer}/content/${mediaType.replace('/', '~1')}/examples/${name}`);
      if (isObject(value)) values.push(value['value']);
    }
  }
  return values;
}

/** The `message` of a RULES.md error-table row whose body is the service's JSON. */
function rulesMessage(n: number): string {
  const body = rulesBody(n);
  if (!isObject(body) || typeof body['message'] !== 'string') throw new Error(`RULES.md#error-${n} has no JSON message`);
  return body['message'];
}

function response(operationPointer: string, status: string): { pointer: string; value: Record<string, unknown> } {
  const found = dereference(document, `${operationPointer}/responses/${status}`);
  if (!isObject(found.value)) throw new Error(`${operationPointer} documents no ${status}`);
  return { pointer: found.pointer, value: found.value };
}

function mediaTypes(operationPointer: string, status: string): string[] {
  const content = response(operationPointer, status).value['content'];
  return isObject(content) ? Object.keys(content).sort() : [];
}

it('documents the two operations of the seed (an operation added since is checked like them below)', () => {
  expect(operations.map((o) => `${o.method.toUpperCase()} ${o.path} ${String(o.operation['operationId'])}`)).toEqual(
    expect.arrayContaining(['POST /api/external/v1/goals/close closeGoal', 'POST /api/external/v1/projects/resume resumeProject']),
  );
});

it('secures every operation with the global bearer scheme', () => {
  const schemes = resolvePointer(document, '#/components/securitySchemes');
  expect(schemes).toMatchObject({ bearerAuth: { type: 'http', scheme: 'bearer' } });
  expect(document['security']).toEqual([{ bearerAuth: [] }]);
  const description = resolvePointer(document, '#/components/securitySchemes/bearerAuth/description');
  expect(description).toMatch(/read-only token gets `403`/);
});

it('quotes the 401 and the read-only 403 texts in its introduction as production sends them (RULES.md#error-21, RULES.md#error-22)', () => {
  const introduction = resolvePointer(document, '#/info/description');
  expect(introduction).toContain(`\`${String(rulesBody(21))}\``);
  expect(introduction).toContain(`\`${String(rulesBody(22))}\``);
});

// The one test that holds each of production's texts the spec keeps outside a response example (the answers outside the
// operations, the 400 templates) to RULES.md's error table; the response examples are held to it per operation below.
it("holds production's texts outside the operations and its 400 templates as RULES.md's error table writes them", () => {
  expect(errorTable().size).toBe(27);
  expect(texts.routeNotFound).toBe(rulesBody(3));
  expect(texts.missingQueryName).toBe(rulesBody(7));
  expect(messages.invalidQueryName(['<segments>'])).toBe(rulesBody(8));
  expect(texts.mutationNotFound).toBe(rulesBody(9));
  expect(texts.queryNotFound).toBe(rulesBody(10));
  expect(messages.unknownField('<name>')).toBe(rulesMessage(11));
  expect(messages.nullField('<name>')).toBe(rulesMessage(13));
  expect(messages.unknownType('string')).toBe(rulesMessage(14));
  expect(messages.unknownType('boolean')).toBe(rulesMessage(15));
  expect(messages.invalidEnum('success_status', '<value>', ['achieved', 'missed'])).toBe(rulesMessage(16));
  expect(messages.missingFields(['<names>'])).toBe(rulesMessage(23));
  expect([texts.unauthorized, texts.readOnly]).toEqual([rulesBody(21), rulesBody(22)]);
});

describe.each(operations.map((o) => [String(o.operation['operationId']), o] as const))('%s', (operationId, { pointer, operation }) => {
  it('reads like the house style: one tag, a sentence-case summary, a description with the order of checks', () => {
    expect(operation['tags']).toHaveLength(1);
    expect(operation['summary']).toMatch(/^[A-Z][a-z ]+[a-z]$/);
    expect(operation['description']).toMatch(/404[^.]*never a 403/);
    expect(operation['security']).toEqual([{ bearerAuth: [] }]);
  });

  it('documents every status production sends on this path, and 200, 400, 401, 403, 404, 500 at least', () => {
    const statuses = Object.keys(operation['responses'] as object).sort();
    expect(statuses).toEqual(PRODUCTION_STATUSES);
    for (const status of ['200', '400', '401', '403', '404', '500']) expect(statuses).toContain(status);
  });

  it('takes a JSON body that is closed to unknown fields', () => {
    const body = dereference(document, `${pointer}/requestBody`);
    expect(isObject(body.value) && body.value['required']).toBe(true);
    const schema = dereference(document, `${body.pointer}/content/application~1json/schema`);
    expect(schema.value).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('answers 401 in plain text: exactly RULES.md#error-21', () => {
    expect(mediaTypes(pointer, '401')).toEqual(['text/plain']);
    expect(mediaExamples(response(pointer, '401').pointer, 'text/plain')).toEqual([rulesBody(21)]);
  });

  it('answers 403 in plain text for a read-only token and in JSON for a missing edit permission', () => {
    expect(mediaTypes(pointer, '403')).toEqual(['application/json', 'text/plain']);
    const { pointer: at } = response(pointer, '403');
    expect(mediaExamples(at, 'text/plain')).toEqual([rulesBody(22)]);
    expect(mediaExamples(at, 'application/json')).toEqual([rulesBody(25)]);
  });

  it('answers 404 with the one not-found body', () => {
    expect(mediaExamples(response(pointer, '404').pointer, 'application/json')).toEqual([rulesBody(24)]);
    expect(rulesBody(17)).toEqual(rulesBody(24));
  });

  it('answers 400 with the service messages and the framework body for invalid JSON', () => {
    const { pointer: at } = response(pointer, '400');
    expect(mediaTypes(pointer, '400')).toEqual(['application/json', 'text/html']);
    const found = mediaExamples(at, 'application/json').map((e) => (isObject(e) ? (e['message'] ?? e['errors']) : e));
    // Production lists the missing fields in the request schema's declaration order (RULES.md#missing-fields).
    const required = operationModels(runtimeDocument).find((m) => m.operationId === operationId)?.required ?? [];
    expect(required.length).toBeGreaterThan(0);
    expect(found).toContain(rulesMessage(23).replace('<names>', required.join(', ')));
    expect(found).toContain(rulesMessage(11).replace('<name>', 'name'));
    const invalidJson = rulesBody(1, 1);
    expect(found).toContainEqual(isObject(invalidJson) ? invalidJson['errors'] : invalidJson);
    expect(mediaExamples(at, 'text/html')).toEqual([rulesBody(1)]);
  });

  it('answers 405 in plain text for a method override', () => {
    expect(mediaExamples(response(pointer, '405').pointer, 'text/plain')).toEqual([rulesBody(6)]);
  });

  it('answers 406, 413, 415 and 500 with the framework texts', () => {
    expect(mediaExamples(response(pointer, '406').pointer, 'text/html')).toEqual([rulesBody(4)]);
    expect(mediaExamples(response(pointer, '413').pointer, 'text/html')).toEqual([rulesBody(2)]);
    // RULES.md#error-2's JSON form: the framework's body with the reason phrase as its detail.
    expect(mediaExamples(response(pointer, '413').pointer, 'application/json')).toEqual([{ errors: { detail: rulesBody(2) } }]);
    expect(mediaExamples(response(pointer, '415').pointer, 'application/json')).toEqual([rulesBody(5)]);
    expect(mediaExamples(response(pointer, '500').pointer, 'application/json')).toEqual([rulesBody(12), rulesBody(26)]);
  });

  it('pairs every request example with a response example of the same name', () => {
    const body = dereference(document, `${pointer}/requestBody`);
    const requestNames = Object.keys(resolvePointer(document, `${body.pointer}/content/application~1json/examples`) as object);
    const responseNames = Object.keys(resolvePointer(document, `${response(pointer, '200').pointer}/content/application~1json/examples`) as object);
    expect(requestNames.length).toBeGreaterThan(0);
    expect(responseNames).toEqual(requestNames);
  });
});
