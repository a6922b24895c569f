// Contract coverage: what a run (the suite's, or the proxy's live traffic) exercised of each operation, measured
// against what the spec documents: the statuses seen of those documented, each response field of the 200 schema seen
// non-null, only null or never present, the request fields and enum values sent, and the rules that ran or were
// skipped, with why. Counts only (no bodies, no tokens), so a run's coverage is small and can be merged.
import { isObject, loadDocument, pointerTo, responseSchemaPointer } from '../../spec/lib/openapi.ts';
import { operationModels, resolveSchema, type OperationModel } from './profiles.ts';

type RuleTally = { run: number; skipped: Record<string, number> };
export type OperationCoverage = {
  exchanges: number;
  statuses: Record<string, number>;
  /** Response field (`Project.name`, `Person.email`: schema and property) → [non-null, null, absent] over the 200 answers. */
  fields: Record<string, [number, number, number]>;
  requestFields: Record<string, number>;
  enumValues: Record<string, Record<string, number>>;
  rules: Record<string, RuleTally>;
};
/** Per operationId. */
export type CoverageData = Record<string, OperationCoverage>;

/**
 * An object schema of the 200 answer, as the coverage counts it: its name (the component's, `Project`; an inline
 * schema is named after where it is), its properties' schema pointers, and a list's item pointer. Counting per schema
 * and property (`Person.email`) keeps the count finite however the records nest.
 */
type Shape = { name: string; properties: Map<string, string>; items: string | undefined };
const shapes = new Map<string, Shape>();
const COMPONENT = /^#\/components\/schemas\/([^/]+)$/;

/** The shape each pointer asked for leads to (resolving it again for every observed value cost the suite's runs). */
const shapesAsked = new Map<string, Shape>();

function shapeAt(pointer: string, name: string): Shape {
  const asked = shapesAsked.get(pointer);
  if (asked) return asked;
  const document = loadDocument();
  const { pointer: at, schema } = resolveSchema(document, pointer);
  const known = shapes.get(at);
  if (known) {
    shapesAsked.set(pointer, known);
    return known;
  }
  const shape: Shape = { name: COMPONENT.exec(at)?.[1] ?? name, properties: new Map(), items: undefined };
  shapes.set(at, shape);
  shapesAsked.set(pointer, shape);
  const properties = schema['properties'];
  if (isObject(properties)) for (const property of Object.keys(properties)) shape.properties.set(property, `${at}/properties/${pointerTo(property).slice(2)}`);
  if (isObject(schema['items'])) shape.items = `${at}/items`;
  const branches = ['oneOf', 'anyOf', 'allOf'].flatMap((keyword) =>
    Array.isArray(schema[keyword]) ? schema[keyword].map((_: unknown, i: number) => shapeAt(`${at}/${keyword}/${i}`, shape.name)) : [],
  );
  const objects = branches.filter((b) => b.properties.size > 0);
  // A wrapper (`oneOf: [Person, null]`) is counted as the one object it wraps.
  if (shape.properties.size === 0 && objects.length === 1 && objects[0]) shape.name = objects[0].name;
  for (const branch of branches) {
    for (const [property, child] of branch.properties) if (!shape.properties.has(property)) shape.properties.set(property, child);
    shape.items ??= branch.items;
  }
  return shape;
}

function answerPointer(op: OperationModel): string | undefined {
  return responseSchemaPointer(loadDocument(), op.pointer, 200, 'application/json');
}

/** Every documented field of the operation's 200 answer, as `Schema.property`, each schema once. */
export function documentedFields(op: OperationModel): string[] {
  const root = answerPointer(op);
  if (root === undefined) return [];
  const out: string[] = [];
  const seen = new Set<Shape>();
  const visit = (pointer: string, name: string): void => {
    const shape = shapeAt(pointer, name);
    if (seen.has(shape)) return;
    seen.add(shape);
    for (const [property, child] of shape.properties) {
      out.push(`${shape.name}.${property}`);
      visit(child, `${shape.name}.${property}`);
    }
    if (shape.items !== undefined) visit(shape.items, `${shape.name}[]`);
  };
  visit(root, `${op.operationId} 200`);
  return [...new Set(out)];
}

const empty = (): OperationCoverage => ({ exchanges: 0, statuses: {}, fields: {}, requestFields: {}, enumValues: {}, rules: {} });

export class Coverage {
  readonly data: CoverageData = {};

  #of(operationId: string): OperationCoverage {
    const found = this.data[operationId];
    if (found) return found;
    const created = empty();
    this.data[operationId] = created;
    return created;
  }

  /**
   * A status of the operation seen: every exchange's, and on its own the 405 that another method at the operation's
   * path answers (a request the spec does not describe as the operation: no exchange, request or response field).
   */
  status(operationId: string, status: number): void {
    const entry = this.#of(operationId);
    entry.statuses[String(status)] = (entry.statuses[String(status)] ?? 0) + 1;
  }

  /** One exchange: the request body as sent (its fields and enum values), the status, and a 200's JSON body. */
  exchange(operationId: string, requestBody: string | Buffer | undefined, status: number, json: unknown): void {
    const op = operationModels().find((o) => o.operationId === operationId);
    if (!op) return;
    this.status(operationId, status);
    const entry = this.#of(operationId);
    entry.exchanges++;
    let sent: unknown;
    try {
      sent = requestBody === undefined ? undefined : JSON.parse(requestBody.toString());
    } catch {
      sent = undefined;
    }
    if (isObject(sent)) {
      for (const field of op.fields) {
        if (!Object.hasOwn(sent, field.name)) continue;
        entry.requestFields[field.name] = (entry.requestFields[field.name] ?? 0) + 1;
        const value = sent[field.name];
        if (field.enumValues && typeof value === 'string' && field.enumValues.includes(value)) {
          const values = entry.enumValues[field.name] ?? {};
          entry.enumValues[field.name] = values;
          values[value] = (values[value] ?? 0) + 1;
        }
      }
    }
    if (status !== 200 || !isObject(json)) return;
    const root = answerPointer(op);
    if (root === undefined) return;
    const observe = (value: unknown, pointer: string, name: string): void => {
      const shape = shapeAt(pointer, name);
      if (Array.isArray(value)) {
        if (shape.items !== undefined) for (const item of value) observe(item, shape.items, `${shape.name}[]`);
        return;
      }
      if (!isObject(value)) return;
      for (const [property, child] of shape.properties) {
        const key = `${shape.name}.${property}`;
        const tally = entry.fields[key] ?? [0, 0, 0];
        entry.fields[key] = tally;
        if (!Object.hasOwn(value, property)) tally[2]++;
        else if (value[property] === null) tally[1]++;
        else {
          tally[0]++;
          observe(value[property], child, `${shape.name}.${property}`);
        }
      }
    };
    observe(json, root, `${operationId} 200`);
  }

  /** A rule ran on an exchange, or could not (`skipped`: why). */
  rule(operationId: string, rule: string, skipped?: string): void {
    const entry = this.#of(operationId);
    const tally = entry.rules[rule] ?? { run: 0, skipped: {} };
    entry.rules[rule] = tally;
    if (skipped === undefined) tally.run++;
    else tally.skipped[skipped] = (tally.skipped[skipped] ?? 0) + 1;
  }

  /** Adds another run's (or test's) counts. */
  merge(other: CoverageData): void {
    for (const [operationId, from] of Object.entries(other)) {
      const to = this.#of(operationId);
      to.exchanges += from.exchanges;
      for (const [k, n] of Object.entries(from.statuses)) to.statuses[k] = (to.statuses[k] ?? 0) + n;
      for (const [k, n] of Object.entries(from.requestFields)) to.requestFields[k] = (to.requestFields[k] ?? 0) + n;
      for (const [k, t] of Object.entries(from.fields)) {
        const mine = to.fields[k] ?? [0, 0, 0];
        to.fields[k] = [mine[0] + t[0], mine[1] + t[1], mine[2] + t[2]];
      }
      for (const [field, values] of Object.entries(from.enumValues)) {
        const mine = to.enumValues[field] ?? {};
        to.enumValues[field] = mine;
        for (const [v, n] of Object.entries(values)) mine[v] = (mine[v] ?? 0) + n;
      }
      for (const [rule, tally] of Object.entries(from.rules)) {
        const mine = to.rules[rule] ?? { run: 0, skipped: {} };
        to.rules[rule] = mine;
        mine.run += tally.run;
        for (const [why, n] of Object.entries(tally.skipped)) mine.skipped[why] = (mine.skipped[why] ?? 0) + n;
      }
    }
  }

  /** The coverage as documented JSON (contract-tests/README.md "Coverage"), every operation of the spec included. */
  report(): CoverageReport {
    const operations: Record<string, OperationReport> = {};
    for (const op of operationModels()) {
      const seen = this.data[op.operationId] ?? empty();
      const documentedStatuses = [...op.responses.keys()];
      const fields = documentedFields(op);
      const counts = (path: string): [number, number, number] => seen.fields[path] ?? [0, 0, 0];
      const enumValues: OperationReport['enum_values'] = {};
      for (const field of op.fields) {
        if (!field.enumValues) continue;
        const sent = seen.enumValues[field.name] ?? {};
        enumValues[field.name] = { documented: field.enumValues, sent, unsent: field.enumValues.filter((v) => !sent[v]) };
      }
      operations[op.operationId] = {
        exchanges: seen.exchanges,
        statuses: {
          documented: documentedStatuses,
          seen: seen.statuses,
          unseen: documentedStatuses.filter((s) => !seen.statuses[s]),
          undocumented: Object.keys(seen.statuses).filter((s) => !documentedStatuses.includes(s)),
        },
        response_fields: {
          documented: fields.length,
          non_null: fields.filter((f) => counts(f)[0] > 0),
          only_null: fields.filter((f) => counts(f)[0] === 0 && counts(f)[1] > 0),
          never_present: fields.filter((f) => counts(f)[0] === 0 && counts(f)[1] === 0),
          counts: Object.fromEntries(
            fields.filter((f) => seen.fields[f]).map((f) => [f, { non_null: counts(f)[0], null: counts(f)[1], absent: counts(f)[2] }]),
          ),
        },
        request_fields: {
          documented: op.fields.map((f) => f.name),
          sent: seen.requestFields,
          unsent: op.fields.map((f) => f.name).filter((f) => !seen.requestFields[f]),
        },
        enum_values: enumValues,
        rules: seen.rules,
      };
    }
    return { operations };
  }

  /** One line per operation, for the end of a run. */
  lines(): string[] {
    const report = this.report();
    return Object.entries(report.operations).map(([operationId, r]) => {
      const statuses = `statuses ${r.statuses.documented.length - r.statuses.unseen.length}/${r.statuses.documented.length}${r.statuses.unseen.length > 0 ? ` (never ${r.statuses.unseen.join(' ')})` : ''}${r.statuses.undocumented.length > 0 ? `, undocumented seen ${r.statuses.undocumented.join(' ')}` : ''}`;
      const fields = `response fields ${r.response_fields.non_null.length}/${r.response_fields.documented} non-null, ${r.response_fields.only_null.length} only null, ${r.response_fields.never_present.length} never present`;
      const request = `request fields ${r.request_fields.documented.length - r.request_fields.unsent.length}/${r.request_fields.documented.length}`;
      const enums = Object.entries(r.enum_values).map(([field, e]) => `${field} ${e.documented.length - e.unsent.length}/${e.documented.length}`);
      const rules = Object.values(r.rules);
      const run = rules.filter((t) => t.run > 0).length;
      const skippedOnly = Object.entries(r.rules)
        .filter(([, t]) => t.run === 0)
        .map(([name, t]) => `${name}: ${Object.keys(t.skipped).join('; ')}`);
      return `${operationId}: ${r.exchanges} exchanges; ${statuses}; ${fields}; ${request}${enums.length > 0 ? `; values ${enums.join(', ')}` : ''}; rules ${run}/${rules.length} ran${skippedOnly.length > 0 ? ` (never: ${skippedOnly.join(' | ')})` : ''}`;
    });
  }
}

type OperationReport = {
  exchanges: number;
  statuses: { documented: string[]; seen: Record<string, number>; unseen: string[]; undocumented: string[] };
  response_fields: {
    documented: number;
    non_null: string[];
    only_null: string[];
    never_present: string[];
    counts: Record<string, { non_null: number; null: number; absent: number }>;
  };
  request_fields: { documented: string[]; sent: Record<string, number>; unsent: string[] };
  enum_values: Record<string, { documented: string[]; sent: Record<string, number>; unsent: string[] }>;
  rules: Record<string, RuleTally>;
};
export type CoverageReport = { operations: Record<string, OperationReport> };
