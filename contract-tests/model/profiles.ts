// What the suite knows about each operation, all derived from generated/openapi.json: method and path, whether it
// is secured, its request fields in declaration order (kind, required, nullable, enum values), its target id field,
// its named request examples and its documented error bodies. A new operation in the spec gets every table-driven
// check from this model; what it needs by hand is its one entry in state-rules.ts OPERATION_RULES (which fixture
// story it writes, what its write changes, its state rules), of which PROFILES is the fixture story.
import {
  operationModels as specModels,
  resolveSchema,
  responseExamples,
  type FieldModel,
  type OperationId,
  type OperationModel as SpecOperationModel,
  type RequestBody,
} from '../../spec/lib/operations.ts';
import type { RecordGroup, RecordStory } from './fixtures.ts';
import { OPERATION_RULES } from './state-rules.ts';

export { resolveSchema, type FieldModel, type OperationId, type RequestBody };

/** spec/lib/operations.ts's model of an operation, and which fixture record the suite writes to with it. */
export type OperationModel = SpecOperationModel & {
  /** The required id field that names the record the operation changes (`project_id`, `goal_id`). */
  targetField: string;
  /** The fixture group of that record (`projects`, `goals`). */
  group: RecordGroup;
};

/** Per operation, the fixture story whose record the operation may change (state-rules.ts OPERATION_RULES `target`). */
export type Profile = { target: RecordStory };
export const PROFILES: { readonly [K in OperationId]: Profile } = OPERATION_RULES;

function isOperationId(value: string): value is OperationId {
  return Object.hasOwn(PROFILES, value);
}

let cached: OperationModel[] | undefined;

/** Every operation of the spec, modelled. */
export function operationModels(): OperationModel[] {
  if (cached) return cached;
  cached = specModels().map((model) => {
    const { operationId } = model;
    if (!isOperationId(operationId))
      throw new Error(`the spec has operation ${operationId} but contract-tests/model/state-rules.ts OPERATION_RULES does not; add its entry there`);
    const target = model.fields.find((f) => f.required && f.kind === 'id');
    if (!target) throw new Error(`${operationId} has no required id field; the suite cannot tell which record it changes`);
    const group = `${target.name.replace(/_id$/, '')}s`;
    if (group !== 'projects' && group !== 'goals')
      throw new Error(`${operationId} targets ${group}, which the suite has no fixture variables for (contract-tests/io/env.ts RECORD_STORIES)`);
    return { ...model, targetField: target.name, group };
  });
  return cached;
}

export function operationModel(operationId: OperationId): OperationModel {
  const model = operationModels().find((m) => m.operationId === operationId);
  if (!model) throw new Error(`operation ${operationId} is not in the spec`);
  return model;
}

/** The example the spec documents for a response (`example`, or the named one under `examples`): spec/lib's walker. */
export function responseExample(model: OperationModel, status: number, mediaType: string, exampleName?: string): unknown {
  const found = responseExamples(model).find((e) => e.status === status && e.mediaType === mediaType && e.name === exampleName);
  if (!found) throw new Error(`${model.operationId} ${status} ${mediaType} has no ${exampleName === undefined ? 'single example' : `example ${exampleName}`}`);
  return found.value;
}

/** The response example as a string (plain-text bodies), or the JSON text of a JSON example. */
export function responseExampleText(model: OperationModel, status: number, mediaType: string, exampleName?: string): string {
  const value = responseExample(model, status, mediaType, exampleName);
  return typeof value === 'string' ? value : JSON.stringify(value);
}
