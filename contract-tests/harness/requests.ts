// Request builders: every body starts from one of the spec's named request examples (components/examples, as each
// operation's requestBody lists them) and overrides only what a test needs. Bodies are checked against the request
// schema on the way out, so a builder never hands a test something the spec would not accept unless the test asks
// for it (`withField`, `withoutField`).
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { formatErrors } from '../../spec/lib/ajv.ts';
import { operationModel, type OperationId, type OperationModel, type RequestBody } from '../model/profiles.ts';
import { specValidator as schemas } from '../../spec/lib/ajv.ts';

/** The schema errors of a request body ('' when the spec accepts it). */
function requestViolations(model: OperationModel, value: unknown): string {
  return formatErrors(schemas().validate(model.requestSchemaPointer, value));
}

/** A type guard backed by the operation's request schema. */
export function isRequestBody<K extends OperationId>(operationId: K, value: unknown): value is RequestBody<K> {
  return requestViolations(operationModel(operationId), value) === '';
}

/** Mentions name people of the spec's example data, who need not exist on the server under test: keep their label as text. */
function withoutMentions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutMentions);
  if (!isObject(node)) return node;
  if (node['type'] === 'mention') {
    const attrs = node['attrs'];
    return { type: 'text', text: `@${isObject(attrs) && typeof attrs['label'] === 'string' ? attrs['label'] : 'someone'}` };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withoutMentions(v)]));
}

/**
 * The named example, made portable to any server: rich text keeps its words but not its mentions, and
 * `subscriber_ids` naming the example's people becomes `[]`. Everything else is the example as the spec has it.
 */
export function portableExample(model: OperationModel, name?: string): JsonObject {
  const example = name === undefined ? model.examples[0] : model.examples.find((e) => e.name === name);
  if (!example)
    throw new Error(`${model.operationId} has no request example ${name ?? '(none at all)'}; examples: ${model.examples.map((e) => e.name).join(', ')}`);
  const out: JsonObject = structuredClone(example.value);
  for (const field of model.fields) {
    const value = out[field.name];
    if (field.kind === 'rich-text' && typeof value === 'string') {
      try {
        out[field.name] = JSON.stringify(withoutMentions(JSON.parse(value)));
      } catch {
        // not JSON: the example is what it is
      }
    }
    if (field.kind === 'id-list' && Array.isArray(value) && value.length > 0) out[field.name] = [];
  }
  return out;
}

/** A valid body for any operation (table-driven tests): the example with the target record's id. */
export function baseBody(model: OperationModel, targetId: string, exampleName?: string): JsonObject {
  const body = { ...portableExample(model, exampleName), [model.targetField]: targetId };
  const problems = requestViolations(model, body);
  if (problems) throw new Error(`the ${model.operationId} example with id ${targetId} is not a valid request: ${problems}`);
  return body;
}

/** A typed valid body: the named example (default: the first) with `overrides` applied, checked against the schema. */
export function build<K extends OperationId>(operationId: K, overrides: Partial<RequestBody<K>>, exampleName?: string): RequestBody<K> {
  const merged: unknown = { ...portableExample(operationModel(operationId), exampleName), ...overrides };
  if (!isRequestBody(operationId, merged)) throw new Error(`the ${operationId} body is not valid: ${requestViolations(operationModel(operationId), merged)}`);
  return merged;
}

/** A typed body written out in full: the compiler rejects a missing required field (see selftest/requests.test-d.ts). */
export function body<K extends OperationId>(operationId: K, value: RequestBody<K>): RequestBody<K> {
  if (!isRequestBody(operationId, value)) throw new Error(`the ${operationId} body is not valid: ${requestViolations(operationModel(operationId), value)}`);
  return value;
}

/** The body without one field: typed so that it no longer passes as a full body. */
export function withoutField<T extends object, F extends keyof T & string>(value: T, field: F): Omit<T, F> {
  const { [field]: _removed, ...rest } = value;
  return rest;
}

/** The body with one field set to any JSON value, valid or not (for negative tests). */
export function withField(value: object, field: string, fieldValue: unknown): JsonObject {
  return { ...value, [field]: fieldValue };
}
