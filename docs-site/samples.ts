// The code samples of the reference docs (`x-codeSamples`), generated from the spec: a curl, a TypeScript (the typed
// client), a JavaScript (fetch) and a Python sample per operation (sample-languages.ts), each showing every named
// request example of the operation. Nothing here knows a field, a path or an example value; all of it is read from
// the bundled document, so the samples change with the spec.
import { dereference, isObject, pointerTo, resolvePointer, type JsonObject } from '../spec/lib/openapi.ts';
import { SAMPLE_LANGUAGES, type SampleKey } from './sample-languages.ts';

/** The module specifier consumers import the typed client from (package.json `exports['./client']`). */
export const CLIENT_MODULE = 'service-external-api/client';
/** The environment variable the samples read the API token from. */
const TOKEN_VARIABLE = 'API_TOKEN';

/** One entry of an operation's `x-codeSamples`, as Redoc reads it. */
export type CodeSample = { lang: string; label: string; source: string };

type NamedExample = { key: string; summary: string | undefined; value: unknown };

export type OperationSamples = {
  operationId: string;
  method: string;
  path: string;
  url: string;
  examples: NamedExample[];
} & Record<SampleKey, string>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** Lines longer than this are broken over several lines in the TypeScript sample. */
const WIDTH = 80;

/** The first server's URL with every `{variable}` replaced by its default: the base URL of the samples. */
export function defaultBaseUrl(document: JsonObject): string {
  const server = resolvePointer(document, '#/servers/0');
  if (!isObject(server) || typeof server['url'] !== 'string') throw new Error('the document has no servers[0].url');
  const variables = isObject(server['variables']) ? server['variables'] : {};
  return server['url']
    .replace(/\{([^}]+)\}/g, (_match, name: string) => {
      const variable = variables[name];
      if (!isObject(variable) || typeof variable['default'] !== 'string') throw new Error(`server variable ${name} has no default`);
      return variable['default'];
    })
    .replace(/\/+$/, '');
}

/** The samples of every operation in the document, in document order. */
export function generateSamples(document: JsonObject): OperationSamples[] {
  const baseUrl = defaultBaseUrl(document);
  const paths = isObject(document['paths']) ? document['paths'] : {};
  const result: OperationSamples[] = [];
  for (const path of Object.keys(paths)) {
    for (const method of METHODS) {
      const operation = resolvePointer(document, pointerTo('paths', path, method));
      if (!isObject(operation)) continue;
      const operationId = operation['operationId'];
      if (typeof operationId !== 'string') throw new Error(`${method.toUpperCase()} ${path} has no operationId, which names its client method`);
      const examples = requestExamples(document, pointerTo('paths', path, method, 'requestBody'), operationId);
      const url = `${baseUrl}${path}`;
      const field = successField(document, pointerTo('paths', path, method, 'responses', '200'));
      result.push({
        operationId,
        method,
        path,
        url,
        examples,
        curl: curlSample(method, url, examples),
        typescript: typescriptSample(baseUrl, operationId, examples, field),
        fetch: fetchSample(method, url, examples),
        python: pythonSample(method, url, examples),
      });
    }
  }
  return result;
}

/** `x-codeSamples` for one operation: curl, TypeScript with the typed client, plain fetch, Python. */
export function toCodeSamples(samples: OperationSamples): CodeSample[] {
  return SAMPLE_LANGUAGES.map(({ lang, label, key }) => ({ lang, label, source: samples[key] }));
}

/** A copy of the document with `x-codeSamples` on every operation; the argument is not changed. */
export function withCodeSamples(document: JsonObject): JsonObject {
  const copy = structuredClone(document);
  for (const samples of generateSamples(document)) {
    const operation = resolvePointer(copy, pointerTo('paths', samples.path, samples.method));
    if (!isObject(operation)) throw new Error(`lost ${samples.method} ${samples.path} while copying the document`);
    operation['x-codeSamples'] = toCodeSamples(samples);
  }
  return copy;
}

/** `#/a` + `b/c`, `d` → `#/a/b~1c/d`. */
function below(pointer: string, ...segments: string[]): string {
  return `${pointer}/${pointerTo(...segments).slice(2)}`;
}

/** The named examples of the operation's JSON request body, `$ref`s followed, in document order. */
function requestExamples(document: JsonObject, requestBodyPointer: string, operationId: string): NamedExample[] {
  const requestBody = dereference(document, requestBodyPointer);
  const media = resolvePointer(document, below(requestBody.pointer, 'content', 'application/json'));
  const examples = isObject(media) && isObject(media['examples']) ? media['examples'] : {};
  const named: NamedExample[] = [];
  for (const key of Object.keys(examples)) {
    const { value: example } = dereference(document, below(requestBody.pointer, 'content', 'application/json', 'examples', key));
    if (!isObject(example) || !('value' in example)) throw new Error(`${operationId}: request example ${key} has no value`);
    named.push({ key, summary: typeof example['summary'] === 'string' ? example['summary'] : undefined, value: example['value'] });
  }
  if (named.length === 0) throw new Error(`${operationId}: the JSON request body has no named examples to build code samples from`);
  return named;
}

/**
 * The property path the TypeScript sample prints on success: the 200 body's first required property (`project`),
 * then that record's `status` when it has one (`project.status`).
 */
function successField(document: JsonObject, responsePointer: string): string[] {
  const response = dereference(document, responsePointer);
  const schema = followSchema(document, resolvePointer(document, below(response.pointer, 'content', 'application/json', 'schema')));
  const required: unknown[] = schema && Array.isArray(schema['required']) ? schema['required'] : [];
  const first = required[0];
  if (typeof first !== 'string') return [];
  const properties = schema && isObject(schema['properties']) ? schema['properties'] : {};
  const record = followSchema(document, properties[first]);
  const recordRequired: unknown[] = record && Array.isArray(record['required']) ? record['required'] : [];
  return recordRequired.includes('status') ? [first, 'status'] : [first];
}

function followSchema(document: JsonObject, schema: unknown): JsonObject | undefined {
  const value = isObject(schema) && typeof schema['$ref'] === 'string' ? dereference(document, schema['$ref']).value : schema;
  return isObject(value) ? value : undefined;
}

// ---------------------------------------------------------------------------------------------------------- curl

/** A word for a POSIX shell in single quotes: `it's` → `'it'\''s'`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * One curl call per example: silent but for errors (`-sS`: no progress meter), and each answer ends with a newline
 * (`-w '\n'`), so the answers of several calls are one per line instead of running together.
 */
function curlSample(method: string, url: string, examples: NamedExample[]): string {
  return examples
    .map((example) =>
      [
        `# ${example.summary ?? example.key}`,
        `curl -sS -w '\\n' -X ${method.toUpperCase()} ${shellQuote(url)} \\`,
        `  -H "Authorization: Bearer $${TOKEN_VARIABLE}" \\`,
        `  -H 'Content-Type: application/json' \\`,
        `  --data-raw ${shellQuote(JSON.stringify(example.value, null, 2))}`,
      ].join('\n'),
    )
    .join('\n\n');
}

// --------------------------------------------------------------------------------------------- fetch and Python

function fetchSample(method: string, url: string, examples: NamedExample[]): string {
  // In a function, not at the top level: top-level await is an ES module's only, and a .js file of a default Node.js
  // project is CommonJS. So the sample runs pasted into a .js or a .mjs file alike.
  const lines = [
    `// Node 18+ (a .js or .mjs file), Deno, Bun or a browser; the token from the environment (${TOKEN_VARIABLE}).`,
    'async function main() {',
    `  const token = process.env.${TOKEN_VARIABLE} ?? '';`,
  ];
  examples.forEach((example, i) => {
    lines.push(
      '',
      `  // ${example.summary ?? example.key}`,
      `  const response${i + 1} = await fetch(${tsString(url)}, {`,
      `    method: ${tsString(method.toUpperCase())},`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal, written out as text
      "    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },",
      `    body: JSON.stringify(${tsLiteral(example.value, '    ', true)}),`,
      '  });',
      // Some error answers are plain text (401, the read-only 403): read the text, parse it when it is JSON.
      `  console.log(response${i + 1}.status, await response${i + 1}.text());`,
    );
  });
  lines.push('}', '', 'main();');
  return lines.join('\n');
}

/** A Python string literal (JSON's escapes are Python's). */
const pyString = (text: string): string => JSON.stringify(text);

function pythonSample(method: string, url: string, examples: NamedExample[]): string {
  const lines = ['import json', 'import os', 'import urllib.error', 'import urllib.request', '', `token = os.environ.get(${pyString(TOKEN_VARIABLE)}, "")`];
  for (const example of examples) {
    lines.push(
      '',
      `# ${example.summary ?? example.key}`,
      `body = json.loads(${pyString(JSON.stringify(example.value))})`,
      'request = urllib.request.Request(',
      `    ${pyString(url)},`,
      `    method=${pyString(method.toUpperCase())},`,
      '    data=json.dumps(body).encode(),',
      '    headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},',
      ')',
      'try:',
      '    with urllib.request.urlopen(request) as response:',
      '        print(response.status, response.read().decode())',
      'except urllib.error.HTTPError as error:  # 4xx and 5xx: the body says why',
      '    print(error.code, error.read().decode())',
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------- TypeScript

function typescriptSample(baseUrl: string, operationId: string, examples: NamedExample[], field: string[]): string {
  const lines = [
    // An ES module (import, top-level await): a .ts file of a CommonJS project cannot hold it, a .mts file can.
    '// An ES module: save it as sample.mts (or as .ts in a project whose package.json says "type": "module").',
    `import { createClient } from '${CLIENT_MODULE}';`,
    '',
    'const api = createClient({',
    `  baseUrl: ${tsString(baseUrl)},`,
    `  token: process.env.${TOKEN_VARIABLE} ?? '',`,
    '});',
  ];
  const taken = new Set(['api', 'createClient', 'process']);
  for (const example of examples) {
    const name = variableName(example.key, taken);
    taken.add(name);
    const printed = ['body', ...field].join('.');
    lines.push(
      '',
      `// ${example.summary ?? example.key}`,
      `const ${name} = await api.${operationId}(${tsLiteral(example.value, '', true)});`,
      `if (${name}.ok) console.log(${name}.${printed});`,
      `else console.error(${name}.status, ${name}.body);`,
    );
  }
  return lines.join('\n');
}

const RESERVED = new Set([
  'await',
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'let',
  'new',
  'null',
  'return',
  'static',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'yield',
]);

/** `paused_project` → `pausedProject`, made unique and never a reserved word. */
function variableName(key: string, taken: ReadonlySet<string>): string {
  const words = key.split(/[^A-Za-z0-9]+/).filter(Boolean);
  let name = words.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1))).join('') || 'result';
  if (/^[0-9]/.test(name)) name = `example${name.charAt(0).toUpperCase()}${name.slice(1)}`;
  if (RESERVED.has(name)) name = `${name}Result`;
  let unique = name;
  for (let n = 2; taken.has(unique); n++) unique = `${name}${n}`;
  return unique;
}

/** A TypeScript string literal in single quotes. */
function tsString(text: string): string {
  const escaped = text.replace(/[\\'\u0000-\u001f\u2028\u2029]/g, (c) => {
    if (c === '\\') return '\\\\';
    if (c === "'") return "\\'";
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return `'${escaped}'`;
}

/**
 * A string that holds a JSON object written so that `JSON.stringify` gives it back byte for byte (the rich-text
 * fields): the sample shows it as `JSON.stringify({…})`, which is how a client should build it.
 */
function jsonObjectIn(text: string): JsonObject | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) && JSON.stringify(parsed) === text ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON value as a TypeScript expression on one line. */
function tsOneLine(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') {
    const object = jsonObjectIn(value);
    return object ? `JSON.stringify(${tsOneLine(object)})` : tsString(value);
  }
  if (Array.isArray(value)) return `[${value.map(tsOneLine).join(', ')}]`;
  if (isObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => `${tsKey(k)}: ${tsOneLine(v)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  throw new Error(`cannot write ${typeof value} as a JSON literal`);
}

function tsKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : tsString(key);
}

/**
 * A JSON value as a TypeScript expression: on one line when it fits in WIDTH after `indent`, else one entry per
 * line. `multiline` forces the outer object or array onto several lines.
 */
export function tsLiteral(value: unknown, indent: string, multiline = false): string {
  const oneLine = tsOneLine(value);
  if (!multiline && indent.length + oneLine.length <= WIDTH) return oneLine;
  const inner = `${indent}  `;
  if (typeof value === 'string') {
    const object = jsonObjectIn(value);
    return object ? `JSON.stringify(${tsLiteral(object, indent)})` : oneLine;
  }
  if (Array.isArray(value) && value.length > 0) {
    return `[\n${value.map((item) => `${inner}${tsLiteral(item, inner)},`).join('\n')}\n${indent}]`;
  }
  if (isObject(value) && Object.keys(value).length > 0) {
    return `{\n${Object.entries(value)
      .map(([k, v]) => `${inner}${tsKey(k)}: ${tsLiteral(v, inner)},`)
      .join('\n')}\n${indent}}`;
  }
  return oneLine;
}
