// Production's texts (RULES.md#error-table), read from the spec and never written here: the messages with a variable
// part are templates in the spec (`components/x-messages`, spec/components/messages.yaml) that `messages` fills in; the
// fixed texts (`texts`) are the spec's response examples, or the extension's texts for answers outside the operations.
// The mock answers with them (mock/src/answers/errors.ts), the contract suite expects them
// (contract-tests/model/expected.ts), and contract-tests/selftest/model.test.ts holds each template to its 400 example
// byte for byte.
import { isObject, loadDocument, pointerTo, resolvePointer } from './openapi.ts';

/** Each template the spec holds, with the variable parts it must have. */
const TEMPLATE_PARTS = {
  missingFields: ['names'],
  nullField: ['name'],
  unknownField: ['name'],
  unknownType: ['type'],
  invalidEnum: ['enum', 'value', 'allowed'],
  invalidQueryName: ['segments'],
} as const;
type TemplateName = keyof typeof TEMPLATE_PARTS;

const MESSAGES_POINTER = '#/components/x-messages';
let templates: Record<TemplateName, string> | undefined;

/** The spec's templates, read once and checked: each names exactly its variable parts. */
function template(name: TemplateName): string {
  if (!templates) {
    const found = resolvePointer(loadDocument(), `${MESSAGES_POINTER}/templates`);
    const read = {} as Record<TemplateName, string>;
    for (const key of Object.keys(TEMPLATE_PARTS) as TemplateName[]) {
      const value = isObject(found) ? found[key] : undefined;
      const parts = typeof value === 'string' ? [...value.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort() : [];
      if (typeof value !== 'string' || parts.join() !== [...TEMPLATE_PARTS[key]].sort().join())
        throw new Error(`the spec's ${MESSAGES_POINTER}/templates/${key} is not a text with {${TEMPLATE_PARTS[key].join('}, {')}}; run npm run generate`);
      read[key] = value;
    }
    templates = read;
  }
  return templates[name];
}

/** The template with its variable parts filled in, in one pass: a value that looks like `{name}` stays as it is. */
function fill(name: TemplateName, values: Record<string, string>): string {
  return template(name).replace(/\{(\w+)\}/g, (_, part: string) => values[part] ?? '');
}

/** Production's messages with a variable part, formatted from the spec's templates. */
export const messages = {
  missingFields: (names: ReadonlyArray<string>): string => fill('missingFields', { names: names.join(', ') }),
  nullField: (name: string): string => fill('nullField', { name }),
  unknownField: (name: string): string => fill('unknownField', { name }),
  unknownType: (type: 'string' | 'boolean'): string => fill('unknownType', { type }),
  invalidEnum: (enumName: string, printed: string, allowed: ReadonlyArray<string>): string =>
    fill('invalidEnum', { enum: enumName, value: printed, allowed: allowed.join(', ') }),
  invalidQueryName: (segments: ReadonlyArray<string>): string => fill('invalidQueryName', { segments: segments.join('/') }),
};

/**
 * The exact Content-Type values production sets (RULES.md#media-types): Phoenix's `put_resp_content_type` adds the
 * charset. An answer production sends without one (the plain-text and pre-token errors of RULES.md#error-table) has
 * none at all.
 */
export const contentTypes = { json: 'application/json; charset=utf-8', html: 'text/html; charset=utf-8' } as const;

/** A fixed text the spec holds: the example of a shared response for a media type (`Unauthorized`, `text/plain`). */
export function specText(response: string, mediaType: string): string {
  const value = resolvePointer(loadDocument(), `#/components/responses/${response}/content/${pointerTo(mediaType).slice(2)}/example`);
  if (typeof value !== 'string') throw new Error(`the spec has no text example for ${response} ${mediaType}; run npm run generate`);
  return value;
}

/** A text of the spec's extension for the answers outside the operations (spec/components/messages.yaml). */
function extensionText(name: string): string {
  const value = resolvePointer(loadDocument(), `${MESSAGES_POINTER}/texts/${name}`);
  if (typeof value !== 'string') throw new Error(`the spec has no text ${MESSAGES_POINTER}/texts/${name}; run npm run generate`);
  return value;
}

/** Production's fixed plain-text answers, read from the spec (never copied: a changed text changes every rule using it). */
export const texts = {
  /** The 401 of every refused token (RULES.md#error-21). */
  get unauthorized(): string {
    return specText('Unauthorized', 'text/plain');
  },
  /** The 403 of a read-only token (RULES.md#error-22). */
  get readOnly(): string {
    return specText('Forbidden', 'text/plain');
  },
  /** The router's 404 outside /api/external/v1, as HTML or as the JSON `detail` (RULES.md#error-3). */
  get routeNotFound(): string {
    return extensionText('routeNotFound');
  },
  /** No operation segment after the prefix (RULES.md#error-7). */
  get missingQueryName(): string {
    return extensionText('missingQueryName');
  },
  /** A POST to a name that is no external mutation (RULES.md#error-9). */
  get mutationNotFound(): string {
    return extensionText('mutationNotFound');
  },
  /** A GET or HEAD to a mutation's name (RULES.md#error-10). */
  get queryNotFound(): string {
    return extensionText('queryNotFound');
  },
  /** The Cache-Control of every answer (RULES.md#headers). */
  get cacheControl(): string {
    const value = resolvePointer(loadDocument(), '#/components/headers/CacheControl/schema/const');
    if (typeof value !== 'string') throw new Error('the spec documents no Cache-Control value; run npm run generate');
    return value;
  },
};

let gatewayPages: ReadonlyMap<number, string> | undefined;

/**
 * Never the service's own: the pages a gateway or load balancer in front of it answers in its place (502, 503, 504),
 * by status, from the spec's extension (`x-messages/gateway`). The mock answers them to `Prefer: code=502|503|504`;
 * the operations document none of these statuses.
 */
export function gateway(): ReadonlyMap<number, string> {
  if (!gatewayPages) {
    const found = resolvePointer(loadDocument(), `${MESSAGES_POINTER}/gateway`);
    const pages = new Map<number, string>();
    for (const [status, page] of Object.entries(isObject(found) ? found : {})) {
      if (!/^5\d\d$/.test(status) || typeof page !== 'string')
        throw new Error(`the spec's ${MESSAGES_POINTER}/gateway/${status} is not a 5xx status with its page; run npm run generate`);
      pages.set(Number(status), page);
    }
    if (pages.size === 0) throw new Error(`the spec has no ${MESSAGES_POINTER}/gateway pages; run npm run generate`);
    gatewayPages = pages;
  }
  return gatewayPages;
}
