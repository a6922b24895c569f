// Reading a seed from JSON (npm start -- --seed FILE): the whole Seed is validated against a JSON Schema derived from
// the spec (state.ts's rows, whose enums, access levels and templates are the spec's own schemas), and every error
// names the path of the first wrong field, so a bad seed is exit 2 at start, never a 500 on every request later.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { isObject, loadDocument, pointerTo } from '../../spec/lib/openapi.ts';
import { createAjv } from '../../spec/lib/ajv.ts';
import { schemaViolations } from '../../spec/lib/schemas.ts';
import { GOAL_STORIES, PERSONAS, PROJECT_STORIES, type Seed } from './state.ts';

const spec = (name: string): { $ref: string } => ({ $ref: `openapi.json${pointerTo('components', 'schemas', name)}` });
const nullable = (schema: object): object => ({ anyOf: [schema, { type: 'null' }] });
const string = { type: 'string' };
const timestamp = { type: 'string', format: 'date-time' };
const uuid = { type: 'string', format: 'uuid' };
const row = (properties: Record<string, object>): object => ({ type: 'object', required: Object.keys(properties), properties });
const access = row({
  public: spec('AccessLevel'),
  company: spec('AccessLevel'),
  space: spec('AccessLevel'),
  people: { type: 'object', additionalProperties: spec('AccessLevel') },
});

/** A map of strings that has every one of `names`, and may have more. */
const named = (names: ReadonlyArray<string>): object => ({
  type: 'object',
  required: [...names],
  properties: Object.fromEntries(names.map((name) => [name, string])),
  additionalProperties: string,
});

/** The JSON Schema of a seed file: state.ts's row types, with the spec's schemas for every enum, level and template. */
function seedSchema(): object {
  const list = (item: object): object => ({ type: 'array', items: item });
  return {
    type: 'object',
    required: ['state', 'fixtures'],
    properties: {
      state: row({
        company: row({ uuid, id: string, name: string, billing_read_only: { type: 'boolean' }, app_origin: { type: 'string', format: 'uri' } }),
        people: list(
          row({
            uuid,
            full_name: string,
            title: nullable(string),
            email: string,
            type: spec('PersonType'),
            avatar_url: nullable(string),
            suspended: { type: 'boolean' },
            company_admin: { type: 'boolean' },
          }),
        ),
        spaces: list(row({ uuid, name: string, member_uuids: list(uuid) })),
        projects: list(
          row({
            uuid,
            name: string,
            space_uuid: uuid,
            goal_uuid: nullable(uuid),
            champion_uuid: nullable(uuid),
            reviewer_uuid: nullable(uuid),
            stored_status: spec('ProjectState'),
            closed_at: nullable(timestamp),
            success_status: nullable(spec('SuccessStatus')),
            next_check_in_scheduled_at: nullable(timestamp),
            inserted_at: timestamp,
            updated_at: timestamp,
            deleted_at: nullable(timestamp),
            access,
            template: spec('Project'),
          }),
        ),
        goals: list(
          row({
            uuid,
            name: string,
            space_uuid: uuid,
            champion_uuid: nullable(uuid),
            reviewer_uuid: nullable(uuid),
            closed_at: nullable(timestamp),
            closed_by_uuid: nullable(uuid),
            success: nullable(string),
            success_status: nullable(spec('SuccessStatus')),
            next_update_scheduled_at: nullable(timestamp),
            inserted_at: timestamp,
            updated_at: timestamp,
            deleted_at: nullable(timestamp),
            access,
            template: spec('Goal'),
          }),
        ),
        tokens: list(row({ persona: string, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' }, person_uuid: uuid, read_only: { type: 'boolean' } })),
        activities: list({ type: 'object' }),
        comment_threads: list({ type: 'object' }),
        subscription_lists: list({ type: 'object' }),
        subscriptions: list({ type: 'object' }),
        notifications: list({ type: 'object' }),
      }),
      // Every persona's token and every story's record (state.ts, Fixtures), and any more a seed adds.
      fixtures: row({
        tokens: named(PERSONAS),
        projects: named(PROJECT_STORIES),
        goals: named(GOAL_STORIES),
        people: { type: 'object', additionalProperties: string },
      }),
    },
  };
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
    ajv.addSchema(loadDocument(), 'openapi.json');
    const compiled = ajv.compile(seedSchema());
    validateSeed = (candidate) => (compiled(candidate) ? undefined : compiled.errors?.[0]);
  }
  const error = validateSeed(value);
  if (!error) return undefined;
  return error.keyword === 'required' ? `${pathOf(error)} is missing` : `${pathOf(error)} ${error.message ?? error.keyword}`;
}

const STATE_LISTS = [
  'people',
  'spaces',
  'projects',
  'goals',
  'tokens',
  'activities',
  'comment_threads',
  'subscription_lists',
  'subscriptions',
  'notifications',
] as const;

function isSeed(value: unknown): value is Seed {
  return seedError(value) === undefined;
}

function seedError(value: unknown): string | undefined {
  if (!isObject(value)) return 'the top level must be an object with "state" and "fixtures"';
  const { state, fixtures } = value;
  if (!isObject(state)) return '$.state must be an object';
  if (!isObject(fixtures)) return '$.fixtures must be an object';
  if (!isObject(state['company'])) return '$.state.company must be an object';
  for (const list of STATE_LISTS) if (!Array.isArray(state[list])) return `$.state.${list} must be an array`;
  for (const key of ['tokens', 'projects', 'goals', 'people']) {
    const map = fixtures[key];
    if (!isObject(map)) return `$.fixtures.${key} must be an object`;
    for (const [name, id] of Object.entries(map)) if (typeof id !== 'string') return `$.fixtures.${key}.${name} must be a string`;
  }
  const tokens = state['tokens'];
  if (Array.isArray(tokens)) {
    for (const [i, token] of tokens.entries()) {
      if (!isObject(token) || typeof token['sha256'] !== 'string' || !/^[0-9a-f]{64}$/.test(token['sha256']))
        return `$.state.tokens[${i}].sha256 must be 64 lowercase hex digits (the SHA-256 of the raw token)`;
      if (typeof token['person_uuid'] !== 'string' || typeof token['read_only'] !== 'boolean')
        return `$.state.tokens[${i}] must have a person_uuid and a boolean read_only`;
    }
  }
  for (const [list, schema] of [
    ['projects', 'Project'],
    ['goals', 'Goal'],
  ] as const) {
    const rows = state[list];
    if (!Array.isArray(rows)) continue;
    for (const [i, row] of rows.entries()) {
      if (!isObject(row) || typeof row['uuid'] !== 'string' || typeof row['name'] !== 'string') return `$.state.${list}[${i}] must have a uuid and a name`;
      const problems = schemaViolations(schema, row['template']);
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
