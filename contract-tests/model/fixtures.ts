// What a target is given to test with: the personas whose tokens it hands the suite, the records by story, and the
// form of a token. Generated from mock/openapi.yaml's Fixtures schema, the names any target's fixtures use (the
// CONTRACT_* variables of io/env.ts, or the mock's GET /__mock/fixtures).
import { GOAL_STORIES, PERSONAS, PROJECT_STORIES } from '../../generated/mock-fixtures.ts';

/** The personas a run can be given tokens of: the fixtures' (generated from mock/openapi.yaml's Fixtures schema). */
export { PERSONAS };
export type Persona = (typeof PERSONAS)[number];

/** The records a run can be given, by fixture group and story (the keys of the mock's GET /__mock/fixtures). */
export const RECORD_STORIES = { projects: PROJECT_STORIES, goals: GOAL_STORIES } as const;
export type RecordGroup = keyof typeof RECORD_STORIES;
export type RecordStory<G extends RecordGroup = RecordGroup> = (typeof RECORD_STORIES)[G][number];

/** Production's token form (RULES.md#decision-5; the spec's security scheme): `opk_` and 43 URL-safe base64 characters. */
export const TOKEN_FORM = /^opk_[A-Za-z0-9_-]{43}$/;
