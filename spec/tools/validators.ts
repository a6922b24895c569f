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
import { documentedResponses, listOperations, OPENAPI_KEYWORDS, responseSchemaPointer, type JsonObject } from '../lib/openapi.ts';

type StandaloneCode = (ajv: Ajv2020, refsOrFunc?: Record<string, string>) => string;
// Both modules are CommonJS with a default export; under Node's ESM interop the default is `module.exports`.
const standaloneCode = ('default' in standaloneCodeModule ? standaloneCodeModule.default : standaloneCodeModule) as unknown as StandaloneCode;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, options: { mode: 'fast' | 'full' }) => Ajv2020;

/** ES module source exporting `validators`: schema pointer → a validator that answers valid or not (no errors). */
export function responseValidatorsSource(document: JsonObject): string {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: false,
    allowUnionTypes: true,
    inlineRefs: false,
    validateSchema: false,
    code: { source: true, esm: true, formats: _`fastFormats` },
  });
  addFormats(ajv, { mode: 'fast' });
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  ajv.addSchema(document, 'openapi.json');
  const pointers: Record<string, string> = {};
  const refs: Record<string, string> = {};
  for (const operation of listOperations(document)) {
    for (const [status, mediaTypes] of documentedResponses(document, operation.pointer)) {
      for (const mediaType of mediaTypes) {
        const pointer = responseSchemaPointer(document, operation.pointer, Number(status), mediaType);
        if (!pointer || pointer in pointers) continue;
        const name = `response${Object.keys(pointers).length}`;
        pointers[pointer] = name;
        refs[name] = `openapi.json${pointer}`;
      }
    }
  }
  const code = standaloneCode(ajv, refs);
  // A runtime helper (ucs2length, deep equal) would come in through require(), which a browser cannot load.
  if (/\brequire\(/.test(code)) throw new Error('the precompiled validators need an Ajv runtime helper through require(); import it in validators.ts');
  const table = Object.entries(pointers).map(([pointer, name]) => `  ${JSON.stringify(pointer)}: ${name},`);
  return `import { fastFormats } from "ajv-formats/dist/formats.js";\n${code}\nexport const validators = {\n${table.join('\n')}\n};\n`;
}

/** The declaration of that module, so TypeScript imports it without allowJs. */
export function responseValidatorsDeclaration(): string {
  return 'export declare const validators: Readonly<Record<string, (data: unknown) => boolean>>;\n';
}
