// Every field of the seed's tables is in the bundled spec with the seed's name, broad type, required and nullable
// flags (RULES.md#decision-1 says the seed wins on shape). The tables are data in this repository
// (seed-tables.json, copied verbatim from the seed document), so the test needs nothing outside the tree.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dereference, isObject, loadDocument, pointerTo, type JsonObject } from '../lib/openapi.ts';

const document = loadDocument();

type Row = Record<string, string>;
type SeedTables = {
  objects: Record<'Project' | 'Goal', { heading: string; rows: Row[] }>;
  endpoints: Record<string, { request: Row[]; response: Row[] }>;
};
const seed = JSON.parse(readFileSync(new URL('./seed-tables.json', import.meta.url), 'utf8')) as SeedTables;

type Shape = { pointer: string; types: Set<string>; nullable: boolean; schema: JsonObject };

/** What a property schema admits: its JSON types (following $ref and `oneOf: [X, null]`) and whether null is one. */
function shape(pointer: string): Shape {
  const { pointer: at, value } = dereference(document, pointer);
  if (!isObject(value)) throw new Error(`no schema at ${pointer}`);
  const types = new Set<string>();
  let nullable = false;
  let schema = value;
  let schemaPointer = at;
  const variants = value['oneOf'] ?? value['anyOf'];
  if (Array.isArray(variants)) {
    variants.forEach((variant, i) => {
      if (isObject(variant) && variant['type'] === 'null') nullable = true;
      else {
        const inner = shape(`${at}/${value['oneOf'] ? 'oneOf' : 'anyOf'}/${i}`);
        for (const t of inner.types) types.add(t);
        nullable ||= inner.nullable;
        schema = inner.schema;
        schemaPointer = inner.pointer;
      }
    });
  } else {
    const type = value['type'];
    for (const t of Array.isArray(type) ? type : [type]) {
      if (t === 'null') nullable = true;
      else if (typeof t === 'string') types.add(t);
    }
    if (types.size === 0 && 'const' in value) types.add(typeof value['const']);
  }
  return { pointer: schemaPointer, types, nullable, schema };
}

function expectShape(pointer: string, seedShape: string): void {
  const s = shape(pointer);
  const label = `${pointer} (seed: ${seedShape})`;
  const base = seedShape.split(';')[0]?.trim() ?? '';
  if (base === 'string' || base.endsWith('(string)') || base === 'id string') {
    expect(s.types, label).toEqual(new Set(['string']));
    if (base.startsWith('id')) expect(typeof s.schema['pattern'], `${label} carries a pattern`).toBe('string');
  } else if (base === 'date/time') {
    expect(s.types, label).toEqual(new Set(['string']));
    expect(s.schema['format'], label).toBe('date-time');
  } else if (base === 'boolean') {
    expect(s.types, label).toEqual(new Set(['boolean']));
  } else if (base === 'number (decimal)') {
    expect(s.types, label).toEqual(new Set(['number']));
  } else if (base.startsWith('enum:')) {
    expect(s.types, label).toEqual(new Set(['string']));
    expect(s.schema['enum'], label).toEqual(
      base
        .slice(5)
        .split(',')
        .map((v) => v.trim()),
    );
  } else if (base.startsWith('array of')) {
    expect(s.types, label).toEqual(new Set(['array']));
    const items = shape(`${s.pointer}/items`);
    const itemType = /objects$/.test(base) ? 'object' : 'string';
    expect(items.types, `${label} items`).toEqual(new Set([itemType]));
    if (itemType === 'object') expect(isObject(items.schema['properties']), `${label} items have declared fields`).toBe(true);
  } else if (/ object( \(see Resources\))?$/.test(base)) {
    expect(s.types, label).toEqual(new Set(['object']));
    expect(isObject(s.schema['properties']) && Object.keys(s.schema['properties']).length > 0, `${label} has declared fields`).toBe(true);
  } else {
    throw new Error(`the seed shape "${seedShape}" is not understood by this test`);
  }
  const sample = /a sample shows the value (\w+)/.exec(seedShape)?.[1];
  if (sample && Array.isArray(s.schema['enum'])) expect(s.schema['enum'], `${label} admits the sample value`).toContain(sample);
}

describe('the seed is fully in the spec', () => {
  const objects = [
    { schema: 'Project', allRequired: true },
    { schema: 'Goal', allRequired: false },
  ] as const;

  describe.each(objects)('$schema', ({ schema, allRequired }) => {
    const rows = seed.objects[schema].rows;
    const componentPointer = pointerTo('components', 'schemas', schema);
    const component = dereference(document, componentPointer).value as JsonObject;
    const required = new Set(component['required'] as string[]);

    it('has the seed field count', () => {
      expect(rows.length).toBeGreaterThan(30);
      expect(Object.keys(component['properties'] as object)).toEqual(expect.arrayContaining(rows.map((r) => r['Field'])));
    });

    it.each(rows.map((r) => [r['Field'] ?? '', r['Shape'] ?? ''] as const))('%s: %s', (field, seedShape) => {
      expectShape(`${componentPointer}/properties/${field}`, seedShape);
      if (allRequired) expect(required.has(field), `${schema}.${field} is required ("All listed fields are present")`).toBe(true);
    });
  });

  const endpoints = [
    { path: '/api/external/v1/projects/resume', envelope: 'project' },
    { path: '/api/external/v1/goals/close', envelope: 'goal' },
  ];

  it('the data holds both operations of the seed and nothing else', () => {
    expect(Object.keys(seed.endpoints).sort()).toEqual(endpoints.map((e) => e.path).sort());
  });

  describe.each(endpoints)('$path', ({ path, envelope }) => {
    const tables = seed.endpoints[path];
    if (!tables) throw new Error(`seed-tables.json has no tables for ${path}`);
    const operation = pointerTo('paths', path, 'post');
    const requestSchema = `${dereference(document, `${operation}/requestBody`).pointer}/content/application~1json/schema`;
    const request = dereference(document, requestSchema);
    const requestRequired = new Set((request.value as JsonObject)['required'] as string[]);
    const rows = tables.request;

    it('has no request field beyond the seed', () => {
      expect(Object.keys((request.value as JsonObject)['properties'] as object).sort()).toEqual(rows.map((r) => r['Field']).sort());
    });

    it.each(rows.map((r) => [r['Field'] ?? '', r] as const))('request %s', (field, row) => {
      const pointer = `${request.pointer}/properties/${field}`;
      expectShape(pointer, row['Type'] ?? '');
      expect(requestRequired.has(field), `${field} required`).toBe(row['Required'] === 'yes');
      expect(shape(pointer).nullable, `${field} nullable`).toBe(row['Nullable'] === 'yes');
      if (row['Default'] === 'none stated') expect(shape(pointer).schema['default'], `${field} has no default`).toBeUndefined();
    });

    it(`answers 200 with a required, non-null "${envelope}"`, () => {
      const [row] = tables.response;
      expect(row).toMatchObject({ Field: envelope, Required: 'yes', Nullable: 'no' });
      const responseSchema = `${dereference(document, `${operation}/responses/200`).pointer}/content/application~1json/schema`;
      const envelopeSchema = dereference(document, responseSchema).value as JsonObject;
      expect(envelopeSchema['required']).toEqual([envelope]);
      const property = shape(`${dereference(document, responseSchema).pointer}/properties/${envelope}`);
      expect(property.nullable).toBe(false);
      expect(property.types).toEqual(new Set(['object']));
    });
  });
});
