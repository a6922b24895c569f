// The mock's data: plain JSON rows, so a state can be cloned per session, dumped by GET /__mock/state and loaded
// from a seed file. Rows hold what the state rules read and write; `template` holds the rest of a record's API
// object (milestones, contributors, check-ins …) as the spec's examples give it. Every row type is generated from
// mock/openapi.yaml's State schema (generated/mock-control.ts), which also validates seed files (seedFile.ts).
import type { components as Control } from '../../../generated/mock-control.ts';
import type { components } from '../../../generated/types.ts';
import { GOAL_STORIES, PERSONAS, PROJECT_STORIES } from '../../../generated/mock-fixtures.ts';

export type Schemas = components['schemas'];
export type Project = Schemas['Project'];
export type Goal = Schemas['Goal'];
export type Person = Schemas['Person'];

type Rows = Control['schemas'];

/** Binding levels on one record: company members, space members, anonymous visitors, and named people. */
export type Access = Rows['Access'];
export type PersonRow = Rows['PersonRow'];
export type SpaceRow = Rows['SpaceRow'];
/** A project row; its `template` is the API's Project (the control document says only "an object"). */
export type ProjectRow = Omit<Rows['ProjectRow'], 'template'> & { template: Project };
/** A goal row; its `template` is the API's Goal. */
export type GoalRow = Omit<Rows['GoalRow'], 'template'> & { template: Goal };
export type TokenRow = Rows['TokenRow'];
export type ActivityRow = Rows['ActivityRow'];
export type SubscriptionRow = Rows['SubscriptionRow'];
export type NotificationRow = Rows['NotificationRow'];

/** The store: mock/openapi.yaml's State, with the API's own types for the records' templates. */
export type State = Omit<Rows['State'], 'projects' | 'goals'> & { projects: ProjectRow[]; goals: GoalRow[] };

// The personas of RULES.md#decision-5, each with a token, and the seeded records by story: generated from what
// mock/openapi.yaml's Fixtures schema requires.
export { GOAL_STORIES, PERSONAS, PROJECT_STORIES };
export type Persona = (typeof PERSONAS)[number];

/**
 * What a caller needs to use a state: raw tokens by persona and records by story (uuids in a seed, the ids responses
 * use in GET /__mock/fixtures): mock/openapi.yaml's Fixtures without the session it is read from. The named keys are
 * always there, so `fixtures.tokens.full_access` is a string even under `noUncheckedIndexedAccess`.
 */
export type Fixtures = Omit<Rows['Fixtures'], 'session'>;

export type Seed = { state: State; fixtures: Fixtures };
