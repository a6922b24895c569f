// Reading a document the gate is given, as an attacker would write it: a pull request's spec is input, not code. Every
// file is parsed here, within limits (size, alias expansion, nesting, node count), and every reference it makes
// (`$ref`, an example's `externalValue`, a discriminator's mapping) must name a file inside the document's own folder
// (for `git:` refs, spec/ at that ref): no absolute path, no `..` out of it, no symlink out of it, no URL, so no file
// outside the spec is read and no request is made. A chain of references that only leads back to itself is refused
// too. What passes is copied, as JSON, into a fresh folder, so the bundler reads exactly the files checked here.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import { isObject } from '../lib/openapi.ts';
import { FileReadError, readFileBounded } from '../lib/read-file.ts';

/**
 * The YAML parser, loaded when a YAML file is read: `yaml` is an optional peer dependency of the package, needed by
 * `diff` only (cli/peers.ts), so `diff --help` and every other command load without it.
 */
const yaml = (): typeof import('yaml') => createRequire(import.meta.url)('yaml');

/**
 * The bounds on what is read (spec/README.md, "The contract through change"): beyond any of them, exit 2 with one line.
 * `fileBytes` one file, `totalBytes` all the files one document reaches (checked before each file is parsed, so the
 * parsing is bounded as a whole), `files` how many; `treeBytes` and `treeFiles` bound `spec/` at a git ref, checked
 * from git's own listing before a byte of it is written out.
 */
export const READ_LIMITS = {
  fileBytes: 8 * 1024 * 1024,
  totalBytes: 16 * 1024 * 1024,
  files: 1000,
  treeBytes: 64 * 1024 * 1024,
  treeFiles: 5000,
  depth: 128,
  nodes: 2_000_000,
  aliases: 100,
} as const;

const MB = (bytes: number): string => `${bytes / 1024 / 1024} MB`;

/**
 * A file of the document, read as spec/lib/read-file.ts reads any input (one open handle, no symlink, no FIFO, within
 * `limit`), its refusal the gate's one-line exit 2.
 */
export function readBounded(path: string, limit: number, name: string, over = `is over ${MB(limit)}`): string {
  try {
    return readFileBounded(path, limit, name, over);
  } catch (error) {
    throw error instanceof FileReadError ? new DiffInputError(error.message) : error;
  }
}

/** Bad input (a missing file, not OpenAPI, an unknown git ref, a $ref that cannot be resolved or leaves the spec): exit 2, one line. */
export class DiffInputError extends Error {
  override name = 'DiffInputError';
}

const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim().slice(0, 160) ?? '';

/** A bound on the nesting of YAML text, from its tokens (no recursion): flow brackets, block indicators, indentation. */
function yamlNesting(text: string): number {
  let flow = 0;
  let onLine = 0;
  let indent = 0;
  let lineStart = true;
  let deepest = 0;
  for (const token of new (yaml().Lexer)().lex(text)) {
    if (token === '\n' || token === '\r\n') {
      [onLine, indent, lineStart] = [0, 0, true];
      continue;
    }
    if (lineStart && /^ +$/.test(token)) indent = token.length;
    lineStart = false;
    if (token === '[' || token === '{') flow++;
    else if (token === ']' || token === '}') flow = Math.max(0, flow - 1);
    else if (token === '-' || token === '?') onLine++;
    // Indentation counts half: two spaces a level is the common style.
    deepest = Math.max(deepest, flow + onLine + Math.ceil(indent / 2));
    if (deepest > READ_LIMITS.depth) return deepest;
  }
  return deepest;
}

/** Whether a parsed value stays within the depth and node bounds (walked without recursion, aliases counted each time). */
function withinBounds(value: unknown): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 0]];
  let nodes = 0;
  while (stack.length > 0) {
    const [item, depth] = stack.pop() ?? [undefined, 0];
    if (++nodes > READ_LIMITS.nodes) return `more than ${READ_LIMITS.nodes} nodes`;
    if (depth > READ_LIMITS.depth) return `nested deeper than ${READ_LIMITS.depth} levels`;
    if (Array.isArray(item)) for (const v of item) stack.push([v, depth + 1]);
    else if (isObject(item)) for (const v of Object.values(item)) stack.push([v, depth + 1]);
  }
  return undefined;
}

/** The first key a YAML map repeats (the same scalar, as the parser's uniqueKeys compares them), walked without recursion. */
function duplicateKey(root: unknown): string | undefined {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (yaml().isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key: unknown = pair.key;
        if (yaml().isScalar(key) && key.value !== '<<') {
          const name = `${typeof key.value}:${String(key.value)}`;
          if (seen.has(name)) return String(key.value);
          seen.add(name);
        } else if (key !== null) stack.push(key);
        stack.push(pair.value);
      }
    } else if (yaml().isSeq(node)) for (const item of node.items) stack.push(item);
  }
  return undefined;
}

/** One file's text, parsed as JSON or YAML within the limits. `label` names it in errors. */
function parseSpecText(text: string, file: string, label: string): unknown {
  let value: unknown;
  if (extname(file).toLowerCase() === '.json' || /^\s*[[{]/.test(text)) {
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (extname(file).toLowerCase() === '.json') throw new DiffInputError(`${label}: not JSON (${firstLine(error)})`);
    }
  }
  if (value === undefined) {
    // Tokenizing costs as much as parsing: only text that could nest deep is scanned first.
    const couldNest =
      text.length > 65_536 || (text.match(/[[{]/g)?.length ?? 0) > READ_LIMITS.depth || /(?:[-?][ \t]+){16}/.test(text) || /^[ \t]{128,}\S/m.test(text);
    const nesting = couldNest ? yamlNesting(text) : 0;
    if (nesting > READ_LIMITS.depth) throw new DiffInputError(`${label}: nested deeper than ${READ_LIMITS.depth} levels`);
    try {
      // Keys are checked for duplicates here, in one pass: the parser's own check compares each key with every key
      // before it, which made one 7.8 MB map of 120,000 keys take minutes.
      const document = yaml().parseDocument(text, { uniqueKeys: false, merge: true, prettyErrors: false });
      const [error] = document.errors;
      if (error) throw error;
      const duplicate = duplicateKey(document.contents);
      if (duplicate !== undefined) throw new DiffInputError(`${label}: not YAML (Map keys must be unique: ${JSON.stringify(duplicate.slice(0, 80))})`);
      value = document.toJS({ maxAliasCount: READ_LIMITS.aliases });
    } catch (error) {
      if (error instanceof DiffInputError) throw error;
      const alias = error instanceof ReferenceError || /alias/i.test(firstLine(error));
      throw new DiffInputError(
        alias ? `${label}: YAML aliases expand beyond ${READ_LIMITS.aliases} (an alias bomb?)` : `${label}: not YAML (${firstLine(error)})`,
      );
    }
  }
  const bounded = withinBounds(value);
  if (bounded) throw new DiffInputError(`${label}: ${bounded}`);
  return value;
}

/** The references a parsed file makes, with where (a JSON pointer in the file) it makes them. */
function referencesIn(value: unknown): Array<{ ref: string; at: string }> {
  const found: Array<{ ref: string; at: string }> = [];
  const stack: Array<[unknown, string]> = [[value, '#']];
  while (stack.length > 0) {
    const [item, at] = stack.pop() ?? [undefined, '#'];
    if (Array.isArray(item)) for (const [i, v] of item.entries()) stack.push([v, `${at}/${i}`]);
    else if (isObject(item)) {
      for (const key of ['$ref', '$dynamicRef', 'externalValue', 'defaultMapping', 'operationRef'] as const) {
        const ref = item[key];
        if (typeof ref === 'string') found.push({ ref, at: `${at}/${key}` });
      }
      const mapping = isObject(item['discriminator']) ? item['discriminator']['mapping'] : undefined;
      // A mapping value is a schema name or a reference: a name has no '/', '.', ':' or '#'.
      if (isObject(mapping))
        for (const [name, ref] of Object.entries(mapping))
          if (typeof ref === 'string' && /[/.:#]/.test(ref)) found.push({ ref, at: `${at}/discriminator/mapping/${name}` });
      for (const [key, v] of Object.entries(item)) stack.push([v, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
    }
  }
  return found;
}

const unescapeSegment = (segment: string): string => {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded after all: taken as it is.
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
};

/** The node at a JSON pointer (`#/a/b`) of a value, or undefined. */
function at(value: unknown, pointer: string): { found: boolean; node: unknown } {
  let node = value;
  for (const segment of pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s, _i, all) => !(s === '' && all.length === 1))) {
    const key = unescapeSegment(segment);
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return { found: false, node: undefined };
  }
  return { found: true, node };
}

type Read = { root: string; files: Map<string, unknown> };

/** A reference as text, in YAML or JSON: `$ref: x`, `"$ref": "x"`, `externalValue: 'x'` (the file part, before any `#`). */
const REFERENCE_TEXT = /(?:\$ref|\$dynamicRef|externalValue|operationRef)["']?[ \t]*:[ \t]*["']?([^"'\s#,}\]]*)/g;

/**
 * The byte budget, checked before anything is parsed: the files a document's references name, found in their text
 * (no parser involved), are read within what is left of READ_LIMITS.totalBytes. A file over it is refused here, in
 * the words the parsing walk would use; anything this scan misses or cannot place (outside the folder, missing, a
 * URL) is left to that walk, which checks every file again before it parses it.
 */
function budgetBeforeParsing(file: string, realRoot: string, inside: (path: string) => boolean, label: string): void {
  const queue = [resolve(file)];
  const seen = new Set<string>();
  let total = 0;
  while (queue.length > 0) {
    let real: string;
    try {
      real = realpathSync(queue.shift() ?? '');
    } catch {
      continue;
    }
    if (seen.has(real) || !inside(real)) continue;
    seen.add(real);
    if (seen.size > READ_LIMITS.files) return;
    const left = Math.max(0, READ_LIMITS.totalBytes - total);
    const over = left < READ_LIMITS.fileBytes ? `takes the files this document reaches over ${MB(READ_LIMITS.totalBytes)} in all` : undefined;
    const text = readBounded(real, Math.min(READ_LIMITS.fileBytes, left), `${label}: ${relative(realRoot, real) || real}`, over);
    total += Buffer.byteLength(text);
    for (const match of text.matchAll(REFERENCE_TEXT)) {
      const path = match[1] ?? '';
      if (path !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(path) && !path.startsWith('//') && !isAbsolute(path) && !/[\0\\%]/.test(path))
        queue.push(resolve(dirname(real), path));
    }
  }
}

/**
 * Reads `file` and every file its references reach, confined to `root` (a folder; the real path of both is what is
 * compared, so a symlink out of it is refused). `label` names the input in errors.
 */
export function readSpecFiles(file: string, root: string, label: string): Read {
  const realRoot = realpathSync(root);
  const inside = (path: string): boolean => path === realRoot || path.startsWith(realRoot.endsWith(sep) ? realRoot : `${realRoot}${sep}`);
  budgetBeforeParsing(file, realRoot, inside, label);
  const files = new Map<string, unknown>();
  let total = 0;
  const name = (path: string): string => relative(realRoot, path) || path;
  const load = (path: string, from: string): string => {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new DiffInputError(`${label}: a $ref cannot be resolved (${from} names ${name(resolve(path))}, which does not exist)`);
    }
    if (!inside(real)) throw new DiffInputError(`${label}: ${from} leaves the spec's folder (only files inside it are read)`);
    if (files.has(real)) return real;
    if (files.size >= READ_LIMITS.files) throw new DiffInputError(`${label}: references more than ${READ_LIMITS.files} files`);
    // One budget for the whole document: what this file may hold is what the files before it left.
    const left = Math.max(0, READ_LIMITS.totalBytes - total);
    const text = readBounded(
      real,
      Math.min(READ_LIMITS.fileBytes, left),
      `${label}: ${name(real)}`,
      left < READ_LIMITS.fileBytes ? `takes the files this document reaches over ${MB(READ_LIMITS.totalBytes)} in all` : undefined,
    );
    total += Buffer.byteLength(text);
    files.set(real, parseSpecText(text, real, files.size === 0 ? label : `${label}: ${name(real)}`));
    return real;
  };
  const queue = [load(resolve(file), label)];
  const queued = new Set(queue);
  // Each reference, resolved to a file and a pointer; `chains` follows references to references, to find loops.
  const targets = new Map<string, { file: string; pointer: string }>();
  while (queue.length > 0) {
    const current = queue.shift() ?? '';
    for (const { ref, at: where } of referencesIn(files.get(current))) {
      const from = `$ref "${ref.slice(0, 120)}" at ${name(current)}${where.slice(1)}`;
      const [path = '', ...fragment] = ref.split('#');
      if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//'))
        throw new DiffInputError(`${label}: ${from} is a URL: only files inside the spec's folder are read, and nothing is fetched`);
      if (/[\0\\%]/.test(path) || isAbsolute(path)) throw new DiffInputError(`${label}: ${from} leaves the spec's folder (only files inside it are read)`);
      const target = path === '' ? current : resolve(dirname(current), path);
      if (path !== '' && !inside(target)) throw new DiffInputError(`${label}: ${from} leaves the spec's folder (only files inside it are read)`);
      const real = path === '' ? current : load(target, from);
      if (!queued.has(real)) {
        queued.add(real);
        queue.push(real);
      }
      targets.set(`${current}${where}`, { file: real, pointer: `#${fragment.join('#')}` });
    }
  }
  // A reference whose target is itself a reference, and so on back to the first, resolves to nothing.
  for (const [start, first] of targets) {
    const seen = new Set([start]);
    let next: { file: string; pointer: string } | undefined = first;
    while (next) {
      const node = at(files.get(next.file), next.pointer);
      if (!node.found)
        throw new DiffInputError(
          `${label}: a $ref cannot be resolved (${next.pointer} is not in ${name(next.file)}, named at ${name(start.split('#')[0] ?? '')})`,
        );
      const key = `${next.file}${next.pointer === '#' ? '#' : next.pointer}/$ref`;
      if (!isObject(node.node) || typeof node.node['$ref'] !== 'string') break;
      if (seen.has(key)) throw new DiffInputError(`${label}: a $ref cycle: ${name(next.file)}${next.pointer} refers back to itself through $refs alone`);
      seen.add(key);
      next = targets.get(key);
    }
  }
  return { root: realRoot, files };
}

/** Writes the files read, as JSON under their own relative names, into `dir`; returns the root file's copy. */
export function copySpecFiles(read: Read, file: string, dir: string): string {
  for (const [path, value] of read.files) {
    const copy = join(dir, relative(read.root, path));
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, JSON.stringify(value));
  }
  return join(dir, relative(read.root, realpathSync(file)));
}
