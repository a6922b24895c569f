// What each persona may do, in one table the compiler holds to every persona (a new persona in the spec's fixtures
// fails to compile here until its row is written): the suite's predictions, its preflight and the validation proxy
// read it. Source: RULES.md#decision-5 (the tokens) and RULES.md#decision-3 (access levels: view ≥ 10, edit ≥ 70).
import type { Persona } from './env.ts';

/**
 * `token`: what the service makes of the token: `valid` (a full-access token of a current person), `read-only`
 * (refused for every write with the read-only 403), `refused` (401: the person is suspended).
 * `records`: what the person may do with every seeded project and goal: `edit`, `view` (403 JSON on a write) or
 * `none` (404: not visible).
 */
export type PersonaRights = { token: 'valid' | 'read-only' | 'refused'; records: 'edit' | 'view' | 'none' };

const PERSONA_RIGHTS = {
  full_access: { token: 'valid', records: 'edit' },
  read_only: { token: 'read-only', records: 'edit' },
  comment_only: { token: 'valid', records: 'view' },
  no_access: { token: 'valid', records: 'none' },
  suspended: { token: 'refused', records: 'none' },
} as const satisfies Record<Persona, PersonaRights>;

/** The rights of `persona`. */
export function rightsOf(persona: Persona): PersonaRights {
  return PERSONA_RIGHTS[persona];
}
