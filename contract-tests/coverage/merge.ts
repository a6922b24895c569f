// Coverage files merged: `contract --coverage`, `drift --coverage` and the proxy's `GET /__proxy/summary` (its
// `coverage`) all carry model/coverage.ts's report shape ({ operations: { <operationId>: … } }); merged, the counts
// add up, what one run saw is seen, and each kind of coverage is a percentage per operation that `--min` holds to a
// minimum. Each file is read as input from outside: bounded, its shape checked, refused in one line.
import { isObject } from '../../spec/lib/openapi.ts';
import type { CoverageReport } from '../model/coverage.ts';

type OperationReport = CoverageReport['operations'][string];

export const COVERAGE_KEYS = ['statuses', 'request-fields', 'enum-values', 'response-fields', 'rules'] as const;
export type CoverageKey = (typeof COVERAGE_KEYS)[number];

export class CoverageInputError extends Error {}

const strings = (value: unknown, where: string): string[] => {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new CoverageInputError(`${where} is not a list of strings`);
  return value.map(String);
};
const counts = (value: unknown, where: string): Record<string, number> => {
  if (!isObject(value)) throw new CoverageInputError(`${where} is not an object of counts`);
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new CoverageInputError(`${where}.${k} is not a count`);
    out[k] = v;
  }
  return out;
};
const count = (value: unknown, where: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new CoverageInputError(`${where} is not a count`);
  return value;
};

/** One operation of a coverage file, checked. */
function operationOf(value: unknown, where: string): OperationReport {
  if (!isObject(value)) throw new CoverageInputError(`${where} is not an object`);
  const { statuses, response_fields: fields, request_fields: request, enum_values: enums, rules } = value;
  if (!isObject(statuses) || !isObject(fields) || !isObject(request) || !isObject(enums) || !isObject(rules))
    throw new CoverageInputError(`${where} lacks statuses, response_fields, request_fields, enum_values or rules`);
  const fieldCounts: OperationReport['response_fields']['counts'] = {};
  if (isObject(fields['counts']))
    for (const [k, v] of Object.entries(fields['counts'])) {
      const c = counts(v, `${where}.response_fields.counts.${k}`);
      fieldCounts[k] = { non_null: c['non_null'] ?? 0, null: c['null'] ?? 0, absent: c['absent'] ?? 0 };
    }
  const enumValues: OperationReport['enum_values'] = {};
  for (const [field, e] of Object.entries(enums)) {
    if (!isObject(e)) throw new CoverageInputError(`${where}.enum_values.${field} is not an object`);
    enumValues[field] = {
      documented: strings(e['documented'], `${where}.enum_values.${field}.documented`),
      sent: counts(e['sent'], `${where}.enum_values.${field}.sent`),
      unsent: [],
    };
  }
  const ruleTallies: OperationReport['rules'] = {};
  for (const [rule, t] of Object.entries(rules)) {
    if (!isObject(t)) throw new CoverageInputError(`${where}.rules.${rule} is not an object`);
    ruleTallies[rule] = { run: count(t['run'], `${where}.rules.${rule}.run`), skipped: counts(t['skipped'] ?? {}, `${where}.rules.${rule}.skipped`) };
  }
  return {
    exchanges: count(value['exchanges'], `${where}.exchanges`),
    statuses: {
      documented: strings(statuses['documented'], `${where}.statuses.documented`),
      seen: counts(statuses['seen'], `${where}.statuses.seen`),
      unseen: [],
      undocumented: [],
    },
    response_fields: {
      documented: count(fields['documented'], `${where}.response_fields.documented`),
      non_null: strings(fields['non_null'], `${where}.response_fields.non_null`),
      only_null: strings(fields['only_null'], `${where}.response_fields.only_null`),
      never_present: strings(fields['never_present'], `${where}.response_fields.never_present`),
      counts: fieldCounts,
    },
    request_fields: {
      documented: strings(request['documented'], `${where}.request_fields.documented`),
      sent: counts(request['sent'], `${where}.request_fields.sent`),
      unsent: [],
    },
    enum_values: enumValues,
    rules: ruleTallies,
  };
}

/** The coverage report in a parsed file: the report itself, or a proxy summary's `coverage`. */
export function reportOf(value: unknown, name: string): CoverageReport {
  // The proxy's summary has its own `operations` (rule tallies) beside `coverage`: the coverage is what counts.
  const inner = isObject(value) ? value['coverage'] : undefined;
  const report = isObject(inner) && isObject(inner['operations']) ? inner : value;
  if (!isObject(report) || !isObject(report['operations']))
    throw new CoverageInputError(
      `${name} is no coverage file: no "operations" (write one with contract --coverage, drift --coverage, or save GET /__proxy/summary)`,
    );
  const operations: CoverageReport['operations'] = {};
  for (const [id, op] of Object.entries(report['operations'])) operations[id] = settle(operationOf(op, `${name}: operations.${id}`));
  return { operations };
}

const add = (a: Record<string, number>, b: Record<string, number>): Record<string, number> => {
  const out = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = (out[k] ?? 0) + n;
  return out;
};
const union = (...lists: ReadonlyArray<ReadonlyArray<string>>): string[] => [...new Set(lists.flat())];

function mergeOperation(a: OperationReport, b: OperationReport): OperationReport {
  const nonNull = union(a.response_fields.non_null, b.response_fields.non_null);
  const onlyNull = union(a.response_fields.only_null, b.response_fields.only_null).filter((f) => !nonNull.includes(f));
  const all = union(nonNull, onlyNull, a.response_fields.never_present, b.response_fields.never_present);
  const fieldCounts = { ...a.response_fields.counts };
  for (const [k, c] of Object.entries(b.response_fields.counts)) {
    const mine = fieldCounts[k] ?? { non_null: 0, null: 0, absent: 0 };
    fieldCounts[k] = { non_null: mine.non_null + c.non_null, null: mine.null + c.null, absent: mine.absent + c.absent };
  }
  const enumValues: OperationReport['enum_values'] = { ...a.enum_values };
  for (const [field, e] of Object.entries(b.enum_values)) {
    const mine = enumValues[field];
    enumValues[field] = mine ? { documented: union(mine.documented, e.documented), sent: add(mine.sent, e.sent), unsent: [] } : e;
  }
  const rules: OperationReport['rules'] = { ...a.rules };
  for (const [rule, t] of Object.entries(b.rules)) {
    const mine = rules[rule];
    rules[rule] = mine ? { run: mine.run + t.run, skipped: add(mine.skipped, t.skipped) } : t;
  }
  return {
    exchanges: a.exchanges + b.exchanges,
    statuses: { documented: union(a.statuses.documented, b.statuses.documented), seen: add(a.statuses.seen, b.statuses.seen), unseen: [], undocumented: [] },
    response_fields: {
      documented: Math.max(a.response_fields.documented, b.response_fields.documented, all.length),
      non_null: nonNull,
      only_null: onlyNull,
      never_present: all.filter((f) => !nonNull.includes(f) && !onlyNull.includes(f)),
      counts: fieldCounts,
    },
    request_fields: {
      documented: union(a.request_fields.documented, b.request_fields.documented),
      sent: add(a.request_fields.sent, b.request_fields.sent),
      unsent: [],
    },
    enum_values: enumValues,
    rules,
  };
}

/** The derived lists (unseen, undocumented, unsent) computed again from the merged counts. */
function settle(op: OperationReport): OperationReport {
  const seen = Object.keys(op.statuses.seen).filter((s) => (op.statuses.seen[s] ?? 0) > 0);
  const enumValues: OperationReport['enum_values'] = {};
  for (const [field, e] of Object.entries(op.enum_values)) enumValues[field] = { ...e, unsent: e.documented.filter((v) => !e.sent[v]) };
  return {
    ...op,
    statuses: {
      ...op.statuses,
      unseen: op.statuses.documented.filter((s) => !seen.includes(s)),
      undocumented: seen.filter((s) => !op.statuses.documented.includes(s)),
    },
    request_fields: { ...op.request_fields, unsent: op.request_fields.documented.filter((f) => !op.request_fields.sent[f]) },
    enum_values: enumValues,
  };
}

export function mergeReports(reports: ReadonlyArray<CoverageReport>): CoverageReport {
  const operations: CoverageReport['operations'] = {};
  for (const report of reports)
    for (const [id, op] of Object.entries(report.operations)) {
      const mine = operations[id];
      operations[id] = mine ? mergeOperation(mine, op) : op;
    }
  for (const [id, op] of Object.entries(operations)) operations[id] = settle(op);
  return { operations };
}

/** Each kind of coverage of an operation as [covered, documented]. */
export function fractions(op: OperationReport): Record<CoverageKey, [number, number]> {
  const enums = Object.values(op.enum_values);
  const rules = Object.values(op.rules);
  return {
    statuses: [op.statuses.documented.length - op.statuses.unseen.length, op.statuses.documented.length],
    'request-fields': [op.request_fields.documented.length - op.request_fields.unsent.length, op.request_fields.documented.length],
    'enum-values': [enums.reduce((n, e) => n + e.documented.length - e.unsent.length, 0), enums.reduce((n, e) => n + e.documented.length, 0)],
    'response-fields': [op.response_fields.non_null.length, op.response_fields.documented],
    rules: [rules.filter((t) => t.run > 0).length, rules.length],
  };
}

/** A fraction as a percentage (nothing documented is all of it). */
export const percent = ([covered, of]: [number, number]): number => (of === 0 ? 100 : Math.floor((1000 * covered) / of) / 10);

/** `--min statuses=90,rules=100` → the minimums; a bad key or value is a CoverageInputError. */
export function parseMinimums(text: string): Partial<Record<CoverageKey, number>> {
  const out: Partial<Record<CoverageKey, number>> = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([a-z-]+)=(\d+(?:\.\d+)?)%?$/.exec(part);
    const key = COVERAGE_KEYS.find((k) => k === match?.[1]);
    if (!match || key === undefined)
      throw new CoverageInputError(`--min takes KEY=PERCENT with KEY one of ${COVERAGE_KEYS.join(', ')}, got "${part.slice(0, 40)}"`);
    const value = Number(match[2]);
    if (value > 100) throw new CoverageInputError(`--min ${key} must be a percentage from 0 to 100, got ${value}`);
    out[key] = value;
  }
  return out;
}
