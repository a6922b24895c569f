// What the proxy knows beyond the spec: which persona a token belongs to (from `--tokens FILE`, or learned from the
// traffic: a token answered with the read-only 403 or a 401 stays so), which records are fixtures, and each persona's
// person id. Tokens are never kept: only keyed digests (HMAC-SHA-256 with a key made at start), so the proxy's memory
// holds nothing a token can be read back from.
import { createHmac, randomBytes } from 'node:crypto';
import { isObject } from '../../spec/lib/openapi.ts';
import { PERSONAS, RECORD_STORIES, TOKEN_FORM, tokenVariable, type Persona, type RecordGroup } from '../io/env.ts';
import { rightsOf } from '../model/personas.ts';
import { decodeId, sameRecord } from '../model/id-model.ts';
import type { Knowledge, Who } from '../model/predict.ts';

/** The `--tokens` file: persona → token, or the mock's `GET /__mock/fixtures` document (tokens, records, people). */
export type Fixtures = {
  tokens: Partial<Record<Persona, string>>;
  records: Record<RecordGroup, Record<string, string>>;
  people: Partial<Record<Persona, string>>;
};

function isPersona(value: string): value is Persona {
  return PERSONAS.some((p) => p === value);
}

/** Reads a `--tokens` file's text; the error is one line that never shows a token. */
export function parseFixtures(text: string): { ok: true; fixtures: Fixtures } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (!isObject(value))
    return { ok: false, error: 'must be a JSON object: {"full_access": "opk_…", "read_only": "opk_…", …} or the mock’s GET /__mock/fixtures' };
  const wrapped = isObject(value['tokens']);
  const tokenObject = wrapped ? value['tokens'] : value;
  if (!isObject(tokenObject)) return { ok: false, error: 'has no tokens' };
  const fixtures: Fixtures = { tokens: {}, records: { projects: {}, goals: {} }, people: {} };
  const where = wrapped ? 'tokens.' : '';
  for (const [persona, token] of Object.entries(tokenObject)) {
    if (!isPersona(persona)) return { ok: false, error: `${where}${persona} is not a persona; the personas are ${PERSONAS.join(', ')}` };
    if (typeof token !== 'string' || !TOKEN_FORM.test(token))
      return { ok: false, error: `${where}${persona} is not an API token (opk_ followed by 43 characters of A-Z a-z 0-9 _ -)` };
    fixtures.tokens[persona] = token;
  }
  if (Object.keys(fixtures.tokens).length === 0) return { ok: false, error: 'names no token' };
  if (!wrapped) return { ok: true, fixtures };
  for (const group of ['projects', 'goals'] as const) {
    const records = value[group];
    if (records === undefined) continue;
    if (!isObject(records)) return { ok: false, error: `${group} must be an object of story → id` };
    const stories: ReadonlyArray<string> = RECORD_STORIES[group];
    for (const [story, id] of Object.entries(records)) {
      if (typeof id !== 'string' || decodeId(id).kind !== 'uuid') return { ok: false, error: `${group}.${story} is not an id the API accepts` };
      if (stories.includes(story)) fixtures.records[group][story] = id;
    }
  }
  const people = value['people'];
  if (isObject(people)) {
    for (const [persona, id] of Object.entries(people)) {
      if (!isPersona(persona)) continue;
      if (typeof id !== 'string' || decodeId(id).kind !== 'uuid') return { ok: false, error: `people.${persona} is not an id the API accepts` };
      fixtures.people[persona] = id;
    }
  }
  return { ok: true, fixtures };
}

/** How many learned tokens are remembered (the oldest is forgotten first). */
const LEARNED_LIMIT = 10_000;

export class TokenKnowledge implements Knowledge {
  readonly #key = randomBytes(32);
  readonly #given = new Map<string, Persona>();
  readonly #learned = new Map<string, Who>();
  readonly #records: Fixtures['records'];
  readonly #people: Fixtures['people'];

  constructor(fixtures?: Fixtures) {
    for (const [persona, token] of Object.entries(fixtures?.tokens ?? {})) if (isPersona(persona) && token) this.#given.set(this.#digest(token), persona);
    this.#records = fixtures?.records ?? { projects: {}, goals: {} };
    this.#people = fixtures?.people ?? {};
  }

  #digest(token: string): string {
    return createHmac('sha256', this.#key).update(token, 'utf8').digest('base64url');
  }

  /** Whether a `--tokens` file gave personas. */
  get hasTokens(): boolean {
    return this.#given.size > 0;
  }

  who(token: string): Who | undefined {
    const digest = this.#digest(token);
    const given = this.#given.get(digest);
    if (given) return { persona: given, source: `${given} in the --tokens file` };
    return this.#learned.get(digest);
  }

  /** Remembers what the server showed about a token not in the file: it is read-only, or it is refused (401). */
  learn(token: string, kind: 'read-only' | 'refused'): void {
    const digest = this.#digest(token);
    // The persona the table gives such a token (personas.ts): the first whose token the service treats so.
    const persona = PERSONAS.find((p) => rightsOf(p).token === kind);
    if (persona === undefined || this.#given.has(digest) || this.#learned.has(digest)) return;
    if (this.#learned.size >= LEARNED_LIMIT) {
      const oldest = this.#learned.keys().next().value;
      if (oldest !== undefined) this.#learned.delete(oldest);
    }
    const source = kind === 'read-only' ? 'the server answered it with the read-only 403 earlier' : 'the server refused it with 401 earlier';
    this.#learned.set(digest, { persona, source });
  }

  /** How many tokens were learned from the traffic. */
  get learned(): number {
    return this.#learned.size;
  }

  forget(): void {
    this.#learned.clear();
  }

  story(group: RecordGroup, id: string): string | undefined {
    return Object.entries(this.#records[group]).find(([, known]) => sameRecord(known, id))?.[0];
  }

  /** The fixture records the file named (the mock's fixtures document), every id of every group. */
  get recordIds(): string[] {
    return Object.values(this.#records).flatMap((group) => Object.values(group));
  }

  /** The person id a persona acts as, when the file gave it (the caller of a write). */
  person(persona: Persona): string | undefined {
    return this.#people[persona];
  }

  /** Whose view of the records a token gives, for the left-alone memory: a keyed digest, never the token. */
  scope(token: string | undefined): string {
    return token === undefined ? '-' : this.#digest(token);
  }

  /** The variable a curl line shows instead of a token: the persona's CONTRACT_…_TOKEN, else $TOKEN. */
  variable(token: string): string {
    const digest = this.#digest(token);
    const given = this.#given.get(digest);
    return given ? tokenVariable(given) : 'TOKEN';
  }
}
