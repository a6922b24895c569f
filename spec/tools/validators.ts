// Precompiled response validators: Ajv's standalone code for every response schema of every operation, so a server
// that checks its responses (the mock) loads them instead of compiling the cyclic schemas at start-up.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { _ } from 'ajv/dist/compile/codegen/index.js';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import { documentedResponses, listOperations, OPENAPI_KEYWORDS, responseSchemaPointer, type JsonObject } from '../lib/openapi.ts';

type StandaloneCode = (ajv: Ajv2020, refsOrFunc?: Record<string, string>) => string;
// Both modules are CommonJS with a default export; under Node's ESM interop the default is `module.exports`.
const standaloneCode = ('default' in standaloneCodeModule ? standaloneCodeModule.default : standaloneCodeModule) as unknown as StandaloneCode;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** CommonJS source exporting one validator per response schema, and `pointers`: schema pointer → export name. */
export function responseValidatorsSource(document: JsonObject): string {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: false,
    allowUnionTypes: true,
    inlineRefs: false,
    validateSchema: false,
    code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` },
  });
  addFormats(ajv);
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  ajv.addSchema(document, 'openapi.json');
  const pointers: Record<string, string> = {};
  const refs: Record<string, string> = {};
  for (const operation of listOperations(document)) {
    for (const [status, mediaTypes] of documentedResponses(document, operation.pointer)) {
      for (const mediaType of mediaTypes) {
        const pointer = responseSchemaPointer(document, operation.pointer, Number(status), mediaType);
        if (!pointer || pointer in pointers) continue;
        const name = `validate${Object.keys(pointers).length}`;
        pointers[pointer] = name;
        refs[name] = `openapi.json${pointer}`;
      }
    }
  }
  return `${standaloneCode(ajv, refs)}\nexports.pointers = ${JSON.stringify(pointers, null, 2)};\n`;
}
