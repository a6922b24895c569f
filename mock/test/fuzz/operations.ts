// What the fuzzer knows about each operation: spec/lib/operations.ts's model (path, declared inputs with their kinds,
// request examples, documented statuses and media types, response example names), read from generated/openapi.json.
import type { JsonObject } from '../../../spec/lib/openapi.ts';
import { operationModels, type FieldModel, type OperationModel } from '../../../spec/lib/operations.ts';

export type FuzzOperation = OperationModel;
export type InputField = FieldModel;

/** Every operation of the spec, as the fuzzer uses it. */
export function fuzzOperations(document?: JsonObject): FuzzOperation[] {
  const models = operationModels(document);
  for (const model of models) if (model.fields.length === 0) throw new Error(`${model.operationId}: no request body properties in the spec; nothing to fuzz`);
  return models;
}
