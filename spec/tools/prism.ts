// Prism on the generated documents, and what every probe of the compatibility matrix shares: the decisive Prism
// probes (`prism mock`, `prism proxy` in front of `npm start`) that npm test runs (spec/test/compat.test.ts), and
// the helpers the matrix (spec/compat/compat.ts, `npm run compat`) builds its other probes on. Prism is a dependency
// of the package's own tests, so this module needs nothing but the root's install; the matrix's other tools are
// installed in spec/compat/node_modules only when someone runs it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isObject, listOperations, resolvePointer, type JsonObject } from '../lib/openapi.ts';
import { ACYCLIC_DOCUMENT_URL, DOCUMENT_URL } from '../lib/files.ts';
import { freePort } from '../lib/ports.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where packages are looked up: the matrix's own install (spec/compat), then the root's. */
const MODULES = [join(ROOT, 'spec', 'compat', 'node_modules'), join(ROOT, 'node_modules')];

export const FILES = { literal: fileURLToPath(DOCUMENT_URL), acyclic: fileURLToPath(ACYCLIC_DOCUMENT_URL) } as const;
export type FileName = keyof typeof FILES;

export type ProbeResult = { ok: boolean; note: string };

/** A well-formed token: Prism checks only that a bearer token is there. */
const ANY_TOKEN = `opk_${'a'.repeat(43)}`;

/** The directory of an installed package (the first of MODULES that holds it; the root's when none does). */
export function packageDir(name: string): string {
  return MODULES.map((modules) => join(modules, name)).find((dir) => existsSync(join(dir, 'package.json'))) ?? join(ROOT, 'node_modules', name);
}

export function packageVersion(name: string): string {
  const file = join(packageDir(name), 'package.json');
  if (!existsSync(file)) return 'not installed';
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  return isObject(parsed) && typeof parsed['version'] === 'string' ? parsed['version'] : '?';
}

/** The JavaScript file behind a package's command, run with this Node rather than whatever `node` is on PATH. */
export function binOf(name: string, command?: string): string {
  const parsed: unknown = JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8'));
  const bin = isObject(parsed) ? parsed['bin'] : undefined;
  const path = typeof bin === 'string' ? bin : isObject(bin) ? bin[command ?? Object.keys(bin)[0] ?? ''] : undefined;
  if (typeof path !== 'string') throw new Error(`${name} has no command ${command ?? ''}`);
  return join(packageDir(name), path);
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** The first line that says what went wrong, for the table. */
export function firstErrorLine(text: string): string {
  const lines = text
    .replace(ANSI, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const line = lines.find((l) => /error|fail|exception|cannot|invalid|must /i.test(l) && !/^npm warn/i.test(l)) ?? lines[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}

/** Starts a child process and resolves with it once its output matches `ready`; rejects if it exits first. */
function startUntil(args: ReadonlyArray<string>, ready: RegExp, cwd = ROOT): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  let log = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      if (ready.test(log)) resolve({ child, output: () => log });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited (${code}) before it was ready: ${firstErrorLine(log)}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function readDocument(file: string): JsonObject {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!isObject(parsed)) throw new Error(`${file} is not a JSON object`);
  return parsed;
}

/** The first named request example of resumeProject, from the document itself. */
function resumeExample(document: JsonObject): { path: string; body: JsonObject } {
  const operation = listOperations(document).find((op) => op.operationId === 'resumeProject');
  if (!operation) throw new Error('no resumeProject operation');
  const examples = resolvePointer(document, `${operation.pointer}/requestBody/content/application~1json/examples`);
  const first = isObject(examples) ? Object.values(examples)[0] : undefined;
  const example = isObject(first) && typeof first['$ref'] === 'string' ? resolvePointer(document, first['$ref']) : first;
  const value = isObject(example) ? example['value'] : undefined;
  if (!isObject(value)) throw new Error('resumeProject has no request example');
  return { path: operation.path, body: value };
}

async function postJson(url: string, token: string, body: unknown): Promise<{ status: number; body: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.text() };
}

export const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** `prism mock FILE` listens and answers a valid resume (the spec's own example) with 200. */
export async function prismMock(file: string): Promise<ProbeResult> {
  const since = performance.now();
  const port = await freePort();
  const { child } = await startUntil([binOf('@stoplight/prism-cli'), 'mock', file, '-p', String(port), '-h', '127.0.0.1'], /Prism is listening/);
  try {
    const listening = seconds(since);
    const { path, body } = resumeExample(readDocument(file));
    const reply = await postJson(`http://127.0.0.1:${port}${path}`, ANY_TOKEN, body);
    const ok = reply.status === 200 && reply.body.includes('"project"');
    return { ok, note: ok ? `listening after ${listening}, 200 after ${seconds(since)}` : `answered ${reply.status}: ${reply.body.slice(0, 120)}` };
  } finally {
    await stopChild(child);
  }
}

/** `prism proxy FILE <our mock>` forwards a valid resume from `npm start`'s mock and returns its 200. */
export async function prismProxy(file: string): Promise<ProbeResult> {
  const since = performance.now();
  const mock = await startUntil([join(ROOT, 'cli', 'mock.cjs'), '--port', '0'], /port: \d+/);
  try {
    const mockPort = /port: (\d+)/.exec(mock.output())?.[1] ?? '';
    const fixturesReply = await fetch(`http://127.0.0.1:${mockPort}/__mock/fixtures`);
    const fixtures: unknown = await fixturesReply.json();
    const tokens = isObject(fixtures) && isObject(fixtures['tokens']) ? fixtures['tokens'] : {};
    const projects = isObject(fixtures) && isObject(fixtures['projects']) ? fixtures['projects'] : {};
    const token = String(tokens['full_access']);
    const projectId = String(projects['paused']);
    const port = await freePort();
    const { child } = await startUntil(
      [binOf('@stoplight/prism-cli'), 'proxy', file, `http://127.0.0.1:${mockPort}`, '-p', String(port), '-h', '127.0.0.1'],
      /Prism is listening/,
    );
    try {
      const listening = seconds(since);
      const { path, body } = resumeExample(readDocument(file));
      const reply = await postJson(`http://127.0.0.1:${port}${path}`, token, { ...body, project_id: projectId });
      const ok = reply.status === 200 && reply.body.includes(projectId) && reply.body.includes('"active"');
      return {
        ok,
        note: ok
          ? `listening after ${listening}, forwarded 200 (project now active) after ${seconds(since)}`
          : `answered ${reply.status}: ${reply.body.slice(0, 120)}`,
      };
    } finally {
      await stopChild(child);
    }
  } finally {
    await stopChild(mock.child);
  }
}
