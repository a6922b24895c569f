// Reading GET /__mock/state and /__mock/events in tests without casts: every table an array of objects, and each
// field read through a checked accessor that fails loudly when the shape is not what the test expects.
import { isObject, type JsonObject } from '../../../spec/lib/openapi.ts';

const TABLES = [
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
type Table = (typeof TABLES)[number];
export type StateView = Record<Table, JsonObject[]>;

function rowsOf(value: unknown, where: string): JsonObject[] {
  if (!Array.isArray(value) || !value.every(isObject)) throw new Error(`${where} is not an array of objects`);
  return value.filter(isObject);
}

/** GET /__mock/state's body as tables of rows. */
export function readState(value: unknown): StateView {
  if (!isObject(value)) throw new Error('GET /__mock/state did not return an object');
  const view: Partial<StateView> = {};
  for (const table of TABLES) view[table] = rowsOf(value[table], `state.${table}`);
  return {
    people: [],
    spaces: [],
    projects: [],
    goals: [],
    tokens: [],
    activities: [],
    comment_threads: [],
    subscription_lists: [],
    subscriptions: [],
    notifications: [],
    ...view,
  };
}

/** GET /__mock/events' events. */
export function readEvents(value: unknown): JsonObject[] {
  if (!isObject(value)) throw new Error('GET /__mock/events did not return an object');
  return rowsOf(value['events'], 'events');
}

export function str(row: JsonObject, key: string): string {
  const value = row[key];
  if (typeof value !== 'string') throw new Error(`${key} is not a string in ${JSON.stringify(row).slice(0, 200)}`);
  return value;
}

export function strOrNull(row: JsonObject, key: string): string | null {
  const value = row[key];
  if (value !== null && typeof value !== 'string') throw new Error(`${key} is neither a string nor null in ${JSON.stringify(row).slice(0, 200)}`);
  return value;
}

export function obj(row: JsonObject, key: string): JsonObject {
  const value = row[key];
  if (!isObject(value)) throw new Error(`${key} is not an object in ${JSON.stringify(row).slice(0, 200)}`);
  return value;
}

export function list(row: JsonObject, key: string): JsonObject[] {
  return rowsOf(row[key], key);
}
