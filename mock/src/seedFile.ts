// Reading a seed from JSON (npm start -- --seed FILE): the shape of a Seed, each record's template checked against
// the spec's schema, every error naming its path.
import { isObject } from '../../spec/lib/openapi.ts';
import { schemaViolations } from '../../spec/lib/schemas.ts';
import type { Seed } from './state.ts';

const STATE_LISTS = ['people', 'spaces', 'projects', 'goals', 'tokens', 'activities', 'comment_threads', 'subscription_lists', 'subscriptions', 'notifications'] as const;

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
      if (!isObject(token) || typeof token['sha256'] !== 'string' || !/^[0-9a-f]{64}$/.test(token['sha256'])) return `$.state.tokens[${i}].sha256 must be 64 lowercase hex digits (the SHA-256 of the raw token)`;
      if (typeof token['person_uuid'] !== 'string' || typeof token['read_only'] !== 'boolean') return `$.state.tokens[${i}] must have a person_uuid and a boolean read_only`;
    }
  }
  for (const [list, schema] of [['projects', 'Project'], ['goals', 'Goal']] as const) {
    const rows = state[list];
    if (!Array.isArray(rows)) continue;
    for (const [i, row] of rows.entries()) {
      if (!isObject(row) || typeof row['uuid'] !== 'string' || typeof row['name'] !== 'string') return `$.state.${list}[${i}] must have a uuid and a name`;
      const problems = schemaViolations(schema, row['template']);
      if (problems) return `$.state.${list}[${i}].template is not a valid ${schema}: ${problems}`;
    }
  }
  return undefined;
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
