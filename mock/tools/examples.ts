// Every operation's 200 examples as the mock answers them: each named request example of the spec, sent to a fresh
// mock on the seed at the examples' instant (EXAMPLES_AT) with ids drawn from the example's name, answers with the 200
// example of the same name. The spec's examples are this answer, so the docs and the mock show the same data.
//   node mock/tools/examples.ts           write each 200 example's `value` into its file (spec/components/examples/)
//   node mock/tools/examples.ts --check   exit 1, naming each example that is not the mock's answer
// `node spec/tools/generate.ts --examples` runs this after writing generated/ for a new operation (spec/README.md,
// "Add an operation"); mock/test/examples.test.ts fails when an example drifts from the answer.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { type Document, isMap, isNode, isScalar, isSeq, parseDocument } from 'yaml';
import { exampleFiles } from '../../spec/lib/example-files.ts';
import { dereference, isObject, listOperations, loadDocument } from '../../spec/lib/openapi.ts';
import { createMockCore } from '../src/core/core.ts';
import { fixturesOf } from '../src/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The instant the examples describe: the seed's "now", the moment each example's write happens. */
const EXAMPLES_AT = new Date('2025-06-13T15:42:07Z');

/** One named request example and the 200 example of the same name, with the mock's answer to the request. */
export type ExampleAnswer = {
  operationId: string;
  name: string;
  /** The spec file the 200 example is written in, relative to the repository (from the path file's `$ref`). */
  file: string;
  request: unknown;
  example: unknown;
  /** The status and body the mock answered. */
  status: number;
  answer: unknown;
};

/** Record ids for new rows that are the same on every run: UUIDs (v4 layout) from the example's name and a counter. */
function idsFor(key: string): () => string {
  let n = 0;
  return () => {
    const hex = createHash('sha256').update(`${key}/${n++}`).digest('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((Number.parseInt(hex[16] ?? '0', 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
}

/** A body as JSON, or as the text it is (a refusal in plain text). */
function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** Each operation's named request examples paired with its 200 examples, and the mock's answer to each request. */
export async function answerExamples(): Promise<ExampleAnswer[]> {
  const document = loadDocument();
  const out: ExampleAnswer[] = [];
  for (const op of listOperations(document)) {
    const files = exampleFiles(op.path, op.method);
    const requests = dereference(document, `${op.pointer}/requestBody/content/application~1json/examples`).value;
    const response = dereference(document, `${op.pointer}/responses/200`);
    for (const name of isObject(requests) ? Object.keys(requests) : []) {
      const file = files.get(name);
      if (file === undefined) throw new Error(`${op.operationId}: the request example ${name} has no 200 example of the same name`);
      const request = dereference(document, `${op.pointer}/requestBody/content/application~1json/examples/${name}`).value;
      const example = dereference(document, `${response.pointer}/content/application~1json/examples/${name}`).value;
      const core = createMockCore({ now: () => EXAMPLES_AT, newId: idsFor(`${op.operationId}/${name}`) });
      const token = fixturesOf(core.seed, core.seed.state).tokens['full_access'];
      const framed = await core.answer({
        method: op.method.toUpperCase(),
        target: op.path,
        header: (h) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}`, host: 'mock.invalid' })[h],
        body: new TextEncoder().encode(JSON.stringify(isObject(request) ? request['value'] : undefined)),
      });
      out.push({
        operationId: op.operationId,
        name,
        file,
        request: isObject(request) ? request['value'] : undefined,
        example: isObject(example) ? example['value'] : undefined,
        status: framed.status,
        answer: parsed(framed.body),
      });
    }
  }
  return out;
}

/**
 * `node`'s value made `value`, changing only what differs: a part the answer leaves as it is keeps its text (its
 * quotes, `40.0`), so a written file's diff is what the mock's answer changed.
 */
function merged(yaml: Document, node: unknown, value: unknown): unknown {
  if (isDeepStrictEqual(isNode(node) ? node.toJS(yaml) : node, value)) return node;
  if (isMap(node) && isObject(value)) {
    for (const item of node.items.slice()) if (!(String(isScalar(item.key) ? item.key.value : item.key) in value)) node.delete(item.key);
    for (const [key, v] of Object.entries(value)) node.set(key, merged(yaml, node.get(key, true), v));
    return node;
  }
  if (isSeq(node) && Array.isArray(value) && node.items.length === value.length) {
    for (const [i, v] of value.entries()) node.set(i, merged(yaml, node.get(i, true), v));
    return node;
  }
  return yaml.createNode(value);
}

/** Writes an answer as its example file's `value`, keeping the file's summary and description (or starting one). */
function write(answer: ExampleAnswer): void {
  const path = join(ROOT, answer.file);
  // YAML 1.1's schema, as Redocly reads the file: a string that 1.1 would take for a timestamp or a boolean is quoted.
  const yaml = parseDocument(existsSync(path) ? readFileSync(path, 'utf8') : `summary: ${answer.operationId} ${answer.name}\n`, { version: '1.1' });
  yaml.set('value', merged(yaml, yaml.get('value', true), answer.answer));
  writeFileSync(path, yaml.toString({ lineWidth: 0, singleQuote: true }));
}

/** Each example written or checked, one line each; the number that failed. */
async function main(check: boolean): Promise<number> {
  let failed = 0;
  for (const answer of await answerExamples()) {
    const where = `${answer.operationId} ${answer.name} (${answer.file})`;
    if (answer.status !== 200) {
      failed++;
      console.error(`${where}: the mock answered ${answer.status}, not 200: ${JSON.stringify(answer.answer).slice(0, 300)}`);
    } else if (isDeepStrictEqual(answer.answer, answer.example)) console.log(`${where}: the mock's answer`);
    else if (check) {
      failed++;
      console.error(`${where}: is not the mock's answer. Run \`npm run examples\` and commit the result.`);
    } else {
      write(answer);
      console.log(`${where}: wrote the mock's answer`);
    }
  }
  return failed;
}

if (import.meta.main) {
  try {
    process.exitCode = (await main(process.argv.includes('--check'))) === 0 ? 0 : 1;
  } catch (error) {
    // A spec the mock cannot start from (an example the seed reads is missing or incomplete) is one line, not a trace.
    console.error(`examples: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
