// The package's mock entry point: `import { createMockApp } from 'service-external-api/mock'`.
export { createMockApp, fixturesOf, DEFAULT_BODY_LIMIT, type MockApp, type MockOptions } from './server/app.ts';
export { createMockCore, type CoreOptions, type MockCore, type MockRequest, type Framed, type SelfCheckMode } from './core/core.ts';
export {
  MemorySessions,
  StoreUnavailable,
  type Sessions,
  type SessionSummary,
  type RequestEntry,
  type RequestRecord,
  type Awaitable,
} from './storage/sessions.ts';
export { Store, type WriteEvent, type StoreOptions } from './storage/store.ts';
export { MemoryScenarios, type Scenarios, type Scenario, type ScenarioRequest, type TakenScenario } from './answers/scenarios.ts';
export { FAULTS, type Fault } from './answers/faults.ts';
export { SESSION_HEADER, DEFAULT_MAX_SESSIONS } from './storage/sessions.ts';
export { defaultSeed, PERSONAS, type Persona } from './domain/seed.ts';
export type { Seed, State, Fixtures } from './domain/state.ts';
