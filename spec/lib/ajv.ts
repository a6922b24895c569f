// JSON Schema validators compiled by Ajv (2020-12, the dialect of OpenAPI 3.1, with ajv-formats) from the bundled
// document (openapi.ts): one shared validator per document (specValidator), which explains a failing value with every
// error. Kept apart from openapi.ts so that reading the document never loads Ajv's compiler.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadDocument, OPENAPI_KEYWORDS, type JsonObject, type SchemaValidator } from './openapi.ts';

const DOCUMENT_ID = 'openapi.json';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export type AjvOptions = {
  /** false: stop at the first error, faster where only "valid or not" matters. */
  allErrors?: boolean;
  /**
   * For servers that compile at start-up: skip re-validating the schemas against the meta-schema (Redocly lint and the
   * spec's tests do that) and compile each referenced schema once instead of inlining it everywhere. Several times
   * faster to compile for this document, whose schemas reference each other in cycles.
   */
  fastCompile?: boolean;
};

/** An Ajv instance for JSON Schema 2020-12 with formats checked: the dialect of OpenAPI 3.1. */
export function createAjv(options: AjvOptions = {}): Ajv2020 {
  const fast = options.fastCompile === true;
  const ajv = new Ajv2020({
    strict: true,
    allErrors: options.allErrors ?? true,
    allowUnionTypes: true,
    validateFormats: true,
    validateSchema: !fast,
    inlineRefs: !fast,
  });
  addFormats(ajv);
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  return ajv;
}

/**
 * Validators for schemas in the bundled document, compiled once per pointer. With `firstErrorOnly`, a value is first
 * checked by a validator that stops at the first error, and only an invalid one is checked again for every error.
 */
export function createSchemaValidator(
  document: JsonObject = loadDocument(),
  options: { firstErrorOnly?: boolean; fastCompile?: boolean } = {},
): SchemaValidator {
  const fastCompile = options.fastCompile ?? false;
  const detailed = createDetailedValidator(document, { fastCompile });
  if (!options.firstErrorOnly) return detailed;
  const quick = createDetailedValidator(document, { allErrors: false, fastCompile });
  return { validate: (pointer, value) => (quick.validate(pointer, value).length === 0 ? [] : detailed.validate(pointer, value)) };
}

function createDetailedValidator(document: JsonObject, ajvOptions: AjvOptions = {}): SchemaValidator {
  const ajv = createAjv(ajvOptions);
  ajv.addSchema(document, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();
  return {
    validate(pointer, value) {
      let validateFn = compiled.get(pointer);
      if (!validateFn) {
        validateFn = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
        compiled.set(pointer, validateFn);
      }
      return validateFn(value) ? [] : [...(validateFn.errors ?? [])];
    },
  };
}

export function formatErrors(errors: ReadonlyArray<ErrorObject>): string {
  return errors
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message ?? e.keyword}${e.params && 'allowedValues' in e.params ? ` (${String(e.params['allowedValues'])})` : ''}`,
    )
    .join('; ');
}

/** One validator per document: every reader of a document shares its compiled schemas. */
const validators = new WeakMap<JsonObject, SchemaValidator>();

/**
 * The validator of a document (the bundled spec by default), compiled once and shared by every caller (the mock's
 * explanations, the type guards, the contract suite): most values checked are valid, so the first error decides, and
 * only an invalid value is validated again for every error.
 */
export function specValidator(document: JsonObject = loadDocument()): SchemaValidator {
  let validator = validators.get(document);
  if (!validator) {
    validator = createSchemaValidator(document, { firstErrorOnly: true, fastCompile: true });
    validators.set(document, validator);
  }
  return validator;
}
