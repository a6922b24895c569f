// One behaviour, every adapter: the shared table (behaviour.ts: the error table byte for byte, the state
// rules, the controls) run against the Express app over HTTP, the bare node:http listener the CLI serves with, and
// against the MSW handlers through msw/node and fetch, on every msw major the peer range admits (msw-majors.ts). The
// same table runs in Chromium with MSW's service worker in msw.browser.test.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockCore } from '../src/core/core.ts';
import { createHttpListener } from '../src/server/httpListener.ts';
import { behaviourTable, runCase, seedFixtures, type Exchange, type Transport } from './behaviour.ts';
import { send, startMock, type RunningMock, type Sent } from './http.ts';
import { MSW_PACKAGES, mswInNode, type MswInNode } from './msw-majors.ts';

const table = behaviourTable(seedFixtures());

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
}

/** A request for fetch: bytes for a body (a string would get a text/plain Content-Type the case did not send). */
function fetchInit(sent: Sent): RequestInit {
  const headers = new Headers();
  for (const [name, value] of Object.entries(sent.headers ?? {})) for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  const init: RequestInit = { method: sent.method ?? 'POST', headers };
  if (sent.body !== undefined) init.body = typeof sent.body === 'string' ? new TextEncoder().encode(sent.body) : new Uint8Array(sent.body);
  return init;
}

async function exchangeOf(response: Response): Promise<Exchange> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  return { status: response.status, headers, text: await response.text() };
}

describe('Express over HTTP (createMockApp)', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ bodyLimit: 4096 });
  });
  afterAll(() => mock.close());
  const transport: Transport = async (sent) => {
    const received = await mock.send(sent);
    return { status: received.status, headers: flatHeaders(received.headers), text: received.text };
  };
  it.each(table.map((c, i) => [c.name, c, i] as const))('%s', async (_name, behaviour, i) => {
    behaviour.check(await runCase(transport, behaviour, `express-${i}`));
  });
});

describe('node:http with no framework (createHttpListener: what the mock command serves with)', () => {
  const server = createServer(createHttpListener(createMockCore({ bodyLimit: 4096 })));
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const transport: Transport = async (sent) => {
    const received = await send(port, sent);
    return { status: received.status, headers: flatHeaders(received.headers), text: received.text };
  };
  it.each(table.map((c, i) => [c.name, c, i] as const))('%s', async (_name, behaviour, i) => {
    behaviour.check(await runCase(transport, behaviour, `http-${i}`));
  });
});

describe.each(MSW_PACKAGES)('MSW in Node (%s/node setupServer, fetch)', (name) => {
  const BASE = 'http://api.mock.test';
  let msw: MswInNode;
  let handlers: ReturnType<MswInNode['createMockHandlers']>;
  let server: ReturnType<MswInNode['setupServer']> | undefined;
  beforeAll(async () => {
    msw = await mswInNode(name);
    handlers = msw.createMockHandlers({ baseUrl: BASE, bodyLimit: 4096 });
    server = msw.setupServer(...handlers);
    server.listen('error');
  });
  afterAll(() => server?.close());
  const transport: Transport = async (sent) => exchangeOf(await fetch(`${BASE}${sent.path}`, fetchInit(sent)));
  it.each(table.map((c, i) => [c.name, c, i] as const))('%s', async (_name, behaviour, i) => {
    behaviour.check(await runCase(transport, behaviour, `${name}-${i}`));
  });

  it(`the handlers are ${name}'s own (mock/src/msw.ts loaded with its msw import bound to ${name})`, () => {
    expect(handlers[0]).toBeInstanceOf(msw.HttpHandler);
  });

  it("reset(), state() and events() work on the handlers' session without HTTP", async () => {
    const fixtures = await handlers.fixtures();
    const resumed = await fetch(
      `${BASE}/api/external/v1/projects/resume`,
      fetchInit({
        path: '',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.tokens['full_access']}` },
        body: JSON.stringify({ project_id: fixtures.projects['paused'], message: '{"type":"doc","content":[]}' }),
      }),
    );
    expect(resumed.status).toBe(200);
    expect((await handlers.state()).projects[0]?.stored_status).toBe('active');
    expect((await handlers.events()).map((e) => e.activity)).toEqual(['project_resuming']);
    expect((await handlers.requests()).map((r) => r.status)).toEqual([200]);
    await handlers.reset();
    expect((await handlers.state()).projects[0]?.stored_status).toBe('paused');
    expect(await handlers.events()).toEqual([]);
  });
});
