// Preloaded with `node --import` (mock/test/msw.contract.test.ts): every HTTP request this process (and each of its
// worker threads) sends to MSW_BASE_URL is answered in-process by the MSW handlers, through msw/node. No port.
import { syncBuiltinESMExports } from 'node:module';
import { setupServer } from 'msw/node';
import { createMockHandlers } from '../src/msw.ts';

const baseUrl = process.env['MSW_BASE_URL'];
if (!baseUrl) throw new Error('msw-preload.ts needs MSW_BASE_URL');
setupServer(...createMockHandlers({ baseUrl })).listen({ onUnhandledRequest: 'bypass' });
// msw patches node:http's CommonJS exports; ES modules that import `request` from 'node:http' see the patch only
// once the builtins' ES exports are synced.
syncBuiltinESMExports();
