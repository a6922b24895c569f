// The acyclic export (generated/openapi.acyclic.json, spec/lib/acyclic.ts) is the literal spec with each cycle cut at
// a back-reference by a named reference schema, and nothing else changed.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { acyclicProjection, findCycle, referenceSchemaName, schemaGraph } from '../lib/acyclic.ts';
import { isObject, type JsonObject } from '../lib/openapi.ts';
import { loadFullDocument } from '../lib/files.ts';
import { ACYCLIC_DOCUMENT_URL } from '../lib/files.ts';
import { createSchemaValidator, formatErrors } from '../lib/ajv.ts';
import { listExamples } from './walk.ts';

vi.setConfig({ testTimeout: 60_000 });

// The literal document with its prose, as the projection was made from it.
const literal = await loadFullDocument();
const parsed: unknown = JSON.parse(readFileSync(ACYCLIC_DOCUMENT_URL, 'utf8'));
if (!isObject(parsed)) throw new Error('generated/openapi.acyclic.json is not a JSON object');
const acyclic: JsonObject = parsed;

const schemasOf = (document: JsonObject): JsonObject => {
  const components = isObject(document['components']) ? document['components'] : {};
  return isObject(components['schemas']) ? components['schemas'] : {};
};
const REFERENCE = /^#\/components\/schemas\/(.+)Reference$/;

/** `value` with every `$ref` to `<Name>Reference` turned back into `$ref` to `<Name>`. */
function restored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(restored);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === '$ref' && typeof v === 'string' && REFERENCE.test(v) ? v.replace(REFERENCE, '#/components/schemas/$1') : restored(v),
    ]),
  );
}

/** The places where the acyclic export references `<Name>Reference`, with the schema that holds each. */
function cutsIn(document: JsonObject): Array<{ from: string; to: string }> {
  const found: Array<{ from: string; to: string }> = [];
  const walk = (from: string, node: unknown): void => {
    if (Array.isArray(node)) for (const n of node) walk(from, n);
    else if (isObject(node)) {
      const ref = node['$ref'];
      const match = typeof ref === 'string' ? REFERENCE.exec(ref) : null;
      if (match?.[1]) found.push({ from, to: match[1] });
      for (const v of Object.values(node)) walk(from, v);
    }
  };
  for (const [name, schema] of Object.entries(schemasOf(document))) walk(name, schema);
  return found;
}

describe('the acyclic export (generated/openapi.acyclic.json)', () => {
  it('has no cycle of schema references, where the literal spec has them', () => {
    expect(findCycle(schemaGraph(literal))).toBeDefined();
    expect(findCycle(schemaGraph(acyclic))).toBeUndefined();
  });

  it('is exactly what spec/lib/acyclic.ts makes of the literal spec', () => {
    expect(acyclic).toEqual(acyclicProjection(literal).document);
  });

  it('keeps every named schema, and each differs from the literal one only where a reference schema stands in', () => {
    const before = schemasOf(literal);
    const after = schemasOf(acyclic);
    for (const name of Object.keys(before)) expect(restored(after[name]), name).toEqual(before[name]);
    const added = Object.keys(after).filter((name) => !(name in before));
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((name) => name.endsWith('Reference') && name.slice(0, -'Reference'.length) in before)).toBe(true);
  });

  it('keeps every operation, response, example, header, security rule, server and tag as they are', () => {
    const { components: literalComponents, info: literalInfo, ...literalRest } = literal;
    const { components: acyclicComponents, info: acyclicInfo, ...acyclicRest } = acyclic;
    expect(acyclicRest).toEqual(literalRest);
    const { schemas: _a, ...otherLiteral } = isObject(literalComponents) ? literalComponents : {};
    const { schemas: _b, ...otherAcyclic } = isObject(acyclicComponents) ? acyclicComponents : {};
    expect(otherAcyclic).toEqual(otherLiteral);
    const { description: literalDescription, ...literalInfoRest } = isObject(literalInfo) ? literalInfo : {};
    const { description: acyclicDescription, ...acyclicInfoRest } = isObject(acyclicInfo) ? acyclicInfo : {};
    expect(acyclicInfoRest).toEqual(literalInfoRest);
    expect(String(acyclicDescription).startsWith(String(literalDescription).trimEnd())).toBe(true);
    expect(String(acyclicDescription)).toContain('`generated/openapi.json`, which is the source of truth');
  });

  it('cuts only back-references: each replaced reference points at a schema that leads back to the one holding it', () => {
    const graph = schemaGraph(literal);
    const reaches = (start: string, goal: string): boolean => {
      const seen = new Set<string>();
      const stack = [start];
      for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
        if (node === goal) return true;
        if (seen.has(node)) continue;
        seen.add(node);
        stack.push(...(graph.get(node) ?? []));
      }
      return false;
    };
    const cuts = cutsIn(acyclic);
    expect(cuts.length).toBe(acyclicProjection(literal).cuts.length);
    for (const { from, to } of cuts) expect(reaches(to, from), `${from} → ${to}`).toBe(true);
  });

  it("gives each reference schema its record's __typename and id as the full schema declares them, and names the full schema", () => {
    const before = schemasOf(literal);
    const after = schemasOf(acyclic);
    for (const target of new Set(cutsIn(acyclic).map((c) => c.to))) {
      const reference = after[referenceSchemaName(target)];
      const full = before[target];
      if (!isObject(reference) || !isObject(full) || !isObject(reference['properties']) || !isObject(full['properties']))
        throw new Error(`${target}: missing schema`);
      expect(Object.keys(reference['properties']), target).toEqual(['__typename', 'id']);
      expect(reference['properties']['__typename']).toEqual(full['properties']['__typename']);
      expect(reference['properties']['id']).toEqual(full['properties']['id']);
      const required = Array.isArray(full['required']) ? full['required'] : [];
      expect(reference['required'] ?? []).toEqual(required.filter((key) => key === '__typename' || key === 'id'));
      expect(reference['additionalProperties']).toBe(true);
      expect(String(reference['description'])).toContain(`\`${target}\` (components/schemas/${target})`);
      expect(String(reference['description'])).toContain('generated/openapi.json');
    }
  });

  it('has every example of the literal spec, and each satisfies its schema (Ajv 2020-12 with formats)', () => {
    const examples = listExamples(acyclic);
    expect(examples.map((e) => e.where).sort()).toEqual(expect.arrayContaining(listExamples(literal).map((e) => e.where)));
    const validator = createSchemaValidator(acyclic);
    const failures = examples
      .map((e) => ({ where: e.where, errors: formatErrors(validator.validate(e.schemaPointer, e.value)) }))
      .filter((f) => f.errors !== '');
    expect(failures).toEqual([]);
  });

  it("lints with zero problems under the spec's own Redocly rules", () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const output = execFileSync(
      `${root}node_modules/.bin/redocly`,
      ['lint', fileURLToPath(ACYCLIC_DOCUMENT_URL), '--config', `${root}spec/redocly.yaml`, '--format', 'stylish'],
      { encoding: 'utf8', stdio: 'pipe', env: { ...process.env, REDOCLY_TELEMETRY: 'off' } },
    );
    expect(output).not.toMatch(/warning|error/i);
  });
});

describe('acyclicProjection', () => {
  const record = (typename: string, refs: Record<string, string>): JsonObject => ({
    type: 'object',
    required: ['__typename', 'id'],
    properties: {
      __typename: { type: 'string', const: typename },
      id: { type: 'string' },
      ...Object.fromEntries(Object.entries(refs).map(([key, to]) => [key, { $ref: `#/components/schemas/${to}` }])),
    },
  });
  const documentWith = (schemas: JsonObject): JsonObject => ({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/a': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Project' } } } } } } },
    },
    components: { schemas },
  });

  it('cuts a cycle at the reference that leads back toward the operation, and nothing else', () => {
    const { document, cuts } = acyclicProjection(
      documentWith({ Project: record('project', { champion: 'Person' }), Person: record('person', { project: 'Project', manager: 'Person' }) }),
    );
    expect(cuts.map((c) => `${c.from}.${c.pointer.split('/').slice(-1)[0]} → ${c.to}`)).toEqual(['Person.project → Project', 'Person.manager → Person']);
    expect(findCycle(schemaGraph(document))).toBeUndefined();
    const schemas = schemasOf(document);
    expect(Object.keys(schemas)).toEqual(['Project', 'ProjectReference', 'Person', 'PersonReference']);
    expect(schemas['Project']).toEqual(record('project', { champion: 'Person' }));
  });

  it('refuses a cycle that passes through no record, since there is nothing to cut it at', () => {
    const union = { anyOf: [{ $ref: '#/components/schemas/Wrapper' }, { type: 'null' }] };
    expect(() =>
      acyclicProjection(documentWith({ Project: record('project', { part: 'Wrapper' }), Wrapper: { type: 'object', properties: { inner: union } } })),
    ).toThrow(/no record \(a schema with __typename and id\) to cut at: Wrapper → Wrapper/);
  });
});
