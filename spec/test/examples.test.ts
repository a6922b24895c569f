import { describe, expect, it } from 'vitest';
import { loadDocument } from '../lib/openapi.ts';
import { createSchemaValidator, formatErrors } from '../lib/ajv.ts';
import { listExamples } from './walk.ts';

const document = loadDocument();
const validator = createSchemaValidator(document);
const examples = listExamples(document);

describe('every example in the spec satisfies its schema (Ajv 2020-12 with formats)', () => {
  it('finds the examples: request, response, error and schema examples', () => {
    const where = examples.map((e) => e.where);
    // The two first operations have two request examples each, paired with two 200 examples; one added since, more.
    expect(where.filter((w) => w.includes('request application/json example')).length).toBeGreaterThanOrEqual(4);
    expect(where.filter((w) => / 200 application\/json example/.test(w)).length).toBeGreaterThanOrEqual(4);
    expect(where.some((w) => w.includes('401 text/plain example'))).toBe(true);
    expect(where.some((w) => w.startsWith('Project.id examples') || w.startsWith('SlugId examples'))).toBe(true);
    expect(examples.length).toBeGreaterThan(60);
  });

  it.each(examples.map((e) => [e.where, e] as const))('%s', (_where, example) => {
    const errors = validator.validate(example.schemaPointer, example.value);
    expect(formatErrors(errors)).toBe('');
  });
});

describe('the validator is strict enough to catch real mistakes', () => {
  const response = examples.find((e) => e.where.endsWith('200 application/json example "paused_project"'));
  const project = (): Record<string, unknown> => {
    const value = structuredClone(response?.value) as { project: Record<string, unknown> };
    return value.project;
  };
  const check = (projectValue: Record<string, unknown>): string => formatErrors(validator.validate(response?.schemaPointer ?? '', { project: projectValue }));

  it('rejects a project without a field the seed lists', () => {
    const value = project();
    delete value['tasks_view'];
    expect(check(value)).toContain("must have required property 'tasks_view'");
  });

  it('rejects null in success_status, which is the string "nil" for open projects', () => {
    expect(check({ ...project(), success_status: null })).toContain('/project/success_status must be string');
  });

  it('rejects a date where a date-time is documented', () => {
    expect(check({ ...project(), updated_at: '2025-06-13' })).toContain('/project/updated_at must match format "date-time"');
  });

  it('rejects an id without its short id', () => {
    expect(check({ ...project(), id: 'localize-onboarding' })).toContain('/project/id must match pattern');
  });

  it('rejects an unknown state', () => {
    expect(check({ ...project(), state: 'resumed' })).toContain('/project/state must be equal to one of the allowed values');
  });
});
