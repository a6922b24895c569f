// The prediction the validation proxy checks live traffic with (model/predict.ts) is the suite's own: for every wrong
// input of the validation table and every generated defect of the property tests it expects exactly (or at least)
// the answers those expect, and it follows production's order of checks for transport, token, personas and records.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defects } from '../harness/arbitraries.ts';
import type { Persona } from '../io/env.ts';
import { answers, success, type Expectation } from '../model/expected.ts';
import { sameRecord, UNKNOWN_ID } from '../model/id-model.ts';
import { wrongInputs } from '../model/inputs.ts';
import { operationModel, operationModels, type OperationModel } from '../model/profiles.ts';
import { predict, type Knowledge, type RawRequest } from '../model/predict.ts';
import { baseBody, withField, withoutField } from '../harness/requests.ts';

const token = (n: number): string => `opk_${String(n).repeat(43)}`;
const TOKENS: Record<string, Persona> = {
  [token(1)]: 'full_access',
  [token(2)]: 'read_only',
  [token(3)]: 'comment_only',
  [token(4)]: 'no_access',
  [token(5)]: 'suspended',
};
const FIXTURE = { projects: 'localize-onboarding-for-FjO1YSsAoCpZz3SMRvlSvK', goals: 'convert-more-visitors-FEBoOzPNE0H4GNy9U6K4Cq' } as const;
const known: Knowledge = {
  who: (t) => {
    const persona = TOKENS[t];
    return persona ? { persona, source: 'test' } : undefined;
  },
  story: (group, id) => (sameRecord(FIXTURE[group], id) ? (group === 'projects' ? 'paused' : 'open') : undefined),
};

function request(
  op: OperationModel,
  body: unknown,
  options: { token?: number; headers?: Array<[string, string]>; raw?: string; url?: string } = {},
): RawRequest {
  const headers: Array<[string, string]> = options.headers ?? [['Content-Type', 'application/json']];
  if (options.token !== undefined) headers.push(['Authorization', `Bearer ${token(options.token)}`]);
  return { method: 'POST', url: options.url ?? op.path, headers, body: Buffer.from(options.raw ?? JSON.stringify(body)) };
}

const labels = (e: Expectation | undefined): string[] => (e?.alternatives.map((a) => a.label) ?? []).sort();
const body = (op: OperationModel): Record<string, unknown> => baseBody(op, FIXTURE[op.group]);

describe('predict', () => {
  it('expects exactly the answer the validation table expects for every wrong input, with and without a token', () => {
    let count = 0;
    for (const op of operationModels()) {
      for (const field of op.fields) {
        for (const wrong of wrongInputs(field, answers(op))) {
          for (const withToken of [false, true]) {
            const prediction = predict(request(op, withField(body(op), field.name, wrong.value), withToken ? { token: 1 } : {}), known);
            expect(labels(prediction?.expectation), `${op.operationId}.${field.name} as ${wrong.label}`).toEqual(labels(wrong.expectation));
            expect(prediction?.stage).toBe('inputs');
            count++;
          }
        }
      }
    }
    expect(count).toBeGreaterThan(40);
  });

  it('accepts every answer the property tests expect for a generated defect', () => {
    for (const op of operationModels()) {
      const a = answers(op);
      fc.assert(
        fc.property(defects(op, a), fc.boolean(), (defect, withToken) => {
          const prediction = predict(request(op, withField(body(op), defect.field, defect.value), withToken ? { token: 1 } : {}), known);
          const predicted = labels(prediction?.expectation);
          for (const label of labels(defect.expect(withToken))) expect(predicted, `${JSON.stringify(defect.value)}: ${prediction?.rule}`).toContain(label);
        }),
        { numRuns: 300 },
      );
    }
  });

  it('an unknown field is 400 "Unknown input field" or production’s 500, before the token; a 200 is never expected', () => {
    const op = operationModel('closeGoal');
    const prediction = predict(request(op, withField(body(op), 'name', 'x')), known);
    expect(labels(prediction?.expectation)).toEqual(labels({ alternatives: [answers(op).unknownField('name'), answers(op).decodingCrash] }));
  });

  it('follows the token rules: none, another scheme, a malformed token, a suspended person are 401; a read-only token 403', () => {
    const op = operationModel('resumeProject');
    const a = answers(op);
    const valid = body(op);
    const json: [string, string] = ['content-type', 'application/json'];
    expect(labels(predict(request(op, valid), known)?.expectation)).toEqual([a.unauthorized.label]);
    expect(labels(predict(request(op, valid, { headers: [json, ['authorization', `bearer ${token(1)}`]] }), known)?.expectation)).toEqual([
      a.unauthorized.label,
    ]);
    expect(labels(predict(request(op, valid, { headers: [json, ['authorization', 'Bearer garbage']] }), known)?.expectation)).toEqual([a.unauthorized.label]);
    expect(labels(predict(request(op, valid, { token: 5 }), known)?.expectation)).toEqual([a.unauthorized.label]);
    expect(predict(request(op, valid, { token: 2 }), known)).toMatchObject({ stage: 'read-only', expectation: { alternatives: [a.readOnly] } });
    // Only the first Authorization header counts; a bare token is read like "Bearer <token>".
    expect(predict(request(op, {}, { headers: [json, ['authorization', token(1)], ['authorization', 'Bearer garbage']] }), known)?.stage).toBe(
      'missing-fields',
    );
    expect(predict(request(op, {}, { headers: [json, ['authorization', 'Bearer garbage'], ['authorization', `Bearer ${token(1)}`]] }), known)?.stage).toBe(
      'token',
    );
  });

  it('lists the missing fields in declaration order after the token, and allows 401/403 for a token it does not know', () => {
    const op = operationModel('closeGoal');
    const a = answers(op);
    expect(labels(predict(request(op, {}, { token: 1 }), known)?.expectation)).toEqual([a.missingFields(op.required).label]);
    const missing = op.required.slice(-2);
    const partial = missing.reduce<Record<string, unknown>>((b, f) => withoutField(b, f), body(op));
    expect(labels(predict(request(op, partial, { token: 1 }), known)?.expectation)).toEqual([a.missingFields(missing).label]);
    expect(labels(predict(request(op, {}, { token: 9 }), known)?.expectation)).toEqual(
      labels({ alternatives: [a.unauthorized, a.readOnly, a.missingFields(op.required)] }),
    );
  });

  it('applies the persona rules to fixture records: full access 200, comment-only 403 JSON, no access 404; elsewhere any of them', () => {
    for (const op of operationModels()) {
      const a = answers(op);
      expect(labels(predict(request(op, body(op), { token: 1 }), known)?.expectation), op.operationId).toEqual(['200 with the changed record']);
      expect(labels(predict(request(op, body(op), { token: 3 }), known)?.expectation)).toEqual([a.forbidden.label]);
      expect(labels(predict(request(op, body(op), { token: 4 }), known)?.expectation)).toEqual([a.notFound.label]);
      const elsewhere = predict(request(op, withField(body(op), op.targetField, UNKNOWN_ID), { token: 4 }), known);
      expect(labels(elsewhere?.expectation)).toEqual(labels({ alternatives: [a.notFound, a.forbidden, success] }));
    }
  });

  it('expects the 500 of a failed operation, not a 200, for input that decodes but cannot be used (a rich text that is not a document)', () => {
    const op = operationModel('resumeProject');
    const prediction = predict(request(op, withField(body(op), 'message', '42'), { token: 1 }), known);
    expect(labels(prediction?.expectation)).toEqual([answers(op).operationFailed.label]);
  });

  it('follows transport: invalid JSON 400 (HTML, or JSON when Accept asks), Accept 406, Content-Type 415, no Content-Type ignores the body', () => {
    const op = operationModel('closeGoal');
    const a = answers(op);
    expect(labels(predict(request(op, undefined, { raw: '{"truncated": ' }))?.expectation)).toEqual([a.invalidJsonHtml.label]);
    expect(
      labels(
        predict(
          request(op, undefined, {
            raw: '{"truncated": ',
            headers: [
              ['content-type', 'application/json'],
              ['accept', 'application/json'],
            ],
          }),
        )?.expectation,
      ),
    ).toEqual([a.invalidJsonJson.label]);
    expect(
      labels(
        predict(
          request(op, body(op), {
            headers: [
              ['content-type', 'application/json'],
              ['accept', 'text/html'],
            ],
          }),
        )?.expectation,
      ),
    ).toEqual([a.notAcceptable.label]);
    expect(labels(predict(request(op, body(op), { headers: [['content-type', 'text/plain']] }))?.expectation)).toEqual([a.unsupportedMediaType.label]);
    expect(labels(predict(request(op, body(op), { headers: [], token: 1 }), known)?.expectation)).toEqual([a.missingFields(op.required).label]);
    expect(predict(request(op, body(op), { headers: [['content-type', 'application/x-www-form-urlencoded']] }))?.stage).toBe('unmodelled');
  });

  it('reads inputs from the query string, under the body', () => {
    const op = operationModel('resumeProject');
    const full = body(op);
    const prediction = predict(request(op, withoutField(full, 'project_id'), { token: 1, url: `${op.path}?project_id=${String(full['project_id'])}` }), known);
    expect(prediction).toMatchObject({ stage: 'record', story: 'paused' });
  });

  it('checks only the operations of the spec: other methods, paths and escaped paths are not predicted', () => {
    const op = operationModel('resumeProject');
    expect(predict({ ...request(op, {}), method: 'PUT' })).toBeUndefined();
    expect(predict({ ...request(op, {}), url: '/api/external/v1/projects/pause' })).toBeUndefined();
    expect(predict({ ...request(op, {}), url: '/api/external/v1/projects/%72esume' })).toBeUndefined();
    expect(predict({ ...request(op, {}), url: `${op.path.replace('/projects/', '//projects/')}/` })?.op.operationId).toBe('resumeProject');
  });
});
