// The clock project's setup file (vitest.config.ts): moves this test worker's Date to TEST_FAKE_CLOCK. The project's
// env also puts the same module in NODE_OPTIONS, so the Node.js processes a test starts run on the same fake day.
import './fake-clock.mjs';
