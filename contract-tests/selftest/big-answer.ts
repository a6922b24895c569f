// The costliest answer the proxy was fed, as a value: a valid closeGoal 200 (the spec's own example) whose goal has `items`
// checklist entries, each wrong in several fields (about 128 bytes and 6 violations per entry: 6,000 entries are the
// 766 KB answer that froze the proxy). The proxy's and the conformance core's tests and the proxy's bench use it.
import { isObject, loadDocument, resolvePointer } from '../../spec/lib/openapi.ts';

/** The spec's closeGoal 200 example with `items` bad checklist entries, as JSON text. */
export function bigGoalAnswer(items: number): string {
  const example = structuredClone(resolvePointer(loadDocument(), '#/components/examples/CloseGoalResponse/value'));
  if (!isObject(example) || !isObject(example['goal'])) throw new Error('the spec has no CloseGoalResponse example with a goal');
  example['goal']['checklist'] = Array.from({ length: items }, (_, i) => ({
    __typename: 'goal_chek',
    id: i,
    name: 7,
    completed: 'yes',
    index: 'first',
    inserted_at: 'then',
    updated_at: null,
  }));
  return JSON.stringify(example);
}
