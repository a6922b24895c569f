// Where each operation's 200 examples are written in spec/: every operation keeps its named examples in
// spec/components/examples/, one file each, and its path file's 200 response names them by `$ref` (spec/README.md,
// "Add an operation"). Read by the tools that write those files (`npm run examples`) and by the tests that check them;
// Node only (it reads the YAML sources, not generated/).
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { isObject } from './openapi.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The path file of each route of spec/openapi.yaml (`paths: {route: {$ref: paths/….yaml}}`), relative to the repository. */
function pathFiles(): Map<string, string> {
  const paths = parseDocument(readFileSync(join(ROOT, 'spec', 'openapi.yaml'), 'utf8')).toJS()?.paths;
  const files = new Map<string, string>();
  for (const [route, item] of Object.entries(isObject(paths) ? paths : {})) {
    const ref = isObject(item) ? item['$ref'] : undefined;
    if (typeof ref !== 'string') throw new Error(`spec/openapi.yaml: the route ${route} is not a $ref to a path file`);
    files.set(route, posix.join('spec', ref));
  }
  return files;
}

/** The file of each named 200 example of an operation, relative to the repository, from its route's path file. */
export function exampleFiles(route: string, method: string): Map<string, string> {
  const pathFile = pathFiles().get(route);
  if (pathFile === undefined) throw new Error(`spec/openapi.yaml has no route ${route}`);
  return exampleRefs(pathFile, readFileSync(join(ROOT, pathFile), 'utf8'), method);
}

/** The 200 examples' files a path file's text names (`$ref`s into components/examples/); any other layout is an error. */
export function exampleRefs(pathFile: string, text: string, method: string): Map<string, string> {
  const item: unknown = parseDocument(text).toJS();
  const operation = isObject(item) ? item[method] : undefined;
  const ok = isObject(operation) && isObject(operation['responses']) ? operation['responses']['200'] : undefined;
  const media = isObject(ok) && isObject(ok['content']) ? ok['content']['application/json'] : undefined;
  const examples = isObject(media) && isObject(media['examples']) ? media['examples'] : {};
  const files = new Map<string, string>();
  for (const [name, entry] of Object.entries(examples)) {
    const ref = isObject(entry) ? entry['$ref'] : undefined;
    if (typeof ref !== 'string' || !/^\.\.\/components\/examples\/[\w-]+\.yaml$/.test(ref))
      throw new Error(`${pathFile}: the 200 example ${name} is not a $ref to ../components/examples/<Name>.yaml (spec/README.md, "Add an operation")`);
    files.set(name, posix.join(posix.dirname(pathFile), ref));
  }
  return files;
}

/** Every 200 example file the path files name, for every method, relative to the repository. */
export function allExampleFiles(): string[] {
  return [...pathFiles().values()].flatMap((pathFile) => {
    const text = readFileSync(join(ROOT, pathFile), 'utf8');
    const item: unknown = parseDocument(text).toJS();
    const methods = isObject(item) ? Object.keys(item).filter((key) => isObject(item[key])) : [];
    return methods.flatMap((method) => [...exampleRefs(pathFile, text, method).values()]);
  });
}
