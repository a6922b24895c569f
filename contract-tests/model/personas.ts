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
