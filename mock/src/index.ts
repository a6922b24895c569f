// The package's mock entry point: `import { createMockApp } from 'service-external-api/mock'`.
export { createMockApp, fixturesOf, DEFAULT_BODY_LIMIT, type MockApp, type MockOptions } from './app.ts';
export { SESSION_HEADER, DEFAULT_MAX_SESSIONS } from './sessions.ts';
export { defaultSeed, PERSONAS, type Persona } from './seed.ts';
export type { Seed, State, Fixtures } from './state.ts';
