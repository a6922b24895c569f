// What the suite derives from the spec: the operation model, production's messages against the spec's own examples,
// the request builders, the id model, and the suite's coverage of every operation.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { texts } from '../../spec/lib/messages.ts';
import { listOperations, loadDocument, resolvePointer } from '../../spec/lib/openapi.ts';
import { answers, messages } from '../model/expected.ts';
import { decodeId, shortIdOf, alternativeForms, sameRecord } from '../model/id-model.ts';
import { caseVariant } from '../model/inputs.ts';
import { operationModel, operationModels, PROFILES, responseExample } from '../model/profiles.ts';
import { baseBody, build, isRequestBody, portableExample, withoutField } from '../harness/requests.ts';

describe('operation model', () => {
  it("has every operation of the spec, each with a profile; an operation's own contract test file is optional, and named after its operationId", () => {
    const ids = listOperations().map((o) => o.operationId);
    expect(operationModels().map((m) => m.operationId)).toEqual(ids);
    expect(Object.keys(PROFILES).sort()).toEqual([...ids].sort());
    // The table-driven files cover every operation from the model; a file of its own holds its particular stories.
    const cross = ['auth', 'ids', 'order', 'permissions', 'properties', 'responses', 'state', 'transport', 'validation'];
    const own = readdirSync(new URL('../tests/', import.meta.url))
      .map((file) => /^(\w+)\.contract\.test\.ts$/.exec(file)?.[1])
      .filter((name): name is string => name !== undefined && !cross.includes(name));
    for (const name of own) expect(ids, `contract-tests/tests/${name}.contract.test.ts names no operation`).toContain(name);
  });

  it('reads fields, kinds, required order, nullability and enums from the request schemas', () => {
    const resume = operationModel('resumeProject');
    expect(resume).toMatchObject({
      method: 'POST',
      path: '/api/external/v1/projects/resume',
      secured: true,
      targetField: 'project_id',
      group: 'projects',
      required: ['project_id', 'message'],
    });
    expect(resume.fields.map((f) => [f.name, f.kind, f.required, f.nullable])).toEqual([
      ['project_id', 'id', true, false],
      ['message', 'rich-text', true, false],
      ['send_notifications_to_everyone', 'boolean', false, true],
      ['subscriber_ids', 'id-list', false, true],
    ]);
    const close = operationModel('closeGoal');
    expect(close.required).toEqual(['goal_id', 'success', 'retrospective', 'success_status']);
    expect(close.fields.find((f) => f.name === 'success_status')).toMatchObject({
      kind: 'enum',
      enumValues: ['achieved', 'missed'],
      enumName: 'success_status',
    });
    expect(close.fields.find((f) => f.name === 'success')?.kind).toBe('string');
    expect(close.examples.map((e) => e.name)).toEqual(['achieved_goal', 'missed_goal']);
  });
});

describe("production's messages", () => {
  it("reproduce the spec's examples of each 400, byte for byte", () => {
    for (const op of operationModels()) {
      const a = answers(op);
      expect(a.missingFields(op.required).body, op.operationId).toEqual({
        kind: 'json',
        value: responseExample(op, 400, 'application/json', 'missing_required_fields'),
      });
      expect(a.unknownField('name').body).toEqual({ kind: 'json', value: responseExample(op, 400, 'application/json', 'unknown_field') });
      expect(a.unknownType('boolean').body).toEqual({ kind: 'json', value: responseExample(op, 400, 'application/json', 'wrong_type_boolean') });
    }
    const close = operationModel('closeGoal');
    const enumField = close.fields.find((f) => f.kind === 'enum');
    expect(answers(close).invalidEnum(enumField?.enumName ?? '', caseVariant('achieved'), enumField?.enumValues ?? []).body).toEqual({
      kind: 'json',
      value: responseExample(close, 400, 'application/json', 'invalid_success_status'),
    });
    expect(answers(close).unknownType('string').body).toEqual({ kind: 'json', value: responseExample(close, 400, 'application/json', 'wrong_type_string') });
    expect(answers(close).nullField('success_status').body).toEqual({ kind: 'json', value: responseExample(close, 400, 'application/json', 'null_field') });
    expect(answers(operationModel('resumeProject')).nullField('project_id').body).toEqual({
      kind: 'json',
      value: responseExample(operationModel('resumeProject'), 400, 'application/json', 'null_field'),
    });
    // The names are joined by ", " after the template's text; a value that looks like a variable part stays as sent.
    expect(messages.missingFields(['a', 'b'])).toBe(`${messages.missingFields([])}a, b`);
    expect(messages.unknownField('{names}')).toBe(`${messages.unknownField('')}{names}`);
  });

  it('read the fixed bodies from the spec: 401 and the read-only 403 in plain text, the JSON 403 and 404', () => {
    const a = answers(operationModel('resumeProject'));
    const shared = (response: string): unknown => resolvePointer(loadDocument(), `#/components/responses/${response}/content/application~1json/example`);
    expect(a.unauthorized.body).toEqual({ kind: 'text', text: texts.unauthorized });
    expect(a.readOnly.body).toEqual({ kind: 'text', text: texts.readOnly });
    expect(a.forbidden.body).toEqual({ kind: 'json', value: shared('Forbidden') });
    expect(a.notFound.body).toEqual({ kind: 'json', value: shared('NotFound') });
    expect([shared('Forbidden'), shared('NotFound')]).not.toContain(undefined);
  });
});

describe('request builders', () => {
  it('start from the named example and override only what is given', () => {
    const body = build('closeGoal', { goal_id: 'x-FEBoOzPNE0H4GNy9U6K4Cq', success_status: 'missed' }, 'achieved_goal');
    expect(body).toMatchObject({ goal_id: 'x-FEBoOzPNE0H4GNy9U6K4Cq', success: 'yes', success_status: 'missed', send_notifications_to_everyone: false });
    expect(isRequestBody('closeGoal', body)).toBe(true);
    expect(isRequestBody('closeGoal', withoutField(body, 'goal_id'))).toBe(false);
  });

  it("make examples portable: mentions of the example's people become text, their subscriber ids an empty list", () => {
    const missed = portableExample(operationModel('closeGoal'), 'missed_goal');
    expect(missed['retrospective']).not.toContain('"mention"');
    expect(missed['retrospective']).toContain('@Carol Davis');
    expect(portableExample(operationModel('resumeProject'))['subscriber_ids']).toEqual([]);
  });

  it('refuse to build a body the spec would not accept', () => {
    expect(() => baseBody(operationModel('resumeProject'), 'not an id!')).toThrow(/not a valid request/);
  });
});

describe('id model', () => {
  it('decodes ids as production does', () => {
    expect(decodeId('')).toEqual({ kind: 'null' });
    expect(decodeId('abc_def')).toEqual({ kind: 'undecodable' });
    expect(decodeId(`x-${'A'.repeat(23)}`)).toEqual({ kind: 'undecodable' });
    expect(decodeId('some-record-')).toEqual({ kind: 'crash' });
    expect(decodeId('HxECNQWFdpvuJxIw3HPrmH')).toEqual({ kind: 'uuid', uuid: 'ffffffff-ffff-ffff-ffff-ffffffffffff' });
    expect(decodeId('HxECNQWFdpvuJxIw3HPrmI')).toEqual({ kind: 'crash' });
    expect(decodeId('localize-onboarding-for-FjO1YSsAoCpZz3SMRvlSvK')).toEqual({ kind: 'uuid', uuid: 'b6f5a3c2-4d1e-4f7a-9c3b-2e8d1f0a6b5c' });
  });

  it('gives forms that name the same record', () => {
    const id = 'localize-onboarding-for-FjO1YSsAoCpZz3SMRvlSvK';
    expect(shortIdOf('b6f5a3c2-4d1e-4f7a-9c3b-2e8d1f0a6b5c')).toBe('FjO1YSsAoCpZz3SMRvlSvK');
    for (const form of alternativeForms(id)) expect(sameRecord(form.value, id), form.form).toBe(true);
    expect(sameRecord(id, 'website-redesign-CDLM1b3DeSeFkDhikUewDK')).toBe(false);
  });
});
