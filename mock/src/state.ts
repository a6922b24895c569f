// The mock's data: plain JSON rows, so a state can be cloned per session, dumped by GET /__mock/state and loaded
// from a seed file. Rows hold what the state rules read and write; `template` holds the rest of a record's API
// object (milestones, contributors, check-ins …) as the spec's examples give it.
import type { components } from '../../generated/types.ts';
import { GOAL_STORIES, PERSONAS, PROJECT_STORIES } from '../../generated/mock-fixtures.ts';

export type Schemas = components['schemas'];
export type Project = Schemas['Project'];
export type Goal = Schemas['Goal'];
export type Person = Schemas['Person'];

/** Binding levels on one record: company members, space members, anonymous visitors, and named people. */
export type Access = { public: Schemas['AccessLevel']; company: Schemas['AccessLevel']; space: Schemas['AccessLevel']; people: Record<string, number> };

type CompanyRow = { uuid: string; id: string; name: string; billing_read_only: boolean; app_origin: string };
export type PersonRow = {
  uuid: string;
  full_name: string;
  title: string | null;
  email: string;
  type: Schemas['PersonType'];
  avatar_url: string | null;
  suspended: boolean;
  /** owners and admins: full access to everything in the company */
  company_admin: boolean;
};
export type SpaceRow = { uuid: string; name: string; member_uuids: string[] };
export type ProjectRow = {
  uuid: string;
  name: string;
  space_uuid: string;
  goal_uuid: string | null;
  champion_uuid: string | null;
  reviewer_uuid: string | null;
  /** The stored status column (paused/active/closed), which the computed `state` reads. */
  stored_status: Schemas['ProjectState'];
  closed_at: string | null;
  success_status: Schemas['SuccessStatus'] | null;
  next_check_in_scheduled_at: string | null;
  inserted_at: string;
  updated_at: string;
  deleted_at: string | null;
  access: Access;
  template: Project;
};
export type GoalRow = {
  uuid: string;
  name: string;
  space_uuid: string;
  champion_uuid: string | null;
  reviewer_uuid: string | null;
  closed_at: string | null;
  closed_by_uuid: string | null;
  success: string | null;
  success_status: Schemas['SuccessStatus'] | null;
  next_update_scheduled_at: string | null;
  inserted_at: string;
  updated_at: string;
  deleted_at: string | null;
  access: Access;
  template: Goal;
};
export type TokenRow = { persona: string; sha256: string; person_uuid: string; read_only: boolean };
export type ActivityRow = {
  id: string;
  action: 'project_resuming' | 'goal_closing';
  author_uuid: string;
  project_uuid: string | null;
  goal_uuid: string | null;
  content: Record<string, unknown>;
  comment_thread_id: string;
  inserted_at: string;
};
type CommentThreadRow = {
  id: string;
  parent_type: 'activity';
  parent_id: string;
  message: Record<string, unknown>;
  subscription_list_id: string;
  inserted_at: string;
};
type SubscriptionListRow = { id: string; parent_type: 'comment_thread'; parent_id: string; send_to_everyone: boolean };
export type SubscriptionRow = { id: string; subscription_list_id: string; person_uuid: string; type: Schemas['SubscriptionType']; canceled: boolean };
export type NotificationRow = {
  id: string;
  person_uuid: string;
  activity_id: string | null;
  action: string;
  project_uuid: string | null;
  goal_uuid: string | null;
  read: boolean;
  inserted_at: string;
};

export type State = {
  company: CompanyRow;
  people: PersonRow[];
  spaces: SpaceRow[];
  projects: ProjectRow[];
  goals: GoalRow[];
  tokens: TokenRow[];
  activities: ActivityRow[];
  comment_threads: CommentThreadRow[];
  subscription_lists: SubscriptionListRow[];
  subscriptions: SubscriptionRow[];
  notifications: NotificationRow[];
};

// The personas of RULES.md#decision-5, each with a token, and the seeded records by story: generated from what
// mock/openapi.yaml's Fixtures schema requires.
export { GOAL_STORIES, PERSONAS, PROJECT_STORIES };
export type Persona = (typeof PERSONAS)[number];

/** Values by the names every seed has, and by whatever other names a seed file adds. */
type Named<K extends string> = Record<K, string> & Record<string, string>;

/**
 * What a caller needs to use a state: raw tokens by persona and records by story (uuids in a seed, the ids responses
 * use in GET /__mock/fixtures). The named keys are always there, so `fixtures.tokens.full_access` is a string even
 * under `noUncheckedIndexedAccess`.
 */
export type Fixtures = {
  tokens: Named<Persona>;
  projects: Named<(typeof PROJECT_STORIES)[number]>;
  goals: Named<(typeof GOAL_STORIES)[number]>;
  people: Record<string, string>;
};

export type Seed = { state: State; fixtures: Fixtures };
