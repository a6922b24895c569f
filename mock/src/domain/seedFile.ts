// Reading a seed from JSON (npm start -- --seed FILE): the whole Seed is validated against mock/openapi.yaml's State
// schema (the rows state.ts's types are generated from; their enums and access levels are the spec's own) and the
// names its Fixtures schema requires, and every record's template against the API's Project or Goal. Every error
// names the path of the first wrong field, so a bad seed is exit 2 at start, never a 500 on every request later.
import type { ErrorObject } from 'ajv/dist/2020.js';
import control from '../../../generated/mock-control.json' with { type: 'json' };
import { isObject, pointerTo, resolvePointer, type JsonObject } from '../../../spec/lib/openapi.ts';
import { createAjv } from '../../../spec/lib/ajv.ts';
import { schemaViolations } from '../../../spec/lib/schemas.ts';
import { GOAL_STORIES, PERSONAS, PROJECT_STORIES, type Seed } from './state.ts';

const CONTROL_ID = 'mock-control.json';
const controlSchema = (name: string): { $ref: string } => ({ $ref: `${CONTROL_ID}${pointerTo('components', 'schemas', name)}` });

/** A map of strings that has every one of `names`, and may have more. */
const named = (names: ReadonlyArray<string>): object => ({
  type: 'object',
  required: [...names],
  properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
  additionalProperties: { type: 'string' },
});

/**
 * A seed file: mock/openapi.yaml's State, and the names its Fixtures schema requires (generated/mock-fixtures.ts), as
 * a seed gives them: raw tokens of any form, records by UUID, and no session.
 */
const SEED_SCHEMA = {
  type: 'object',
  required: ['state', 'fixtures'],
  properties: {
    state: controlSchema('State'),
    fixtures: {
      type: 'object',
      required: ['tokens', 'projects', 'goals', 'people'],
      properties: { tokens: named(PERSONAS), projects: named(PROJECT_STORIES), goals: named(GOAL_STORIES), people: named([]) },
    },
  },
};

/** The State schema's lists (people, spaces, projects …), in its order. */
function stateLists(): string[] {
  const state = resolvePointer(control as JsonObject, controlSchema('State').$ref.slice(CONTROL_ID.length));
  const properties = isObject(state) && isObject(state['properties']) ? state['properties'] : {};
  return Object.entries(properties)
    .filter(([, schema]) => isObject(schema) && schema['type'] === 'array')
    .map(([name]) => name);
}

/** `$.state.projects[0].access`, from an Ajv instance path (and the missing property of a `required` error). */
function pathOf(error: ErrorObject): string {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((raw) => raw.replaceAll('~1', '/').replaceAll('~0', '~'));
  const missing = error.keyword === 'required' ? String(error.params['missingProperty']) : undefined;
  return `$${[...parts, ...(missing === undefined ? [] : [missing])].map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('')}`;
}

let validateSeed: ((value: unknown) => ErrorObject | undefined) | undefined;

/** The first field of a seed that breaks the derived schema, as `path message`; undefined when the seed conforms. */
function schemaError(value: unknown): string | undefined {
  if (!validateSeed) {
    const ajv = createAjv({ allErrors: false, fastCompile: true });
    ajv.addSchema(control, CONTROL_ID);
    const compiled = ajv.compile(SEED_SCHEMA);
    validateSeed = (candidate) => (compiled(candidate) ? undefined : compiled.errors?.[0]);
  }
  const error = validateSeed(value);
  if (!error) return undefined;
  return error.keyword === 'required' ? `${pathOf(error)} is missing` : `${pathOf(error)} ${error.message ?? error.keyword}`;
}

function isSeed(value: unknown): value is Seed {
  return seedError(value) === undefined;
}

function seedError(value: unknown): string | undefined {
  if (!isObject(value)) return 'the top level must be an object with "state" and "fixtures"';
  const { state, fixtures } = value;
  if (!isObject(state)) return '$.state must be an object';
  if (!isObject(fixtures)) return '$.fixtures must be an object';
  if (!isObject(state['company'])) return '$.state.company must be an object';
  for (const list of stateLists()) if (!Array.isArray(state[list])) return `$.state.${list} must be an array`;
  // The templates first, against the API's own schemas (the control document says only "an object"): the rows'
  // own fields are mostly derived from them, so a wrong template is the cause of most other errors.
  for (const [list, schema] of [
    ['projects', 'Project'],
    ['goals', 'Goal'],
  ] as const) {
    const rows = state[list];
    if (!Array.isArray(rows)) continue;
    for (const [i, row] of rows.entries()) {
      const problems = schemaViolations(schema, isObject(row) ? row['template'] : undefined);
      if (problems) return `$.state.${list}[${i}].template is not a valid ${schema}: ${problems}`;
    }
  }
  return schemaError(value);
}

export function parseSeed(text: string): { ok: true; seed: Seed } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (isSeed(value)) return { ok: true, seed: value };
  return { ok: false, error: seedError(value) ?? 'invalid seed' };
}
