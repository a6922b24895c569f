// The breaking-change gate: every level the diff relies on, pinned on minimal one-edit pairs of documents
// in both directions, so that a Redocly upgrade that changes a rating fails here rather than in the gate; the
// command's formats, exit codes and bad input; split roots and git refs; a schema cycle.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { breakingBump, diffDocuments, type Change, type DiffReport, withChanges } from '../diff/diff.ts';

// biome-ignore lint/suspicious/noExplicitAny: test fixtures, edited by path
type Json = Record<string, any>;

const BIN = new URL('../../cli/bin.cjs', import.meta.url).pathname;
const ROOT = new URL('../..', import.meta.url).pathname;

/** A minimal contract: one write operation, a closed request body, a response with a nested and a cyclic schema. */
function minimal(): Json {
  return {
    openapi: '3.1.0',
    info: { title: 'Things', version: '1.0.0' },
    tags: [{ name: 'Things', description: 'Things.' }],
    security: [{ bearerAuth: [] }],
    paths: {
      '/things/update': {
        post: {
          operationId: 'updateThing',
          summary: 'Update a thing',
          description: 'Updates a thing.',
          tags: ['Things'],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingInput' }, example: { id: 'a' } } } },
          responses: {
            '200': {
              description: 'Updated.',
              headers: { 'x-request-id': { description: 'The request id.', schema: { type: 'string' } } },
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/ThingResult' }, examples: { updated: { $ref: '#/components/examples/Updated' } } },
              },
            },
            '404': { description: 'Not found.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          },
        },
      },
    },
    components: {
      examples: {
        Updated: { summary: 'An updated thing', value: { thing: { id: 'a', status: 'open', name: 'A', owner: { id: 'p', name: 'P' } } } },
      },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' }, apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: {
        ThingInput: {
          type: 'object',
          additionalProperties: false,
          required: ['id'],
          properties: {
            id: { type: 'string', pattern: '^[a-z]+$', maxLength: 40, description: 'The id.' },
            kind: { type: 'string', enum: ['a', 'b'], default: 'a' },
            note: { type: ['string', 'null'] },
            count: { type: 'integer', minimum: 0, maximum: 10 },
          },
        },
        ThingResult: { type: 'object', required: ['thing'], properties: { thing: { $ref: '#/components/schemas/Thing' } } },
        Thing: {
          type: 'object',
          description: 'A thing.',
          required: ['id', 'status', 'name', 'owner'],
          properties: {
            id: { type: 'string' },
            status: { type: 'string', enum: ['open', 'closed'] },
            name: { type: 'string' },
            size: { type: 'integer', maximum: 100 },
            owner: { $ref: '#/components/schemas/Person' },
            parent: { $ref: '#/components/schemas/Thing' },
          },
        },
        Person: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
      },
    },
  };
}

const op = (d: Json): Json => d['paths']['/things/update']['post'];
const schemas = (d: Json): Json => d['components']['schemas'];

/** [what the edit is, the edit, the rule id expected, its level, its direction]. */
const EDITS: Array<[string, (d: Json) => void, string, Change['level'], Change['direction']]> = [
  // responses
  ['a response field removed', (d) => delete schemas(d)['Thing'].properties.size, 'property-removed', 'ERR', 'response'],
  ['a response field no longer required', (d) => (schemas(d)['Thing'].required = ['id', 'status', 'owner']), 'required-properties-removed', 'ERR', 'response'],
  ['a nested response field no longer required', (d) => (schemas(d)['Person'].required = ['id']), 'required-properties-removed', 'ERR', 'response'],
  ['a response field added', (d) => (schemas(d)['Thing'].properties.color = { type: 'string' }), 'response-property-added', 'INFO', 'response'],
  ['a response field made required', (d) => schemas(d)['Thing'].required.push('size'), 'required-properties-added', 'INFO', 'response'],
  ['a response enum widened', (d) => schemas(d)['Thing'].properties.status.enum.push('archived'), 'enum-values-added', 'WARN', 'response'],
  ['a response field made nullable', (d) => (schemas(d)['Thing'].properties.name.type = ['string', 'null']), 'schema-type-changed', 'ERR', 'response'],
  ['a response field changes type', (d) => (schemas(d)['Thing'].properties.size.type = 'string'), 'schema-type-changed', 'ERR', 'response'],
  ['a response bound loosened', (d) => (schemas(d)['Thing'].properties.size.maximum = 1000), 'schema-constraint-changed', 'WARN', 'response'],
  ['a response bound tightened', (d) => (schemas(d)['Thing'].properties.size.maximum = 50), 'schema-constraint-changed', 'INFO', 'response'],
  ['a documented status removed', (d) => delete op(d).responses['404'], 'response-removed', 'ERR', 'response'],
  [
    'a documented status added',
    (d) => (op(d).responses['409'] = { description: 'Conflict.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }),
    'response-added',
    'WARN',
    'response',
  ],
  ['a response header removed', (d) => delete op(d).responses['200'].headers, 'response-header-removed', 'ERR', 'response'],
  [
    'a response media type removed',
    (d) => (op(d).responses['404'].content = { 'text/plain': { schema: { type: 'string' } } }),
    'media-type-removed',
    'ERR',
    'response',
  ],
  // requests
  ['an optional input made required', (d) => schemas(d)['ThingInput'].required.push('kind'), 'required-properties-added', 'ERR', 'request'],
  ['a required input made optional', (d) => (schemas(d)['ThingInput'].required = []), 'required-properties-removed', 'INFO', 'request'],
  ['an input removed (the body is closed)', (d) => delete schemas(d)['ThingInput'].properties.note, 'property-removed', 'ERR', 'request'],
  ['an optional input added', (d) => (schemas(d)['ThingInput'].properties.extra = { type: 'string' }), 'request-property-added', 'INFO', 'request'],
  ['a request enum narrowed', (d) => (schemas(d)['ThingInput'].properties.kind.enum = ['a']), 'enum-values-removed', 'ERR', 'request'],
  ['a request enum widened', (d) => schemas(d)['ThingInput'].properties.kind.enum.push('c'), 'request-enum-widened', 'INFO', 'request'],
  ['a request bound tightened', (d) => (schemas(d)['ThingInput'].properties.id.maxLength = 10), 'schema-constraint-changed', 'ERR', 'request'],
  ['a request bound loosened', (d) => (schemas(d)['ThingInput'].properties.id.maxLength = 80), 'schema-constraint-changed', 'INFO', 'request'],
  ['a request pattern changed', (d) => (schemas(d)['ThingInput'].properties.id.pattern = '^[a-z0-9]+$'), 'schema-constraint-changed', 'ERR', 'request'],
  ['a request input made nullable', (d) => (schemas(d)['ThingInput'].properties.count.type = ['integer', 'null']), 'schema-type-changed', 'INFO', 'request'],
  ['a request input changes type', (d) => (schemas(d)['ThingInput'].properties.count.type = 'string'), 'schema-type-changed', 'ERR', 'request'],
  ['a request default changed', (d) => (schemas(d)['ThingInput'].properties.kind.default = 'b'), 'default-changed', 'WARN', 'request'],
  ['the request body removed', (d) => delete op(d).requestBody, 'request-body-removed', 'ERR', 'request'],
  // the document
  ['an operation removed', (d) => delete d['paths']['/things/update'], 'path-removed', 'ERR', 'document'],
  [
    'an operation added',
    (d) => (d['paths']['/things/create'] = { post: { ...structuredClone(op(d)), operationId: 'createThing' } }),
    'operation-added',
    'INFO',
    'document',
  ],
  ['an operationId renamed', (d) => (op(d).operationId = 'editThing'), 'operation-id-changed', 'ERR', 'document'],
  ['the security requirement changed', (d) => (op(d).security = [{ apiKey: [] }]), 'security-requirement-changed', 'ERR', 'document'],
  // documentation only
  ['a schema description edited', (d) => (schemas(d)['Thing'].description = 'A thing, described better.'), 'documentation-changed', 'INFO', 'response'],
  ['a field description edited', (d) => (schemas(d)['ThingInput'].properties.id.description = 'The thing id.'), 'documentation-changed', 'INFO', 'request'],
  ['an operation summary edited', (d) => (op(d).summary = 'Update one thing'), 'documentation-changed', 'INFO', 'document'],
  ['an operation description edited', (d) => (op(d).description = 'Updates one thing.'), 'documentation-changed', 'INFO', 'document'],
  // Redocly compares no examples: their values are compared here.
  ['a request example edited', (d) => (op(d).requestBody.content['application/json'].example = { id: 'b' }), 'example-value-changed', 'INFO', 'request'],
  ["a named answer example's value edited", (d) => (d['components'].examples.Updated.value.thing.name = 'B'), 'example-value-changed', 'INFO', 'response'],
  ["a named answer example's field changes type", (d) => (d['components'].examples.Updated.value.thing.name = 5), 'example-value-changed', 'WARN', 'response'],
  [
    "a named answer example's status changed",
    (d) => (d['components'].examples.Updated.value.thing.status = 'closed'),
    'example-value-changed',
    'WARN',
    'response',
  ],
  ["a named example's summary edited", (d) => (d['components'].examples.Updated.summary = 'A thing, updated'), 'documentation-changed', 'INFO', 'response'],
  ['nothing edited', () => undefined, 'none', 'INFO', 'request'],
  ['a tag description edited', (d) => (d['tags'][0].description = 'All things.'), 'documentation-changed', 'INFO', 'document'],
];

function write(dir: string, name: string, document: Json): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(document, null, 2));
  return file;
}

const highest = (report: DiffReport): Change['level'] | undefined =>
  (['ERR', 'WARN', 'INFO'] as const).find((level) => report.changes.some((c) => c.level === level));

describe.concurrent('every kind of change, on a minimal pair, at the level a client written to the base meets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diff-pairs-'));
  const base = write(dir, 'base.json', minimal());
  it.each(EDITS.map(([what, edit, id, level, direction], i) => [what, edit, id, level, direction, i] as const))(
    '%s: %s at %s',
    async (_what, edit, id, level, direction, i) => {
      const revision = minimal();
      edit(revision);
      // A major bump, so that the version rule does not add to what is pinned.
      revision['info'].version = '2.0.0';
      const report = await diffDocuments(base, write(dir, `revision-${i}.json`, revision));
      const found = report.changes.filter((c) => c.id !== 'api-version-changed');
      if (id === 'none') {
        expect(found).toEqual([]);
        return;
      }
      expect(found.map((c) => [c.id, c.level, c.direction])).toContainEqual([id, level, direction]);
      // The edit's highest level is the pinned one: nothing else it reports outranks it.
      expect(highest({ ...report, changes: found })).toBe(level);
      for (const change of found) {
        expect(change.message).toMatch(/^\S.*[.)]$/);
        expect(change.pointer).toMatch(/^#\//);
        if (change.direction !== 'document') expect(change.operation).toBe(id === 'operation-id-changed' ? 'editThing' : 'updateThing');
      }
    },
  );
});

describe("on this package's own spec, a shared schema is reported in the direction and for the operation that meets it", () => {
  it.each([
    [
      'SuccessStatus narrowed (close sends it)',
      (d: Json) => (d['components'].schemas.SuccessStatus.enum = ['achieved']),
      'enum-values-removed',
      'ERR',
      'request',
      'closeGoal',
    ],
    [
      'SuccessStatus widened (both answer it)',
      (d: Json) => d['components'].schemas.SuccessStatus.enum.push('partial'),
      'enum-values-added',
      'WARN',
      'response',
      'resumeProject',
    ],
  ])('%s', async (_what, edit, id, level, direction, operation) => {
    const dir = mkdtempSync(join(tmpdir(), 'diff-own-'));
    const document = JSON.parse(readFileSync(join(ROOT, 'generated', 'openapi.json'), 'utf8')) as Json;
    edit(document);
    const report = await diffDocuments(join(ROOT, 'generated', 'openapi.json'), write(dir, 'edited.json', document));
    expect(report.changes).toContainEqual(expect.objectContaining({ id, level, direction, operation }));
  });
});

describe('the version policy', () => {
  it.each([
    ['1.0.0', '2.0.0', true],
    ['1.0.0', '1.1.0', false],
    ['1.4.2', '1.4.3', false],
    ['0.1.0', '0.2.0', true],
    ['0.1.0', '0.1.5', false],
    ['0.1.0', '1.0.0', true],
    ['0.0.3', '0.0.4', true],
    ['1.0.0', '0.9.0', false],
    ['1.0.0', 'banana', false],
  ])('%s → %s is a breaking bump: %s', (from, to, bumped) => {
    expect(breakingBump(from, to)).toBe(bumped);
  });

  it('adds api-version-not-bumped (ERR) to a breaking change without the bump, and not with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diff-version-'));
    const base = write(dir, 'base.json', minimal());
    const breaking = minimal();
    delete breaking['components'].schemas.Thing.properties.size;
    const same = await diffDocuments(base, write(dir, 'same.json', breaking));
    expect(same.changes.find((c) => c.id === 'api-version-not-bumped')).toEqual({
      id: 'api-version-not-bumped',
      level: 'ERR',
      direction: 'document',
      operation: null,
      operations: [],
      pointer: '#/info/version',
      message: 'Breaking changes need info.version bumped past ^1.0.0 (a major bump), and it is 1.0.0.',
    });
    breaking['info'].version = '1.1.0';
    expect((await diffDocuments(base, write(dir, 'minor.json', breaking))).changes.map((c) => c.id)).toContain('api-version-not-bumped');
    breaking['info'].version = '2.0.0';
    expect((await diffDocuments(base, write(dir, 'major.json', breaking))).changes.map((c) => c.id)).not.toContain('api-version-not-bumped');
  });
});

type Ran = { code: number; stdout: string; stderr: string };
function cli(args: string[], cwd = ROOT): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'diff', ...args], { cwd, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ code: error && typeof error.code === 'number' ? error.code : 0, stdout, stderr }),
    );
  });
}

describe('service-external-api diff', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diff-cli-'));
  const base = write(dir, 'base.json', minimal());
  const warn = minimal();
  warn['components'].schemas.Thing.properties.status.enum.push('archived');
  const warnFile = write(dir, 'warn.json', warn);
  const info = minimal();
  info['components'].schemas.Thing.description = 'Better words.';
  const infoFile = write(dir, 'info.json', info);

  it('prints the JSON the design fixes, and exits by --fail-on', async () => {
    const ran = await cli([base, warnFile, '--format', 'json']);
    expect(ran.code).toBe(0);
    const report: unknown = JSON.parse(ran.stdout);
    expect(Object.keys(report as object)).toEqual(['base', 'revision', 'changes', 'counts']);
    expect(report).toMatchObject({ base, revision: warnFile, counts: { ERR: 0, WARN: 1, INFO: 0 } });
    expect((report as DiffReport).changes[0]).toEqual({
      id: 'enum-values-added',
      level: 'WARN',
      direction: 'response',
      operation: 'updateThing',
      operations: ['updateThing'],
      pointer: expect.stringMatching(/^#\/components\/schemas\/Thing\/properties\/status\/enum/),
      message: expect.stringContaining("'archived'"),
    });
    expect((await cli([base, warnFile, '--fail-on', 'WARN'])).code).toBe(1);
    expect((await cli([base, infoFile, '--fail-on', 'WARN'])).code).toBe(0);
    expect((await cli([base, warnFile, '--fail-on', 'never'])).code).toBe(0);
    // Any case.
    expect((await cli([base, warnFile, '--fail-on', 'warn'])).code).toBe(1);
    expect((await cli([base, warnFile, '--fail-on', 'err'])).code).toBe(0);
    expect((await cli([base, warnFile, '--fail-on', 'Never'])).code).toBe(0);
  });

  it('groups the text by operation, one line a change, and writes markdown with a heading per level', async () => {
    const text = await cli([base, warnFile]);
    expect(text.stdout).toBe(
      `${base} → ${warnFile}: 0 ERR, 1 WARN, 0 INFO\n\nupdateThing\n  WARN response enum-values-added: ${JSON.parse((await cli([base, warnFile, '--format', 'json'])).stdout).changes[0].message} (${JSON.parse((await cli([base, warnFile, '--format', 'json'])).stdout).changes[0].pointer})\n`,
    );
    const markdown = await cli([base, warnFile, '--format', 'markdown']);
    expect(markdown.stdout).toMatch(/^### May break\n\n- `updateThing`: .*'archived'.* \(response, `enum-values-added`\)\n$/);
  });

  it.each([
    [['/nowhere/base.json', 'x.json'], 'error: /nowhere/base.json: no such file'],
    [['git:no-such-ref-at-all', 'spec/openapi.yaml'], /^error: git:no-such-ref-at-all: unknown git ref in /],
    [['package.json', 'spec/openapi.yaml'], 'error: package.json: not an OpenAPI 3 document (no "openapi: 3.x" at its root)'],
    [['spec/openapi.yaml'], 'error: diff needs two documents: <base> <revision> (see --help)'],
    [['a', 'b', '--format', 'xml'], 'error: --format must be text, json, markdown, got "xml"'],
    [['a', 'b', '--fail-on', 'INFO'], 'error: --fail-on must be ERR, WARN, never (any case), got "INFO"'],
  ])('exits 2 with one line for bad input: %j', async (args, line) => {
    const ran = await cli(args);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    if (typeof line === 'string') expect(ran.stderr.trim()).toBe(line);
    else expect(ran.stderr.trim()).toMatch(line);
  });

  it('exits 2 naming a $ref it cannot resolve in a split root', async () => {
    const split = mkdtempSync(join(tmpdir(), 'diff-split-'));
    const root = readFileSync(join(ROOT, 'spec', 'openapi.yaml'), 'utf8').replace(/paths\/projects_resume\.yaml/, 'paths/missing.yaml');
    writeFileSync(join(split, 'openapi.yaml'), root);
    const ran = await cli(['spec/openapi.yaml', join(split, 'openapi.yaml')]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/^error: .*openapi\.yaml: a \$ref cannot be resolved/);
  });

  it('reads a split YAML root with relative $refs and the same spec at a git ref: the package spec against itself is empty', async () => {
    for (const pair of [
      ['spec/openapi.yaml', 'generated/openapi.json'],
      ['git:HEAD', 'spec/openapi.yaml'],
      ['generated/openapi.json', 'generated/openapi.json'],
    ]) {
      const ran = await cli([...pair, '--format', 'json']);
      expect(ran.stderr).toBe('');
      expect(JSON.parse(ran.stdout)).toEqual({ base: pair[0], revision: pair[1], changes: [], counts: { ERR: 0, WARN: 0, INFO: 0 } });
    }
  });

  it('follows a split root edited in a referenced file: a response field removed from spec/components is ERR', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'diff-spec-'));
    cpSync(join(ROOT, 'spec'), join(copy, 'spec'), { recursive: true });
    const file = join(copy, 'spec', 'components', 'schemas', 'Goal.yaml');
    const yaml = readFileSync(file, 'utf8');
    writeFileSync(file, yaml.replace(/^ {2}is_outdated:\n(?: {4}.*\n)+/m, ''));
    const ran = await cli(['spec/openapi.yaml', join(copy, 'spec', 'openapi.yaml'), '--format', 'json']);
    const report = JSON.parse(ran.stdout) as DiffReport;
    expect(ran.code).toBe(1);
    expect(report.changes).toContainEqual(
      expect.objectContaining({ id: 'property-removed', level: 'ERR', direction: 'response', message: 'Property `is_outdated` of `Goal` was removed.' }),
    );
    expect(report.changes.map((c) => c.id)).toContain('api-version-not-bumped');
  });

  it("with no documents compares the last release with the working tree's spec", async () => {
    const releases = readdirSync(join(ROOT, 'spec', 'releases'))
      .filter((f) => /^\d+\.\d+\.\d+\.json$/.test(f))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    const last = `spec/releases/${releases.at(-1)}`;
    const [bare, named] = await Promise.all([cli(['--format', 'json']), cli([last, 'spec/openapi.yaml', '--format', 'json'])]);
    expect([bare.code, bare.stderr]).toEqual([named.code, '']);
    expect(JSON.parse(bare.stdout)).toEqual(JSON.parse(named.stdout));
    expect(JSON.parse(bare.stdout)).toMatchObject({ base: last, revision: 'spec/openapi.yaml' });
    // The current directory's releases and spec come first: a 1.2.0 above a 1.10.0 is not the latest.
    const project = mkdtempSync(join(tmpdir(), 'diff-default-'));
    mkdirSync(join(project, 'spec', 'releases'), { recursive: true });
    write(join(project, 'spec', 'releases'), '1.2.0.json', minimal());
    write(join(project, 'spec', 'releases'), '1.10.0.json', minimal());
    writeFileSync(join(project, 'spec', 'openapi.yaml'), JSON.stringify(warn));
    const here = await cli(['--format', 'json'], project);
    expect(JSON.parse(here.stdout)).toMatchObject({ base: 'spec/releases/1.10.0.json', revision: 'spec/openapi.yaml', counts: { ERR: 0, WARN: 1, INFO: 0 } });
    expect((await cli(['--help'])).stdout).toContain('With neither: what changed since the last release');
  });

  it('the text header counts the lines it prints, and the changes when a change is listed under several operations', async () => {
    const { formatText } = await import('../diff/diff.ts');
    const change = (id: string, level: Change['level'], operations: string[]): Change => ({
      id,
      level,
      direction: 'response',
      operation: operations[0] ?? null,
      operations,
      pointer: `#/${id}`,
      message: `${id} happened.`,
    });
    const report = withChanges({ base: 'a', revision: 'b', changes: [], counts: { ERR: 0, WARN: 0, INFO: 0 } }, [
      change('one', 'ERR', ['x', 'y']),
      change('two', 'ERR', ['x', 'y', 'z']),
      change('three', 'ERR', []),
      change('four', 'INFO', ['x']),
    ]);
    const text = formatText(report, false);
    const [header = '', ...rest] = text.split('\n');
    expect(header).toBe('a → b: 6 ERR, 0 WARN, 1 INFO (3 ERR, 0 WARN, 1 INFO changes: a change is listed under each operation it reaches)');
    expect(rest.filter((l) => /^ {2}ERR /.test(l))).toHaveLength(6);
    expect(rest.filter((l) => /^ {2}INFO /.test(l))).toHaveLength(1);
  });
});
