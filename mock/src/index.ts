// The package's mock entry point: `import { createMockApp } from 'service-external-api/mock'`.
export { createMockApp, fixturesOf, DEFAULT_BODY_LIMIT, type MockApp, type MockOptions } from './app.ts';
export { createMockCore, type CoreOptions, type MockCore, type MockRequest, type Framed, type SelfCheckMode } from './core.ts';
export { MemorySessions, StoreUnavailable, type Sessions, type SessionSummary, type RequestEntry, type RequestRecord, type Awaitable } from './sessions.ts';
export { Store, type WriteEvent, type StoreOptions } from './store.ts';
export { MemoryScenarios, type Scenarios, type Scenario, type ScenarioRequest } from './scenarios.ts';
export { FAULTS, type Fault } from './faults.ts';
export { SESSION_HEADER, DEFAULT_MAX_SESSIONS } from './sessions.ts';
export { defaultSeed, PERSONAS, type Persona } from './seed.ts';
export type { Seed, State, Fixtures } from './state.ts';
