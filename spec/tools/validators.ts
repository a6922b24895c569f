// Precompiled response validators: Ajv's standalone code for every response schema of every operation, so a server
// that checks its responses (the mock, in Node, a browser or a service worker) imports them instead of compiling the
// cyclic schemas at start-up. The output is an ES module whose only import is ajv-formats' format checkers.
//
// The formats are ajv-formats' fast ones (regular expressions): exact enough for what the mock answers, whose dates
// and times come from `Date` (always a real calendar day and time) and whose URIs are built from the seed. A shape
// fault (a date for a date-time, a missing offset, a space in a URI) is caught; a 31st of February is not, and
// cannot be produced. The detailed check that explains a failing value (spec/lib/openapi.ts) uses the full formats,
// as the contract suite does for answers it did not make.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { _ } from 'ajv/dist/compile/codegen/index.js';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import {
  dereference,
  documentedHeaders,
  documentedResponses,
  listOperations,
  OPENAPI_KEYWORDS,
  responseSchemaPointer,
  type JsonObject,
} from '../lib/openapi.ts';

type StandaloneCode = (ajv: Ajv2020, refsOrFunc?: Record<string, string>) => string;
// Both modules are CommonJS with a default export; under Node's ESM interop the default is `module.exports`.
const standaloneCode = ('default' in standaloneCodeModule ? standaloneCodeModule.default : standaloneCodeModule) as unknown as StandaloneCode;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, options: { mode: 'fast' | 'full' }) => Ajv2020;

/** Keywords that only describe: they validate nothing, and Ajv's standalone code would embed them in every schema. */
const ANNOTATIONS: ReadonlySet<string> = new Set(['title', 'description', 'summary', 'example', 'examples', 'externalDocs', '$comment', 'deprecated']);

/** What the run-time document leaves out: the prose, which only the docs page reads. */
export const PROSE: ReadonlySet<string> = new Set(['description', 'externalDocs', '$comment']);

/**
 * The document without the given keywords (as keywords only: a property named `description`, a key under
 * `properties`, `examples` or `headers`, stays), and with every value it quotes (an example's value, a default, a
 * const, an enum) as it is: a field named `description` in an example is data.
 */
export function withoutKeywords(node: unknown, keywords: ReadonlySet<string>, namesHere = false): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutKeywords(item, keywords));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!namesHere && keywords.has(key)) continue;
    out[key] =
      !namesHere && (VALUES.has(key) || (key === 'examples' && Array.isArray(value)))
        ? value
        : withoutKeywords(value, keywords, !namesHere && NAMED_MAPS.has(key));
  }
  return out;
}

/** Keywords whose value is data the document quotes, never more document. */
const VALUES: ReadonlySet<string> = new Set(['value', 'example', 'default', 'const', 'enum']);

/** Keywords whose value maps names to things: a key there is a name, never a keyword. */
const NAMED_MAPS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'examples',
  'headers',
  'schemas',
  'responses',
  'parameters',
  'requestBodies',
  'securitySchemes',
  'paths',
  'content',
  '$defs',
]);

/** ES module source exporting `validators`: schema pointer → a validator that answers valid or not (no errors). */
export function responseValidatorsSource(document: JsonObject): string {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: false,
    // Nobody reads these validators' errors (valid or not is the answer): no message strings in the code.
    messages: false,
    allowUnionTypes: true,
    inlineRefs: false,
    validateSchema: false,
    code: { source: true, esm: true, formats: _`fastFormats` },
  });
  addFormats(ajv, { mode: 'fast' });
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  // Without annotations, the module holds only what validates: a third smaller, and plain ASCII (one byte a character).
  ajv.addSchema(withoutKeywords(document, ANNOTATIONS) as JsonObject, 'openapi.json');
  const pointers: Record<string, string> = {};
  const refs: Record<string, string> = {};
  for (const operation of listOperations(document)) {
    for (const [status, mediaTypes] of documentedResponses(document, operation.pointer)) {
      // The documented headers' schemas too: the self-check validates every answer's headers.
      for (const header of documentedHeaders(document, dereference(document, `${operation.pointer}/responses/${status}`).pointer)) {
        if (!header.schemaPointer || header.schemaPointer in pointers) continue;
        const name = `response${Object.keys(pointers).length}`;
        pointers[header.schemaPointer] = name;
        refs[name] = `openapi.json${header.schemaPointer}`;
      }
      for (const mediaType of mediaTypes) {
        const pointer = responseSchemaPointer(document, operation.pointer, Number(status), mediaType);
        if (!pointer || pointer in pointers) continue;
        const name = `response${Object.keys(pointers).length}`;
        pointers[pointer] = name;
        refs[name] = `openapi.json${pointer}`;
      }
    }
  }
  const code = withoutErrorObjects(booleanOnly(standaloneCode(ajv, refs)));
  // A runtime helper (ucs2length, deep equal) would come in through require(), which a browser cannot load.
  if (/\brequire\(/.test(code)) throw new Error('the precompiled validators need an Ajv runtime helper through require(); import it in validators.ts');
  const table = Object.entries(pointers).map(([pointer, name]) => `  ${JSON.stringify(pointer)}: ${name},`);
  return `import { fastFormats } from "ajv-formats/dist/formats.js";\n${code}\nexport const validators = {\n${table.join('\n')}\n};\n`;
}

const SIGNATURE_PATTERN = /function validate(\d+)\(data, \{instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors=\{\}\}=\{\}\)\{/g;

/**
 * Ajv's standalone code hands every nested validator a context object (`{instancePath: instancePath + "/key",
 * parentData, parentDataProperty, rootData, dynamicAnchors}`) and gives each call a fresh `dynamicAnchors = {}`: two
 * objects and a string per property checked, used only to report where an error is. These validators answer valid or
 * not (the mock explains a failure with the detailed validator), so every nested call passes the value alone and every
 * validator reads its context from one shared constant: the same checks, without the allocations. Refused (thrown)
 * when Ajv's output no longer has the shape this rewrite expects, so a new Ajv cannot silently change it.
 */
function booleanOnly(code: string): string {
  const definitions = code.match(SIGNATURE_PATTERN)?.length ?? 0;
  if (definitions === 0 || (code.match(/function validate\d+\(/g)?.length ?? 0) !== definitions)
    throw new Error('Ajv standalone output changed: not every validator has the signature validators.ts rewrites');
  let out = '';
  let at = 0;
  const call = /(validate\d+|wrapper\d+\.validate)\(([^,(){}]+), \{instancePath[:,]/g;
  for (let match = call.exec(code); match; match = call.exec(code)) {
    // The context literal ends at the brace that closes the one opened here (it holds no string with a brace).
    let depth = 0;
    let end = match.index + match[0].length - '{instancePath:'.length;
    for (; end < code.length; end++) {
      const char = code[end];
      if (char === '{') depth++;
      else if (char === '}' && --depth === 0) break;
    }
    if (code[end + 1] !== ')') throw new Error(`Ajv standalone output changed: unexpected call at ${match.index}`);
    out += `${code.slice(at, match.index)}${match[1]}(${match[2]})`;
    at = end + 2;
    call.lastIndex = at;
  }
  out += code.slice(at);
  const left = /rootData,dynamicAnchors/.exec(out);
  if (left) throw new Error(`Ajv standalone output changed: a validator call still passes its context: ${out.slice(left.index - 160, left.index + 30)}`);
  const context = 'const instancePath = "", parentData = undefined, parentDataProperty = undefined, rootData = undefined, dynamicAnchors = {};';
  return `${context}${out.replace(SIGNATURE_PATTERN, 'function validate$1(data){')}`;
}

/**
 * Every error object Ajv's code builds (`{instancePath, schemaPath, keyword, params}`) replaced by `0`. The code still
 * counts errors, and decides oneOf, anyOf and nested calls by those counts and by the length of a nested validator's
 * `errors`, so each error stays an array element; what it was is never read. The schemas the objects quoted (enum
 * values, for `allowedValues`) are then referenced by nothing, and a bundler drops them: the module is a third
 * smaller and a browser bundle of it 40 % smaller.
 */
function withoutErrorObjects(code: string): string {
  let out = '';
  let at = 0;
  const start = /\{instancePath\b/g;
  for (let match = start.exec(code); match; match = start.exec(code)) {
    let depth = 0;
    let end = match.index;
    for (; end < code.length; end++) {
      const char = code[end];
      if (char === '{') depth++;
      else if (char === '}' && --depth === 0) break;
    }
    if (end >= code.length) throw new Error(`Ajv standalone output changed: an error object at ${match.index} does not close`);
    out += `${code.slice(at, match.index)}0`;
    at = end + 1;
    start.lastIndex = at;
  }
  return out + code.slice(at);
}

/** The declaration of that module, so TypeScript imports it without allowJs. */
export function responseValidatorsDeclaration(): string {
  return 'export declare const validators: Readonly<Record<string, (data: unknown) => boolean>>;\n';
}
