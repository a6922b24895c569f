// `diff … --traffic FILE.har`: how many recorded exchanges each change of the contract touches. An answer-side change
// touches each recorded answer of its operations that carries the changed field (`#/components/schemas/Goal/
// properties/closed_by`: an object of that schema, by its `__typename` when it has one, holding `closed_by`; a change
// of a whole schema or response: every such answer); a request-side change touches each recorded request of its
// operations the revision would refuse for it (one that sends a removed or narrowed field, one that lacks a field
// made required). The command line hands this to the diff command (cli/cli.ts), which stays below the suite.
import { isObject } from '../../spec/lib/openapi.ts';
import { operationModels } from '../model/profiles.ts';
import { readHar, type RecordedExchange } from './har.ts';

type ChangeLike = { direction: string; operations: string[]; pointer: string; message: string };

const snake = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

function json(bytes: Buffer | undefined): unknown {
  if (bytes === undefined || bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Whether a value holds, at any depth, an object of `schema` (by __typename when it has one) with one of `fields`. */
function carries(value: unknown, schema: string | undefined, fields: ReadonlyArray<string>, depth = 0): boolean {
  if (depth > 64) return false;
  if (Array.isArray(value)) return value.some((v) => carries(v, schema, fields, depth + 1));
  if (!isObject(value)) return false;
  const typename = value['__typename'];
  const fits = schema === undefined || typeof typename !== 'string' || typename === snake(schema);
  if (fits && (fields.length === 0 ? typename === snake(schema ?? '') : fields.some((f) => Object.hasOwn(value, f)))) return true;
  return Object.values(value).some((v) => carries(v, schema, fields, depth + 1));
}

/** The schema and the fields a change names: `…/schemas/S/properties/p` → S, [p]; `…/S/required` → the message's names. */
function named(change: ChangeLike): { schema: string | undefined; fields: string[] } {
  const segments = change.pointer
    .replace(/^#\//, '')
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const schemaAt = segments.indexOf('schemas');
  const schema = schemaAt >= 0 ? segments[schemaAt + 1] : undefined;
  const property = segments.lastIndexOf('properties');
  if (property >= 0 && segments[property + 1] !== undefined) return { schema, fields: [segments[property + 1] ?? ''] };
  if (segments.at(-1) === 'required') return { schema, fields: [...change.message.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '').filter((f) => f !== schema) };
  return { schema, fields: [] };
}

/** The operationId of a recorded exchange, when it calls one. */
function operationOf(exchange: RecordedExchange): string | undefined {
  if (exchange.request.method !== 'POST') return undefined;
  const path = exchange.request.url.split('?')[0] ?? '';
  return operationModels().find((op) => op.path === path)?.operationId;
}

/** The request's parameters as the service reads them: the query merged with a JSON body. */
function parameters(exchange: RecordedExchange): Record<string, unknown> {
  const query = Object.fromEntries(new URLSearchParams(exchange.request.url.split('?')[1] ?? ''));
  const body = json(exchange.request.body);
  return { ...query, ...(isObject(body) ? body : {}) };
}

/** How many of the exchanges one change touches. */
function touched(change: ChangeLike, exchanges: ReadonlyArray<RecordedExchange>): number {
  if (change.direction === 'document' || change.operations.length === 0) return 0;
  const { schema, fields } = named(change);
  const ofOperations = exchanges.filter((e) => {
    const op = operationOf(e);
    return op !== undefined && change.operations.includes(op);
  });
  if (change.direction === 'request') {
    if (fields.length === 0) return ofOperations.length;
    const required = change.pointer.endsWith('/required');
    return ofOperations.filter((e) => {
      const sent = parameters(e);
      return required ? fields.some((f) => !Object.hasOwn(sent, f)) : fields.some((f) => Object.hasOwn(sent, f));
    }).length;
  }
  const status = /\/responses\/(\d{3})\//.exec(change.pointer)?.[1];
  return ofOperations.filter((e) => {
    if (status !== undefined && String(e.received.status) !== status) return false;
    const answer = json(e.received.body);
    if (answer === undefined) return false;
    return schema === undefined && fields.length === 0 ? true : carries(answer, schema, fields);
  }).length;
}

/**
 * The report with `traffic: { exchanges: N }` on each change; `describe`: the message also says it (text and
 * markdown). A recording that cannot be read throws the reader's one-line error.
 */
export function withTraffic<C extends ChangeLike, R extends { changes: C[] }>(report: R, file: string, describe: boolean): R {
  const { exchanges } = readHar(file);
  const changes = report.changes.map((change) => {
    const n = touched(change, exchanges);
    const message =
      describe && change.direction !== 'document' ? `${change.message} Touches ${n} recorded exchange${n === 1 ? '' : 's'} of ${file}.` : change.message;
    return { ...change, message, traffic: { exchanges: n } };
  });
  return { ...report, changes };
}
