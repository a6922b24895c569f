// The code samples of the docs are generated from the spec's named request examples and cannot rot: the
// TypeScript samples are type-checked against the real client with the project's compiler options, and both the
// TypeScript and the curl samples are run against a local server that checks what they send.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dereference, isObject, listOperations, loadDocument, pointerTo, resolvePointer, type JsonObject } from '../../spec/lib/openapi.ts';
import { SAMPLE_LANGUAGES, sampleLanguageList } from '../sample-languages.ts';
import { CLIENT_MODULE, generateSamples, shellQuote, toCodeSamples, tsLiteral, withCodeSamples, type OperationSamples } from '../samples.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const document = loadDocument();
const samples = generateSamples(document);
const TOKEN = 'opk_sample-token-0123456789abcdefghijklmnopqrstuvwxyzABCD';
/** The machine's own Node.js 20 (the first `node` on PATH outside node_modules), if it has one. */
const NODE_20 = (process.env['PATH'] ?? '')
  .split(delimiter)
  .filter((dir) => dir && !dir.includes('node_modules'))
  .map((dir) => join(dir, 'node'))
  .find((file) => existsSync(file) && spawnSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.startsWith('20.'));

/** A copy of the document with one change, for the tests that prove a broken sample is caught. */
function edited(change: (copy: JsonObject) => void): JsonObject {
  const copy = structuredClone(document);
  change(copy);
  return copy;
}

function namedExampleValue(copy: JsonObject, name: string): JsonObject {
  const example = resolvePointer(copy, pointerTo('components', 'examples', name, 'value'));
  if (!isObject(example)) throw new Error(`components/examples/${name} has no object value`);
  return example;
}

/** The files every check reads (the client, generated types, lib and @types files), parsed once per run. */
const parsedFiles = new Map<string, ts.SourceFile>();

/** Type-checks virtual .ts files placed in docs-site/test/ with tsconfig.json's options; returns the diagnostics. */
function typecheck(sources: ReadonlyArray<{ name: string; text: string }>): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('cannot read tsconfig.json');
  const files = new Map(sources.map((s) => [join(root, 'docs-site', 'test', s.name), s.text]));
  const host = ts.createCompilerHost(parsed.options, true);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => files.has(file) || fileExists.call(host, file);
  host.readFile = (file) => files.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, onError, create) => {
    const text = files.get(file);
    if (text !== undefined) return ts.createSourceFile(file, text, language);
    let parsed = parsedFiles.get(file);
    if (!parsed) {
      parsed = getSourceFile.call(host, file, language, onError, create);
      if (parsed) parsedFiles.set(file, parsed);
    }
    return parsed;
  };
  const program = ts.createProgram({ rootNames: [...files.keys()], options: parsed.options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(root.length)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '(global)';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

const asSources = (list: ReadonlyArray<OperationSamples>): Array<{ name: string; text: string }> =>
  list.map((s) => ({ name: `sample-${s.operationId}.ts`, text: s.typescript }));

describe('generated samples', () => {
  it('cover every operation of the spec with each of its named request examples', () => {
    expect(samples.map((s) => s.operationId)).toEqual(listOperations(document).map((o) => o.operationId));
    expect(samples.map((s) => s.operationId)).toContain('closeGoal');
    for (const s of samples) {
      const requestBody = dereference(document, pointerTo('paths', s.path, s.method, 'requestBody'));
      const examples = resolvePointer(document, `${requestBody.pointer}/content/application~1json/examples`);
      expect(s.examples.map((e) => e.key)).toEqual(Object.keys(isObject(examples) ? examples : {}));
      expect(s.examples.length).toBeGreaterThanOrEqual(1);
    }
  });

  it('use the server variable default as base URL and $API_TOKEN / process.env.API_TOKEN as the token', () => {
    const server = resolvePointer(document, '#/servers/0/variables/base_url/default');
    expect(server).toBe('http://127.0.0.1:4010');
    for (const s of samples) {
      expect(s.curl).toContain(`curl -sS -w '\\n' -X POST '${String(server)}${s.path}'`);
      expect(s.curl).toContain('-H "Authorization: Bearer $API_TOKEN"');
      expect(s.typescript).toContain(`import { createClient } from '${CLIENT_MODULE}';`);
      expect(s.typescript).toContain(`baseUrl: '${String(server)}'`);
      expect(s.typescript).toContain('token: process.env.API_TOKEN');
      expect(s.typescript).toContain(`await api.${s.operationId}({`);
    }
  });

  it('send each example as it is, labelled with its summary', () => {
    for (const s of samples) {
      for (const example of s.examples) {
        expect(s.curl).toContain(`# ${example.summary ?? example.key}\n`);
        expect(s.curl).toContain(`--data-raw ${shellQuote(JSON.stringify(example.value, null, 2))}`);
        expect(s.typescript).toContain(`// ${example.summary ?? example.key}\n`);
      }
    }
  });

  it('are added to a copy of the document as x-codeSamples (curl, TypeScript, fetch, Python) without touching the original', () => {
    const before = JSON.stringify(document);
    const copy = withCodeSamples(document);
    expect(JSON.stringify(document)).toBe(before);
    for (const s of samples) {
      expect(resolvePointer(copy, pointerTo('paths', s.path, s.method, 'x-codeSamples'))).toEqual(toCodeSamples(s));
      expect(toCodeSamples(s).map((c) => c.label)).toEqual(['curl', 'TypeScript', 'JavaScript', 'Python']);
    }
  });

  it("are the languages the page's code-sample menu lists (docs-site/redocly.yaml), and the ones the docs command names", () => {
    const config = readFileSync(join(root, 'docs-site', 'redocly.yaml'), 'utf8');
    expect([...config.matchAll(/^ {6}- lang: (.+)$/gm)].map((m) => m[1])).toEqual(SAMPLE_LANGUAGES.map((l) => l.label));
    expect(sampleLanguageList()).toBe('curl, TypeScript, JavaScript and Python');
  });

  it('write rich text as JSON.stringify of the document, and plain strings safely quoted', () => {
    expect(tsLiteral('{"type":"doc","content":[]}', '')).toBe("JSON.stringify({ type: 'doc', content: [] })");
    expect(tsLiteral('{"b": 1}', '')).toBe(`'{"b": 1}'`);
    expect(tsLiteral("it's\n", '')).toBe("'it\\'s\\n'");
    expect(shellQuote("don't")).toBe(`'don'\\''t'`);
  });
});

describe('the TypeScript samples type-check against the real client', () => {
  // The first check builds the TypeScript program cold: about 1 s on a quiet machine, over 5 s on a busy one.
  it('compile without errors under the project tsconfig (strict, noUncheckedIndexedAccess)', { timeout: 60_000 }, () => {
    expect(typecheck(asSources(samples))).toEqual([]);
  });

  it('include the client example in docs-site/README.md, which compiles too', () => {
    const readme = readFileSync(join(root, 'docs-site', 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain(`from '${CLIENT_MODULE}'`);
    expect(typecheck([{ name: 'readme-example.ts', text: example ?? '' }])).toEqual([]);
  });

  it.each([
    [
      'a misspelt field',
      (copy: JsonObject) => {
        const value = namedExampleValue(copy, 'ResumeProjectRequest');
        value['mesage'] = value['message'];
        delete value['message'];
      },
      /sample-resumeProject\.ts:\d+ .*'mesage' does not exist/,
    ],
    [
      'a missing required field',
      (copy: JsonObject) => {
        delete namedExampleValue(copy, 'CloseGoalMissedRequest')['success_status'];
      },
      /sample-closeGoal\.ts:\d+ .*Property 'success_status' is missing/,
    ],
    [
      'a value outside an enum',
      (copy: JsonObject) => {
        namedExampleValue(copy, 'CloseGoalRequest')['success_status'] = 'done';
      },
      /sample-closeGoal\.ts:\d+ .*'"done"' is not assignable/,
    ],
  ])('fail when an example has %s', (_label, change, expected) => {
    const diagnostics = typecheck(asSources(generateSamples(edited(change))));
    expect(diagnostics.join('\n')).toMatch(expected);
  });
});

/** Runs a command without blocking this process, which serves the requests the command makes. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

type Received = { method: string; url: string; authorization: string | undefined; contentType: string | undefined; body: string };

describe('the samples run against a local server', () => {
  let server: Server;
  let baseUrl = '';
  const received: Received[] = [];
  let work = '';

  /** Answers a request whose body is one of the operation's named examples with the response example of the same key. */
  function answer(request: IncomingMessage, body: string): { status: number; body: unknown } {
    const s = samples.find((candidate) => candidate.path === request.url);
    const example = s?.examples.find((e) => JSON.stringify(e.value) === JSON.stringify(JSON.parse(body)));
    if (!s || !example) return { status: 400, body: { error: 'Bad request', message: 'not one of the named examples' } };
    const response = dereference(document, pointerTo('paths', s.path, s.method, 'responses', '200'));
    const paired = dereference(document, `${response.pointer}/content/application~1json/examples/${example.key}`).value;
    return { status: 200, body: isObject(paired) ? paired['value'] : undefined };
  }

  beforeAll(async () => {
    work = mkdtempSync(join(root, 'docs-site', 'test', '.tmp-'));
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          authorization: request.headers.authorization,
          contentType: request.headers['content-type'],
          body,
        });
        const reply = answer(request, body);
        response.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the server has no TCP address');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });

  afterAll(async () => {
    if (work) rmSync(work, { recursive: true, force: true });
    await new Promise((resolve) => server.close(resolve));
  });

  const local = (): OperationSamples[] =>
    generateSamples(
      edited((copy) => {
        const variable = resolvePointer(copy, '#/servers/0/variables/base_url');
        if (isObject(variable)) variable['default'] = baseUrl;
      }),
    );

  /** The status each example's paired 200 example has: what the TypeScript sample prints on success. */
  const printedStatuses = (s: OperationSamples): string[] =>
    s.examples.map((e) => {
      const response = dereference(document, pointerTo('paths', s.path, s.method, 'responses', '200'));
      const value = resolvePointer(document, `${dereference(document, `${response.pointer}/content/application~1json/examples/${e.key}`).pointer}/value`);
      const record = isObject(value) ? Object.values(value)[0] : undefined;
      return isObject(record) ? String(record['status']) : '';
    });

  it('the TypeScript sample sends every example byte for byte, with the token, and prints the record on 200', async () => {
    for (const s of local()) {
      received.length = 0;
      const file = join(work, `sample-${s.operationId}.ts`);
      writeFileSync(file, s.typescript);
      const result = await run(process.execPath, [file], { ...process.env, API_TOKEN: TOKEN });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout.trim().split('\n')).toEqual(printedStatuses(s));
      expect(received.map((r) => r.body)).toEqual(s.examples.map((e) => JSON.stringify(e.value)));
      for (const r of received) {
        expect(r).toMatchObject({ method: 'POST', url: s.path, authorization: `Bearer ${TOKEN}`, contentType: 'application/json' });
      }
    }
  });

  const curl = spawnSync('curl', ['--version']).status === 0;
  it.skipIf(!curl)('the curl sample sends every example, with the token, as JSON (skipped without curl)', async () => {
    for (const s of local()) {
      received.length = 0;
      const result = await run('bash', ['-e', '-c', s.curl], { ...process.env, API_TOKEN: TOKEN });
      expect(result.status, result.stderr).toBe(0);
      expect(received.map((r) => JSON.parse(r.body))).toEqual(s.examples.map((e) => e.value));
      for (const r of received) {
        expect(r).toMatchObject({ method: 'POST', url: s.path, authorization: `Bearer ${TOKEN}`, contentType: 'application/json' });
      }
    }
  });
});

describe('every sample, as a consumer pastes it, runs against the mock: 200 for each named example', () => {
  let mock: Server;
  let baseUrl = '';
  let token = '';
  let work = '';
  const python = spawnSync('python3', ['--version']).status === 0;
  const curl = spawnSync('curl', ['--version']).status === 0;
  if (process.env['CI'] && (!python || !curl)) throw new Error('python3 and curl are missing: .ci/run installs them, and in CI the samples never skip');

  beforeAll(async () => {
    const { createMockApp } = await import('../../mock/src/server/app.ts');
    const app = createMockApp();
    mock = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => mock.once('listening', () => resolve()));
    const address = mock.address();
    if (address === null || typeof address === 'string') throw new Error('the mock has no TCP address');
    baseUrl = `http://127.0.0.1:${address.port}`;
    token = app.mock.seed.fixtures.tokens.full_access;
    work = mkdtempSync(join(root, 'docs-site', 'test', '.tmp-'));
  });

  afterAll(async () => {
    if (work) rmSync(work, { recursive: true, force: true });
    await new Promise((resolve) => mock.close(resolve));
  });

  /** The samples with the mock's URL as the server default, as the page shows them for a base URL. */
  const against = (): OperationSamples[] =>
    generateSamples(
      edited((copy) => {
        const variable = resolvePointer(copy, '#/servers/0/variables/base_url');
        if (isObject(variable)) variable['default'] = baseUrl;
      }),
    );
  /** The one key of the operation's 200 body (`project`, `goal`), from its first response example. */
  const successRecord = (s: OperationSamples): string => {
    const response = dereference(document, pointerTo('paths', s.path, s.method, 'responses', '200'));
    const examples = resolvePointer(document, `${response.pointer}/content/application~1json/examples`);
    const first = isObject(examples) ? Object.keys(examples)[0] : undefined;
    const value = first === undefined ? undefined : dereference(document, `${response.pointer}/content/application~1json/examples/${first}`).value;
    return isObject(value) && isObject(value['value']) ? (Object.keys(value['value'])[0] ?? '') : '';
  };
  const reset = async (): Promise<void> => {
    expect((await fetch(`${baseUrl}/__mock/reset`, { method: 'POST' })).status).toBe(200);
  };
  /** Each example's answer as the sample prints it: `<status> <body>` lines (fetch and Python print both). */
  const answers = (stdout: string): Array<{ status: number; record: string }> =>
    stdout
      .trim()
      .split('\n')
      .map((line) => {
        const [status, ...rest] = line.split(' ');
        const body: unknown = JSON.parse(rest.join(' '));
        return { status: Number(status), record: isObject(body) ? (Object.keys(body)[0] ?? '') : '' };
      });

  it('fetch (Node, as a .mjs module)', async () => {
    for (const s of against()) {
      await reset();
      const file = join(work, `fetch-${s.operationId}.mjs`);
      writeFileSync(file, s.fetch);
      const result = await run(process.execPath, [file], { ...process.env, API_TOKEN: token });
      expect(result.status, result.stderr).toBe(0);
      expect(answers(result.stdout).map((a) => a.status)).toEqual(s.examples.map(() => 200));
    }
  });

  /**
   * A default Node.js project, as `npm init -y` leaves it: a package.json with no "type", so a .js or .ts file is
   * CommonJS. `service-external-api/client` resolves there to this repository's client (a stand-in package whose entry
   * re-exports docs-site/client/index.ts), as it would to the installed package.
   */
  const commonJsProject = (): string => {
    const dir = join(work, 'commonjs-app');
    const client = join(dir, 'node_modules', 'service-external-api');
    mkdirSync(client, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', main: 'index.js' }));
    writeFileSync(join(client, 'package.json'), JSON.stringify({ name: 'service-external-api', type: 'module', exports: { './client': './client.mjs' } }));
    writeFileSync(join(client, 'client.mjs'), `export * from ${JSON.stringify(pathToFileURL(join(root, 'docs-site', 'client', 'index.ts')).href)};\n`);
    return dir;
  };

  it('fetch, pasted into a .js file of a default (CommonJS) Node.js project, as its first line says', async () => {
    const dir = commonJsProject();
    for (const s of against()) {
      expect(s.fetch.split('\n')[0]).toContain('(a .js or .mjs file)');
      await reset();
      const file = join(dir, `fetch-${s.operationId}.js`);
      writeFileSync(file, s.fetch);
      // Node 24 and, where the machine has it, Node 20: the one that runs a .js file as CommonJS only (no module
      // syntax detection), where a top-level await is a SyntaxError.
      for (const node of [process.execPath, ...(NODE_20 ? [NODE_20] : [])]) {
        await reset();
        const result = await run(node, [file], { ...process.env, API_TOKEN: token });
        expect(result.status, `${node}: ${result.stderr}`).toBe(0);
        expect(answers(result.stdout).map((a) => a.status)).toEqual(s.examples.map(() => 200));
      }
    }
  });

  it('the typed client, saved as sample.mts in a default (CommonJS) project, as its first line says', async () => {
    const dir = commonJsProject();
    for (const s of against()) {
      expect(s.typescript.split('\n')[0]).toBe('// An ES module: save it as sample.mts (or as .ts in a project whose package.json says "type": "module").');
      await reset();
      writeFileSync(join(dir, 'sample.mts'), s.typescript);
      const result = await run(process.execPath, [join(dir, 'sample.mts')], { ...process.env, API_TOKEN: token });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(s.examples.length);
    }
  });

  it.skipIf(!python)('Python (urllib.request, the standard library)', async () => {
    for (const s of against()) {
      await reset();
      const file = join(work, `sample_${s.operationId}.py`);
      writeFileSync(file, s.python);
      const result = await run('python3', [file], { ...process.env, API_TOKEN: token });
      expect(result.status, result.stderr).toBe(0);
      expect(answers(result.stdout).map((a) => a.status)).toEqual(s.examples.map(() => 200));
    }
  });

  it.skipIf(!curl)('curl, as pasted: no progress meter, each answer on its own line, the record of a 200', async () => {
    for (const s of against()) {
      await reset();
      const result = await run('bash', ['-e', '-c', s.curl], { ...process.env, API_TOKEN: token });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
      const lines = result.stdout.split('\n');
      expect(lines.pop()).toBe('');
      // One line per answer, each the 200 body: the record the operation answers with, under its one key.
      expect(lines.map((line) => Object.keys(JSON.parse(line) as JsonObject))).toEqual(s.examples.map(() => [successRecord(s)]));
    }
  });

  it.skipIf(!curl)('curl, with the status written after each answer', async () => {
    for (const s of against()) {
      await reset();
      const withStatus = s.curl.replaceAll("-w '\\n'", "-w ' %{http_code}\\n'");
      expect(withStatus).not.toBe(s.curl);
      const result = await run('bash', ['-e', '-c', withStatus], { ...process.env, API_TOKEN: token });
      expect(result.status, result.stderr).toBe(0);
      expect([...result.stdout.matchAll(/ (\d{3})$/gm)].map((m) => Number(m[1]))).toEqual(s.examples.map(() => 200));
    }
  });

  it("the typed client (TypeScript, as the package's ./client entry resolves in this repository)", async () => {
    for (const s of against()) {
      await reset();
      const file = join(work, `client-${s.operationId}.ts`);
      writeFileSync(file, s.typescript);
      const result = await run(process.execPath, [file], { ...process.env, API_TOKEN: token });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(s.examples.length);
    }
  });
});
