// The contract suite's configuration: the one module that validates the CONTRACT_* variables (readConfig, handed
// `process.env` by run.ts). Two others read `process.env` themselves, for a file to write when the validated
// configuration is not at hand: run.ts (CONTRACT_REPORT, for the JUnit of a run that could not start) and
// reporter.ts (CONTRACT_COVERAGE, in the vitest worker). Every variable is validated at start; a missing or malformed
// one is a ConfigError whose message is one line naming it (run.ts exits 2 with it).
import { pointerTo } from '../../spec/lib/openapi.ts';
import { specValidator } from '../../spec/lib/ajv.ts';
import { PERSONA_RIGHTS } from '../../generated/mock-fixtures.ts';
import { PERSONAS, RECORD_STORIES, TOKEN_FORM, type Persona, type RecordGroup, type RecordStory } from '../model/fixtures.ts';

export { PERSONAS, RECORD_STORIES, TOKEN_FORM, type Persona, type RecordGroup, type RecordStory };

export const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_NUM_RUNS = 20;

/** `tokens.full_access` → CONTRACT_TOKEN, `tokens.read_only` → CONTRACT_READ_ONLY_TOKEN. */
export function tokenVariable(persona: Persona): string {
  return persona === 'full_access' ? 'CONTRACT_TOKEN' : `CONTRACT_${persona.toUpperCase()}_TOKEN`;
}

/**
 * `people.full_access` → CONTRACT_PERSON_ID (the person the full-access token acts as), `people.X` →
 * CONTRACT_X_PERSON_ID: the same rule as the tokens. Only the writers' people are read (WRITERS): the suite writes as
 * each persona production lets write.
 */
export function personVariable(persona: Persona): string {
  return persona === 'full_access' ? 'CONTRACT_PERSON_ID' : `CONTRACT_${persona.toUpperCase()}_PERSON_ID`;
}

/** The personas production lets write (a valid token, edit rights on the records): the suite writes as each. */
export const WRITERS: ReadonlyArray<Persona> = PERSONAS.filter((p) => PERSONA_RIGHTS[p].token === 'valid' && PERSONA_RIGHTS[p].records === 'edit');

/** `projects.paused` → CONTRACT_PAUSED_PROJECT_ID, `goals.open` → CONTRACT_OPEN_GOAL_ID. */
export function recordVariable(group: RecordGroup, story: string): string {
  return `CONTRACT_${story.toUpperCase()}_${group.replace(/s$/, '').toUpperCase()}_ID`;
}

export type RecordIds = { [G in RecordGroup]: Partial<Record<RecordStory<G>, string>> };

export type ContractConfig = {
  /** The origin (and any mount path) the spec's paths are appended to, without a trailing slash. */
  baseUrl: string;
  /** Whether the host is this machine (127.0.0.0/8, ::1, localhost). */
  loopback: boolean;
  timeoutMs: number;
  allowWrites: boolean;
  /** Where the JUnit XML goes, if anywhere. */
  report: string | undefined;
  /** Where to write the run's coverage as JSON (CONTRACT_COVERAGE or --coverage). */
  coverage: string | undefined;
  /** The fast-check seed (CONTRACT_SEED), to replay a property failure. */
  seed: number | undefined;
  /** Generated cases per property. */
  numRuns: number;
  tokens: Partial<Record<Persona, string>>;
  records: RecordIds;
  /** The person id the full-access token acts as (CONTRACT_PERSON_ID), for the rules on who a write is recorded against. */
  person: string | undefined;
  /** Each writer's person id (CONTRACT_PERSON_ID, CONTRACT_EDITOR_PERSON_ID …), for the caller's rules. */
  people: Partial<Record<Persona, string>>;
  /** CONTRACT_STRICT=1 (or `--strict`): a skipped test fails the run. */
  strict: boolean;
};

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const SETTINGS = [
  'CONTRACT_BASE_URL',
  'CONTRACT_ALLOW_WRITES',
  'CONTRACT_REPORT',
  'CONTRACT_COVERAGE',
  'CONTRACT_TIMEOUT_MS',
  'CONTRACT_SEED',
  'CONTRACT_NUM_RUNS',
  'CONTRACT_STRICT',
] as const;

/** Every variable the suite reads, for the runbook and for catching typos. */
export function knownVariables(): string[] {
  const records = Object.entries(RECORD_STORIES).flatMap(([group, stories]) =>
    stories.map((story) => recordVariable(isGroup(group) ? group : 'projects', story)),
  );
  return [...SETTINGS, ...PERSONAS.map(tokenVariable), ...WRITERS.map(personVariable), ...records];
}

function isGroup(value: string): value is RecordGroup {
  return Object.hasOwn(RECORD_STORIES, value);
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min((row[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number between ${min} and ${max}, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function optional(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  if (raw.trim() === '') throw new ConfigError(name, 'is set but empty; unset it or give a value');
  return raw;
}

/** Ids are checked against the spec's own input-id schema. */
function isInputId(value: string): boolean {
  return specValidator().validate(pointerTo('components', 'schemas', 'InputId'), value).length === 0;
}

function readBaseUrl(env: Env): { baseUrl: string; loopback: boolean; host: string } {
  const raw = env['CONTRACT_BASE_URL'];
  if (raw === undefined || raw.trim() === '')
    throw new ConfigError(
      'CONTRACT_BASE_URL',
      'is not set; give the origin of the server to test: --base-url http://127.0.0.1:4010 or CONTRACT_BASE_URL=http://127.0.0.1:4010 (there is no default)',
    );
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError('CONTRACT_BASE_URL', `is not a URL: "${raw}" (expected e.g. https://staging.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('CONTRACT_BASE_URL', `must start with http:// or https://, got "${raw}"`);
  if (url.username || url.password)
    throw new ConfigError('CONTRACT_BASE_URL', 'must not carry credentials; pass tokens in CONTRACT_TOKEN and the other *_TOKEN variables');
  if (url.search || url.hash) throw new ConfigError('CONTRACT_BASE_URL', `must not have a query or fragment, got "${raw}"`);
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/api\/external(\/v\d+)?$/.test(path))
    throw new ConfigError(
      'CONTRACT_BASE_URL',
      `must be the origin without the API prefix (the suite adds /api/external/v1/…): use ${url.origin}${path.replace(/\/api\/external(\/v\d+)?$/, '')}`,
    );
  return { baseUrl: `${url.origin}${path}`, loopback: isLoopback(url.hostname), host: url.host };
}

/** Reads and validates the configuration; throws a ConfigError (one line, naming the variable) on the first problem. */
export function readConfig(env: Env = process.env): ContractConfig {
  const known = knownVariables();
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('CONTRACT_') || known.includes(name) || env[name] === undefined) continue;
    const nearest = known.map((k) => ({ k, d: distance(name, k) })).sort((a, b) => a.d - b.d)[0];
    throw new ConfigError(
      name,
      `is not a variable of the contract suite${nearest && nearest.d <= 4 ? ` (did you mean ${nearest.k}?)` : ''}; see contract-tests/README.md`,
    );
  }

  const { baseUrl, loopback, host } = readBaseUrl(env);
  const timeoutMs = integer(env, 'CONTRACT_TIMEOUT_MS', DEFAULT_TIMEOUT_MS, 100, 120_000);
  const numRuns = integer(env, 'CONTRACT_NUM_RUNS', DEFAULT_NUM_RUNS, 1, 10_000);
  const seedText = optional(env, 'CONTRACT_SEED');
  if (seedText !== undefined && !/^-?\d+$/.test(seedText.trim()))
    throw new ConfigError('CONTRACT_SEED', `must be an integer (the seed a failed property printed), got "${seedText}"`);
  const seed = seedText === undefined ? undefined : Number(seedText.trim());
  if (seed !== undefined && !Number.isSafeInteger(seed)) throw new ConfigError('CONTRACT_SEED', `is out of range: ${seedText}`);

  const allowWrites = flag(env, 'CONTRACT_ALLOW_WRITES');
  const strict = flag(env, 'CONTRACT_STRICT');
  if (!loopback && !allowWrites) {
    throw new ConfigError(
      'CONTRACT_ALLOW_WRITES',
      `the suite resumes projects and closes goals on ${host}, which is not this machine; set CONTRACT_ALLOW_WRITES=1 to allow writes there`,
    );
  }

  const report = optional(env, 'CONTRACT_REPORT');
  const coverage = optional(env, 'CONTRACT_COVERAGE');

  const tokens: Partial<Record<Persona, string>> = {};
  for (const persona of PERSONAS) {
    const name = tokenVariable(persona);
    const value = optional(env, name);
    if (value === undefined) continue;
    const token = value.trim();
    if (/[\s\x00-\x1f\x7f]/.test(token) || token.length > 1024)
      throw new ConfigError(name, 'must be one API token (no spaces or control characters; not "Bearer …", just the token)');
    // Never echo the value: it may be a real secret in the wrong variable.
    if (!TOKEN_FORM.test(token))
      throw new ConfigError(
        name,
        `is not an API token: tokens are opk_ followed by 43 characters of A-Z a-z 0-9 _ - (47 in all); the value given has ${token.length} characters${token.startsWith('opk_') ? '' : ' and does not start with opk_'}`,
      );
    tokens[persona] = token;
  }

  const records: RecordIds = { projects: {}, goals: {} };
  for (const story of RECORD_STORIES.projects) {
    const value = readId(env, recordVariable('projects', story));
    if (value !== undefined) records.projects[story] = value;
  }
  for (const story of RECORD_STORIES.goals) {
    const value = readId(env, recordVariable('goals', story));
    if (value !== undefined) records.goals[story] = value;
  }

  const person = readId(env, personVariable('full_access'));
  const people: Partial<Record<Persona, string>> = {};
  for (const writer of WRITERS) {
    const id = writer === 'full_access' ? person : readId(env, personVariable(writer));
    if (id !== undefined) people[writer] = id;
  }

  return { baseUrl, loopback, timeoutMs, allowWrites, report, coverage, seed, numRuns, tokens, records, person, people, strict };
}

/** A 0/1 switch (also true/false). */
function flag(env: Env, name: string): boolean {
  const text = optional(env, name);
  if (text !== undefined && !['0', '1', 'true', 'false'].includes(text.trim())) throw new ConfigError(name, `must be 1 or 0, got "${text}"`);
  return text !== undefined && ['1', 'true'].includes(text.trim());
}

function readId(env: Env, name: string): string | undefined {
  const value = optional(env, name)?.trim();
  if (value !== undefined && !isInputId(value))
    throw new ConfigError(name, `"${value}" is not an id the API accepts (a slug id like name-FjO1YSsAoCpZz3SMRvlSvK, a bare short id, or a UUID)`);
  return value;
}
