// A change is named under every operation that shows it (the design, "Added in the fourth round"):
// for random single edits of random component schemas of this package's spec, the operations a change names are
// exactly those whose request (or answer, by the change's direction) reaches the schema, computed here on its own, by
// a fixpoint over the component graph rather than the diff's walk. And the cases the issue names, pinned.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { diffDocuments } from '../diff/diff.ts';

// biome-ignore lint/suspicious/noExplicitAny: a fixture, edited by path
type Json = Record<string, any>;

const ROOT = new URL('../..', import.meta.url).pathname;
const SPEC = join(ROOT, 'generated', 'openapi.json');
const spec = (): Json => JSON.parse(readFileSync(SPEC, 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'diff-operations-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The component refs (`schemas/Goal`) written directly in a node. */
function refsIn(node: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) for (const item of node) refsIn(item, into);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')) into.add(value.slice('#/components/'.length));
      else refsIn(value, into);
    }
  }
  return into;
}

/** For each operation and direction, every component it reaches: the direct refs, closed under the component graph. */
function reachedBy(document: Json): Map<string, { request: Set<string>; response: Set<string> }> {
  const graph = new Map<string, Set<string>>();
  for (const [kind, group] of Object.entries<Json>(document['components'] ?? {}))
    for (const [name, node] of Object.entries(group)) graph.set(`${kind}/${name}`, refsIn(node));
  const close = (start: Set<string>): Set<string> => {
    const all = new Set(start);
    let grew = true;
    while (grew) {
      grew = false;
      for (const key of [...all])
        for (const next of graph.get(key) ?? [])
          if (!all.has(next)) {
            all.add(next);
            grew = true;
          }
    }
    return all;
  };
  const out = new Map<string, { request: Set<string>; response: Set<string> }>();
  for (const item of Object.values<Json>(document['paths']))
    for (const operation of Object.values<Json>(item))
      if (operation && typeof operation === 'object' && typeof operation['operationId'] === 'string')
        out.set(operation['operationId'], {
          request: close(refsIn([operation['requestBody'], operation['parameters'] ?? [], item['parameters'] ?? []])),
          response: close(refsIn(operation['responses'])),
        });
  return out;
}

const expectedOperations = (document: Json, schema: string, direction: 'request' | 'response'): string[] =>
  [...reachedBy(document)]
    .filter(([, reach]) => reach[direction].has(`schemas/${schema}`))
    .map(([id]) => id)
    .sort();

type Edit = { schema: string; kind: 'description' | 'remove' | 'retype'; property?: string };

/** The edits the property picks from: every schema some operation reaches, each way it can be edited. */
function edits(document: Json): Edit[] {
  const reached = new Set([...reachedBy(document).values()].flatMap((r) => [...r.request, ...r.response]));
  const out: Edit[] = [];
  for (const [name, schema] of Object.entries<Json>(document['components']['schemas'])) {
    if (!reached.has(`schemas/${name}`)) continue;
    out.push({ schema: name, kind: 'description' });
    for (const [property, node] of Object.entries<Json>(schema['properties'] ?? {})) {
      out.push({ schema: name, kind: 'remove', property });
      if (typeof node['type'] === 'string') out.push({ schema: name, kind: 'retype', property });
    }
  }
  return out;
}

function apply(document: Json, edit: Edit): void {
  const schema = document['components']['schemas'][edit.schema];
  if (edit.kind === 'description') schema['description'] = `${schema['description'] ?? ''} Edited.`;
  else if (edit.kind === 'remove' && edit.property !== undefined) {
    delete schema['properties'][edit.property];
    if (Array.isArray(schema['required'])) schema['required'] = schema['required'].filter((r: string) => r !== edit.property);
  } else if (edit.property !== undefined) {
    const node = schema['properties'][edit.property];
    node['type'] = node['type'] === 'integer' ? 'string' : 'integer';
  }
}

let file = 0;
async function diffEdited(document: Json): Promise<Awaited<ReturnType<typeof diffDocuments>>> {
  const path = join(work, `edited-${file++}.json`);
  writeFileSync(path, JSON.stringify(document));
  return diffDocuments(SPEC, path);
}

describe('every operation a change reaches is named', () => {
  it('for random single edits of random component schemas: exactly the operations that reach the schema that way', async () => {
    const base = spec();
    const candidates = edits(base);
    expect(candidates.length).toBeGreaterThan(100);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...candidates), async (edit) => {
        const revision = spec();
        apply(revision, edit);
        const report = await diffEdited(revision);
        const mine = report.changes.filter(
          (c) => c.pointer.startsWith(`#/components/schemas/${edit.schema}/`) || c.pointer === `#/components/schemas/${edit.schema}`,
        );
        expect(mine.length, `${JSON.stringify(edit)} reports a change`).toBeGreaterThan(0);
        for (const c of mine) {
          if (c.direction === 'document') throw new Error(`${JSON.stringify(edit)}: ${c.id} has no direction`);
          // A removal is named as the base had it; the edit leaves who reaches the schema as it was.
          expect([...c.operations].sort(), `${JSON.stringify(edit)}: ${c.id} (${c.direction})`).toEqual(expectedOperations(base, edit.schema, c.direction));
          expect(c.operation).toBe(c.operations[0]);
        }
      }),
      { numRuns: 20, seed: 33, endOnFailure: true },
    );
  }, 600_000);

  it.each([
    ['Goal.closed_at removed', (d: Json) => delete d['components'].schemas.Goal.properties.closed_at, 'property-removed'],
    ['Person.full_name removed', (d: Json) => delete d['components'].schemas.Person.properties.full_name, 'property-removed'],
    ['Space.name retyped', (d: Json) => (d['components'].schemas.Space.properties.name.type = 'integer'), 'schema-type-changed'],
  ])(
    '%s: ERR under both operations that answer it',
    async (_what, edit, id) => {
      const revision = spec();
      edit(revision);
      const report = await diffEdited(revision);
      const found = report.changes.filter((c) => c.id === id);
      expect(found.map((c) => [c.level, c.direction, [...c.operations].sort()])).toEqual([['ERR', 'response', ['closeGoal', 'resumeProject']]]);
    },
    120_000,
  );

  it('a removed or renamed path names the operation it held, as the base had it', async () => {
    const removed = spec();
    delete removed['paths']['/api/external/v1/goals/close'];
    const gone = (await diffEdited(removed)).changes.find((c) => c.id === 'path-removed');
    expect([gone?.level, gone?.operation, gone?.operations]).toEqual(['ERR', 'closeGoal', ['closeGoal']]);
    const renamed = spec();
    renamed['paths']['/api/external/v1/goals/finish'] = renamed['paths']['/api/external/v1/goals/close'];
    delete renamed['paths']['/api/external/v1/goals/close'];
    const report = await diffEdited(renamed);
    expect(report.changes.find((c) => c.id === 'path-removed')?.operations).toEqual(['closeGoal']);
    expect(report.changes.filter((c) => c.operation === null).map((c) => c.id)).toEqual(['api-version-not-bumped']);
  }, 120_000);

  it('text and markdown list a change under each operation it reaches', async () => {
    const { formatMarkdown, formatText } = await import('../diff/diff.ts');
    const revision = spec();
    delete revision['components'].schemas.Goal.properties.closed_at;
    const report = await diffEdited(revision);
    const text = formatText(report, false);
    for (const operation of ['resumeProject', 'closeGoal']) {
      const section = text.split(/\n\n/).find((block) => block.startsWith(`${operation}\n`)) ?? '';
      expect(section, operation).toMatch(/ERR\s+response property-removed: Property `closed_at` of `Goal` was removed\./);
    }
    const markdown = formatMarkdown(report);
    expect(markdown).toContain('- `resumeProject`: Property `closed_at` of `Goal` was removed. (response, `property-removed`)');
    expect(markdown).toContain('- `closeGoal`: Property `closed_at` of `Goal` was removed. (response, `property-removed`)');
  }, 120_000);

  it('an edited named example of the spec is named under the operation that shows it', async () => {
    const revision = spec();
    const [name, example] = Object.entries<Json>(revision['components'].examples).find(([, e]) => Object.keys(e.value ?? {}).includes('goal')) ?? [];
    expect(name).toBeDefined();
    if (example) example['value'] = { ...example['value'], extra_marker: 1 };
    const found = (await diffEdited(revision)).changes.filter((c) => c.id === 'example-value-changed');
    expect(found.map((c) => [c.level, c.pointer, c.operations])).toEqual([['INFO', `#/components/examples/${name}/value`, ['closeGoal']]]);
  }, 120_000);
});
