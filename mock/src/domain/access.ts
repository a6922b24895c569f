// Who may do what to which record (Repo.Getter, access_binding.ex): the caller's access level on a record, and the
// not-found-before-forbidden lookup both write operations share. Reads the state; never changes it.
import { ACCESS, permissionsFor } from './rules.ts';
import type { Principal } from './security.ts';
import type { Access, PersonRow, State } from './state.ts';

/** Why an operation did not happen: production's three answers, and `too_large`, the mock's own storage limit. */
export type Failure = { ok: false; reason: 'not_found' | 'forbidden' | 'failed' | 'too_large'; detail: string };
export type Outcome<T> = { ok: true; value: T } | Failure;

export function fail(reason: Failure['reason'], detail: string): Failure {
  return { ok: false, reason, detail };
}

export function personRow(state: State, uuid: string): PersonRow | undefined {
  return state.people.find((p) => p.uuid === uuid);
}

/** The highest binding the person has on a record (Repo.Getter: max over the person's access groups). */
export function accessLevel(state: State, personUuid: string, access: Access, spaceUuid: string): number {
  const person = personRow(state, personUuid);
  if (!person) return ACCESS.none;
  let level = Math.max(access.company, access.people[personUuid] ?? ACCESS.none);
  if (person.company_admin) level = Math.max(level, ACCESS.full);
  for (const space of state.spaces) {
    if (space.uuid === spaceUuid && space.member_uuids.includes(personUuid)) level = Math.max(level, access.space);
  }
  return level;
}

type Guarded = { uuid: string; deleted_at: string | null; access: Access; space_uuid: string };

/**
 * The record the caller may edit: not found (or archived, or invisible: under view access) comes before forbidden
 * (visible without edit access, or a billing read-only company), as in the real handlers.
 */
export function editable<R extends Guarded>(state: State, rows: ReadonlyArray<R>, uuid: string, principal: Principal, what: string): Outcome<R> {
  const record = rows.find((r) => r.uuid === uuid && !r.deleted_at);
  if (!record) return fail('not_found', `no such ${what}`);
  const level = accessLevel(state, principal.personUuid, record.access, record.space_uuid);
  if (level < ACCESS.view) return fail('not_found', `the caller cannot see the ${what}`);
  if (!permissionsFor(level, state.company.billing_read_only).can_edit) return fail('forbidden', `the caller cannot edit the ${what}`);
  return { ok: true, value: record };
}
