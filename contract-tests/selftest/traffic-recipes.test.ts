// Recorded traffic through the tools around it: README.md's "Recorded traffic" recipes run as written (the mock on
// loopback standing in for staging; `npx service-external-api` is this repository's command line), a recording made
// by `redocly proxy` is checked by our drift, the HAR we write loads in `redocly drift`, `diff --traffic` counts the
// exchanges a field removal touches, and `coverage --min` fails below a minimum.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { freePort } from '../../spec/lib/ports.ts';
import { drift } from '../drift/drift.ts';
import { readHar } from '../har/har.ts';
import { parseFixtures, type Fixtures } from '../proxy/knowledge.ts';
import { ROOT, startMock, type Running } from './support.ts';

const CLI = join(ROOT, 'cli/bin.cjs');
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'contract-recipes-'));
let staging: Running;
let fixtures: Fixtures;
let tokens: string[] = [];

type Ran = { code: number | null; stdout: string; stderr: string };

function run(command: string, args: ReadonlyArray<string>, env: Record<string, string> = {}, timeoutMs = 120_000): Promise<Ran> {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith('CONTRACT_') && !name.startsWith('VITEST') && name !== 'NODE_OPTIONS') clean[name] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: dir,
      env: { ...clean, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ').slice(0, 200)} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const cli = (args: ReadonlyArray<string>): Promise<Ran> => run(process.execPath, [CLI, ...args]);

/** The README's sh blocks of one section, in order. */
function recipes(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Recorded traffic\n'));
  const body = section.slice(0, section.indexOf('\n## ', 5));
  return [...body.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

/** Runs a recipe as written, `npx service-external-api` being this repository's command line. */
async function recipe(text: string, env: Record<string, string>): Promise<Ran> {
  const script = text.replaceAll('npx service-external-api', `"${process.execPath}" "${CLI}"`);
  return run('bash', ['-e', '-c', script], env, 180_000);
}

beforeAll(async () => {
  staging = await startMock({ validateResponses: false });
  const text = await (await fetch(`${staging.url}/__mock/fixtures`)).text();
  writeFileSync(join(dir, 'tokens.json'), text);
  const parsed = parseFixtures(text);
  if (!parsed.ok) throw new Error(parsed.error);
  fixtures = parsed.fixtures;
  tokens = Object.values(fixtures.tokens).filter((t): t is string => typeof t === 'string');
});

afterAll(async () => {
  await staging?.close();
});

describe('README.md "Recorded traffic": the three recipes, as written', () => {
  it('records staging traffic, gates a release on it, and replays it against the mock', { timeout: 240_000 }, async () => {
    const blocks = recipes();
    expect(blocks).toHaveLength(3);
    const [record = '', gate = '', nightly = ''] = blocks;
    const env = { STAGING_URL: staging.url, PORT: String(await freePort()), MOCK_PORT: String(await freePort()) };

    const recorded = await recipe(record, env);
    expect(recorded.code, `${recorded.stdout}\n${recorded.stderr}`).toBe(0);
    expect(recorded.stdout).toMatch(/^contract: \d+ passed, 0 failed/m);
    expect(recorded.stdout).toMatch(/^SIGTERM: \d+ exchanges checked, 0 broke the contract/m);
    const har = readFileSync(join(dir, 'staging.har'), 'utf8');
    for (const token of tokens) expect(har).not.toContain(token);
    const { exchanges } = readHar(join(dir, 'staging.har'));
    expect(exchanges.length).toBeGreaterThan(40);

    const gated = await recipe(gate, env);
    expect(gated.code, `${gated.stdout}\n${gated.stderr}`).toBe(0);
    expect(gated.stdout).toContain('git:HEAD~1 → git:HEAD: ');
    expect(gated.stdout).toMatch(/^drift: \d+ exchanges, \d+ checked, 0 broke the contract \(0 violations, /m);
    expect(gated.stdout).toMatch(/^coverage: 1 file merged, every minimum met$/m);
    const sarif: unknown = JSON.parse(readFileSync(join(dir, 'drift.sarif'), 'utf8'));
    expect(sarif).toMatchObject({ version: '2.1.0', runs: [{ tool: { driver: { name: 'service-external-api drift' } }, results: [] }] });

    const replayed = await recipe(nightly, env);
    expect(replayed.code, `${replayed.stdout}\n${replayed.stderr}`).toBe(0);
    expect(replayed.stdout).toMatch(/^replay: \d+ same, 0 differ$/m);
  });
});

describe('interop and the gates', () => {
  it('checks a recording made by `redocly proxy` (raw tokens, its own headers) with our drift: clean, and a deviation flagged', {
    timeout: 90_000,
  }, async () => {
    const file = join(dir, 'redocly.har');
    const port = await freePort();
    const child = spawn(process.execPath, [REDOCLY, 'proxy', '--target', staging.url, '--har', file, '--port', String(port)], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    // It says where it listens on stderr.
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    try {
      for (let i = 0; i < 300 && !out.includes('Proxy listening'); i++) await new Promise((r) => setTimeout(r, 100));
      const send = (authorization: string | undefined, body: string) =>
        fetch(`http://127.0.0.1:${port}/api/external/v1/goals/close`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          body,
        });
      expect((await send(`Bearer ${fixtures.tokens.full_access ?? ''}`, '{}')).status).toBe(400);
      expect((await send(`Bearer ${fixtures.tokens.read_only ?? ''}`, '{}')).status).toBe(403);
      expect((await send(undefined, '{}')).status).toBe(401);
      child.kill('SIGINT');
      await exited;
    } finally {
      child.kill('SIGKILL');
    }
    const read = readHar(file);
    expect(read.har.log.creator.name).toBe('redocly-cli proxy');
    expect(read.exchanges.map((e) => e.received.status)).toEqual([400, 403, 401]);
    const clean = drift(read.har, read.exchanges, fixtures);
    expect(clean.findings.map((f) => f.lines.join(' | '))).toEqual([]);
    expect(clean.checked).toBe(3);
    const readOnly = read.exchanges[1];
    if (!readOnly) throw new Error('no second exchange');
    const faulty = drift(
      read.har,
      [read.exchanges[0], { ...readOnly, received: { ...readOnly.received, status: 400 } }].filter((e) => e !== undefined),
      fixtures,
    );
    expect(faulty.findings.map((f) => [f.entry, f.violations[0]?.rule])).toEqual([[1, 'answer.read-only']]);
  });

  it('writes a HAR `redocly drift` loads: every exchange of ours read and matched to the spec', { timeout: 90_000 }, async () => {
    const file = join(dir, 'ours.har');
    const ours = readHar(join(dir, 'staging.har')).har;
    writeFileSync(file, JSON.stringify({ log: { ...ours.log, entries: ours.log.entries.filter((e) => e.request.url.includes('/api/')).slice(0, 20) } }));
    const ran = await run(process.execPath, [
      REDOCLY,
      'drift',
      file,
      '--api',
      join(ROOT, 'generated/openapi.acyclic.json'),
      '--match-mode',
      'basepath',
      '--format',
      'json',
    ]);
    const report: unknown = JSON.parse(ran.stdout);
    if (!isObject(report) || !isObject(report['run'])) throw new Error(`redocly drift: ${ran.stdout.slice(0, 300)} ${ran.stderr.slice(0, 300)}`);
    expect(report['run']['totalExchanges']).toBe(20);
    expect(report['run']['skippedExchanges']).toBe(0);
    expect(report['run']['documentedExchanges']).toBeGreaterThan(15);
  });

  it('diff --traffic: a removed answer field says how many recorded answers carry it', { timeout: 90_000 }, async () => {
    const document: unknown = JSON.parse(readFileSync(join(ROOT, 'generated/openapi.json'), 'utf8'));
    if (!isObject(document) || !isObject(document['components']) || !isObject(document['components']['schemas'])) throw new Error('no schemas');
    const goal = document['components']['schemas']['Goal'];
    if (!isObject(goal) || !isObject(goal['properties'])) throw new Error('no Goal');
    delete goal['properties']['closed_by'];
    if (Array.isArray(goal['required'])) goal['required'] = goal['required'].filter((f) => f !== 'closed_by');
    writeFileSync(join(dir, 'revision.json'), JSON.stringify(document));
    // The API's answers that carry the field (the mock's own /__mock/records reads are no API exchange).
    const carried = readHar(join(dir, 'staging.har')).exchanges.filter(
      (e) => e.request.url.startsWith('/api/') && e.received.status === 200 && e.received.body.toString().includes('"closed_by"'),
    ).length;
    expect(carried).toBeGreaterThan(0);
    const json = await cli([
      'diff',
      join(ROOT, 'generated/openapi.json'),
      'revision.json',
      '--traffic',
      'staging.har',
      '--format',
      'json',
      '--fail-on',
      'never',
    ]);
    expect(json.code, json.stderr).toBe(0);
    const report: unknown = JSON.parse(json.stdout);
    if (!isObject(report) || !Array.isArray(report['changes'])) throw new Error('no changes');
    const removed = report['changes'].find((c: unknown) => isObject(c) && c['id'] === 'property-removed');
    expect(removed).toMatchObject({ pointer: '#/components/schemas/Goal/properties/closed_by', traffic: { exchanges: carried } });
    const text = await cli(['diff', join(ROOT, 'generated/openapi.json'), 'revision.json', '--traffic', 'staging.har']);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `Property \`closed_by\` of \`Goal\` was removed. Touches ${carried} recorded exchange${carried === 1 ? '' : 's'} of staging.har.`,
    );
    const bad = await cli(['diff', join(ROOT, 'generated/openapi.json'), 'revision.json', '--traffic', 'tokens.json']);
    expect([bad.code, bad.stderr]).toEqual([2, 'error: --traffic tokens.json is not HAR: no "log" object at the top\n']);
  });

  it('drift --spec holds the traffic to another contract version; drift and replay refuse bad input with exit 2 in one line', { timeout: 90_000 }, async () => {
    const document: unknown = JSON.parse(readFileSync(join(ROOT, 'generated/openapi.json'), 'utf8'));
    if (!isObject(document) || !isObject(document['components']) || !isObject(document['components']['schemas'])) throw new Error('no schemas');
    const goal = document['components']['schemas']['Goal'];
    if (!isObject(goal) || !isObject(goal['properties'])) throw new Error('no Goal');
    goal['properties']['owner_note'] = { type: 'string' };
    goal['required'] = [...(Array.isArray(goal['required']) ? goal['required'] : []), 'owner_note'];
    writeFileSync(join(dir, 'stricter.json'), JSON.stringify(document));
    const against = await cli(['drift', 'staging.har', '--spec', 'stricter.json', '--format', 'json']);
    expect(against.code).toBe(1);
    const report: unknown = JSON.parse(against.stdout);
    if (!isObject(report) || !Array.isArray(report['findings'])) throw new Error('no findings');
    expect(report['spec']).toBe('stricter.json');
    expect(report['findings'].length).toBeGreaterThan(0);
    for (const finding of report['findings']) expect(JSON.stringify(finding)).toContain('required field \\"owner_note\\" is missing');
    const bad: Array<[ReadonlyArray<string>, string]> = [
      [['drift', 'staging.har', '--spec', 'missing.json'], 'drift: --spec missing.json: no such file\n'],
      [['drift', 'tokens.json'], 'drift: tokens.json is not HAR: no "log" object at the top\n'],
      [['drift', 'staging.har', '--format', 'xml'], 'drift: --format must be text, json, junit, sarif, got "xml"\n'],
      [['replay', 'staging.har'], 'replay: --target is required: the URL of the implementation to replay against\n'],
      [
        ['replay', 'staging.har', '--target', 'http://staging.example.invalid:9'],
        "replay: the recording's writes would go to staging.example.invalid:9, which is not this machine; set CONTRACT_ALLOW_WRITES=1 to allow writes there\n",
      ],
      [
        ['replay', 'staging.har', '--target', staging.url, '--map', 'tokens.json'],
        'replay: --map tokens.json must be a JSON object of recorded id → target id (strings)\n',
      ],
    ];
    for (const [args, line] of bad) {
      const ran = await cli(args);
      expect([ran.code, ran.stderr], args.join(' ')).toEqual([2, line]);
    }
  });

  it('coverage merges files of one shape and fails below --min; a bad file or key is exit 2 in one line', { timeout: 60_000 }, async () => {
    const drifted = await cli(['drift', 'staging.har', '--coverage', 'a.json']);
    expect(drifted.code).toBe(0);
    const summary = { exchanges: 1, coverage: JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8')) };
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
    const merged = await cli(['coverage', 'a.json', 'summary.json', '--format', 'json']);
    expect(merged.code).toBe(0);
    const one: unknown = JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8'));
    const both: unknown = JSON.parse(merged.stdout);
    if (!isObject(one) || !isObject(both) || !isObject(one['operations']) || !isObject(both['operations'])) throw new Error('no operations');
    for (const [id, op] of Object.entries(one['operations']))
      expect(both['operations'][id]).toMatchObject({ exchanges: 2 * Number(isObject(op) ? op['exchanges'] : 0) });
    const below = await cli(['coverage', 'a.json', '--min', 'statuses=100']);
    expect(below.code).toBe(1);
    expect(below.stdout).toMatch(/^✗ resumeProject: statuses \d+(\.\d)?% is below the minimum 100%$/m);
    expect(below.stdout).toMatch(/^coverage: 1 file merged, \d below the minimum$/m);
    const badKey = await cli(['coverage', 'a.json', '--min', 'branches=50']);
    expect([badKey.code, badKey.stderr]).toEqual([
      2,
      'coverage: --min takes KEY=PERCENT with KEY one of statuses, request-fields, enum-values, response-fields, rules, got "branches=50"\n',
    ]);
    const notCoverage = await cli(['coverage', 'tokens.json']);
    expect(notCoverage.code).toBe(2);
    expect(notCoverage.stderr).toMatch(/^coverage: tokens\.json is no coverage file: no "operations" /);
  });
});
