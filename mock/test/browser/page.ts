// The page of the browser test (msw.browser.test.ts), bundled by vite: a browser app that mocks its API with
// setupWorker and this package's MSW handlers, exactly as a frontend team would, and exposes `send` so the test can
// drive fetch from inside the page.
import { setupWorker } from 'msw/browser';
import { createMockHandlers } from '../../src/msw.ts';

type Sent = { method: string; path: string; headers: Array<[string, string]>; body: number[] | null };
type Seen = { status: number; headers: Array<[string, string]>; text: string };
type PageGlobals = { location: { origin: string }; mockSend?: (sent: Sent) => Promise<Seen>; mockReady?: Promise<string> };

const page = globalThis as unknown as PageGlobals;
// Same origin, under /mock: the worker answers API calls, and the page's own files are left alone.
// maxDelay: a fault=timeout is held 50 ms (rehearsal.ts's cases), not the default 30 s.
const handlers = createMockHandlers({ baseUrl: `${page.location.origin}/mock`, bodyLimit: 4096, maxDelay: 50 });
const worker = setupWorker(...handlers);

page.mockSend = async (sent) => {
  const init: RequestInit = { method: sent.method, headers: sent.headers };
  if (sent.body) init.body = new Uint8Array(sent.body);
  const response = await fetch(`/mock${sent.path}`, init);
  const headers: Array<[string, string]> = [];
  for (const [name, value] of response.headers) headers.push([name, value]);
  return { status: response.status, headers, text: await response.text() };
};
// The test bundles this page with msw 2 and with msw 3: the one reads onUnhandledRequest, the other onUnhandledFrame.
const unhandled = { onUnhandledRequest: 'bypass', onUnhandledFrame: 'bypass' } as const;
page.mockReady = worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, quiet: true, ...unhandled }).then(() => 'ready');
