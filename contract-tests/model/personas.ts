// What each persona may do: the persona table of mock/openapi.yaml (each Fixtures token's x-persona), generated into
// generated/mock-fixtures.ts, where the mock's seed reads it too: one table, shared without the suite importing the
// mock. Its type holds it to every persona, so a persona added to the fixtures has its row or fails to generate.
// The suite's predictions, its preflight and the validation proxy read it. Source: RULES.md#decision-5 (the tokens)
// and RULES.md#decision-3 (access levels: view ≥ 10, edit ≥ 70).
import { PERSONA_RIGHTS, type PersonaRights } from '../../generated/mock-fixtures.ts';
import type { Persona } from './fixtures.ts';

export type { PersonaRights };

/** The rights of `persona`. */
export function rightsOf(persona: Persona): PersonaRights {
  return PERSONA_RIGHTS[persona];
}

/**
 * Whether every binding of the persona's person shows in an answer (champion, reviewer, contributor, company, space),
 * so its permissions are checked against them exactly (caller.ts). Not for full_access (CONTRACT_TOKEN, the suite's
 * default writer): on a real server that person's full access may come from a group an answer does not show (the
 * company's admins, the space's full-access group), so only the least level its bindings give is checked.
 */
export function bindingsShown(persona: Persona): boolean {
  return persona !== 'full_access';
}
