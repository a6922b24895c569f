// JSON Schema validators compiled by Ajv (2020-12, the dialect of OpenAPI 3.1, with ajv-formats) from the bundled
// document (openapi.ts): one shared validator per document (specValidator), which explains a failing value with every
// error. Kept apart from openapi.ts so that reading the document never loads Ajv's compiler.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isObject, loadDocument, OPENAPI_KEYWORDS, resolvePointer, type JsonObject, type SchemaValidator } from './openapi.ts';

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
  // Valid or not is asked of every level of a value that fails (conformance.ts explains it level by level): a validator
  // that stops at the first error answers that without building an error list that grows with the value.
  let quick: ReturnType<typeof createDetailedValidator> | undefined;
  const isValid = (pointer: string, value: unknown): boolean => {
    quick ??= createDetailedValidator(document, { allErrors: false, fastCompile });
    return quick.validate(pointer, value).length === 0;
  };
  return {
    validate: options.firstErrorOnly ? (pointer, value) => (isValid(pointer, value) ? [] : detailed.validate(pointer, value)) : detailed.validate,
    isValid,
    validateOwn: detailed.validateOwn,
  };
}

/** Keywords that say nothing about a value (annotations, OpenAPI's and `x-` extensions): left out of an own-keyword schema. */
const ANNOTATIONS: ReadonlySet<string> = new Set([
  'title',
  'description',
  'examples',
  'example',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  '$id',
  '$anchor',
  '$schema',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'discriminator',
  'xml',
  'externalDocs',
]);
/** Keywords about the value itself, never about a part of it: kept as they are. */
const OWN: ReadonlySet<string> = new Set([
  'type',
  'const',
  'enum',
  'required',
  'dependentRequired',
  'minProperties',
  'maxProperties',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
]);

/**
 * The schema's own keywords only (see SchemaValidator.validateOwn): properties, items, allOf, oneOf and anyOf are
 * applied by the caller, part by part; an object keeps its field names (each allowing anything). Undefined for
 * a schema with another keyword that looks into the value's parts (patternProperties, prefixItems, contains, not, if, …).
 */
function ownKeywords(schema: JsonObject): JsonObject | undefined {
  const own: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
    if (OWN.has(key)) own[key] = value;
    else if (key === 'properties') {
      // The names stay (a closed object allows them; strict Ajv wants each required one declared), each allowing anything.
      if (typeof value === 'object' && value !== null) own[key] = Object.fromEntries(Object.keys(value).map((name) => [name, true]));
    } else if (key === 'additionalProperties' || key === 'items') {
      if (typeof value === 'boolean') own[key] = value;
    } else if (key !== 'allOf' && key !== 'oneOf' && key !== 'anyOf') return undefined;
  }
  return own;
}

function createDetailedValidator(document: JsonObject, ajvOptions: AjvOptions = {}) {
  const ajv = createAjv(ajvOptions);
  ajv.addSchema(document, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();
  const ownCompiled = new Map<string, ValidateFunction | undefined>();
  // A part taken out of its schema may not compile alone (strict mode wants the type an enclosing schema gave it):
  // then that schema is validated whole, as before.
  const compileOwn = (own: JsonObject): ValidateFunction | undefined => {
    try {
      return ajv.compile(own);
    } catch {
      return undefined;
    }
  };
  return {
    validate(pointer: string, value: unknown): ErrorObject[] {
      let validateFn = compiled.get(pointer);
      if (!validateFn) {
        validateFn = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
        compiled.set(pointer, validateFn);
      }
      return validateFn(value) ? [] : [...(validateFn.errors ?? [])];
    },
    validateOwn(pointer: string, value: unknown): ErrorObject[] | undefined {
      if (!ownCompiled.has(pointer)) {
        const schema = resolvePointer(document, pointer);
        const own = isObject(schema) && typeof schema['$ref'] !== 'string' ? ownKeywords(schema) : undefined;
        ownCompiled.set(pointer, own === undefined ? undefined : compileOwn(own));
      }
      const validateFn = ownCompiled.get(pointer);
      if (validateFn === undefined) return undefined;
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
