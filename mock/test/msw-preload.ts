// Preloaded with `node --import` (mock/test/msw.contract.test.ts): every HTTP request this process (and each of its
// worker threads) sends to MSW_BASE_URL is answered in-process by the MSW handlers, through msw/node. No port.
// MSW_PACKAGE names the msw major to use (msw-majors.ts: `msw`, or `msw3`, the alias of msw 3): every import of `msw`
// and `msw/…` in this thread, mock/src/msw.ts's included, resolves to that package.
import { registerHooks, syncBuiltinESMExports } from 'node:module';

const baseUrl = process.env['MSW_BASE_URL'];
if (!baseUrl) throw new Error('msw-preload.ts needs MSW_BASE_URL');
const name = process.env['MSW_PACKAGE'] || 'msw';
if (name !== 'msw' && name !== 'msw3') throw new Error(`msw-preload.ts: MSW_PACKAGE is msw or msw3, not ${name}`);
if (name !== 'msw') registerHooks({ resolve: (specifier, context, next) => next(specifier.replace(/^msw(?=$|\/)/, name), context) });

const { setupServer } = await import('msw/node');
const { createMockHandlers } = await import('../src/msw.ts');
const handlers = createMockHandlers({ baseUrl });
// The handlers are that package's own (its name is not rewritten): else the hook above did not take.
const chosen: { HttpHandler: abstract new (...args: never[]) => unknown } = await import(name);
if (!handlers.every((handler) => handler instanceof chosen.HttpHandler)) throw new Error(`msw-preload.ts: the handlers are not ${name}'s`);
// msw 2 reads onUnhandledRequest, msw 3 onUnhandledFrame.
setupServer(...handlers).listen({ onUnhandledRequest: 'bypass', ...{ onUnhandledFrame: 'bypass' } });
// msw patches node:http's CommonJS exports; ES modules that import `request` from 'node:http' see the patch only
// once the builtins' ES exports are synced.
syncBuiltinESMExports();
