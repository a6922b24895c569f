// The shared behaviour table (behaviour.ts) in a real browser: Debian's Chromium (playwright-core) opens a page that
// registers MSW's service worker and mocks its API with createMockHandlers, as a frontend app or a Storybook story
// does; every request of the table is a fetch from inside the page, answered by the mock core running there.
// The page is bundled with vite (what vitest brings), once per msw major the peer range admits (msw-majors.ts), with
// that major's worker script. Without /usr/bin/chromium the test is skipped with one line
// on a developer's machine, and fails in CI (CI set).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from '../../docs-site/test/chromium.ts';
import { behaviourTable, runCase, seedFixtures, type Transport } from './behaviour.ts';
import { MSW_PACKAGES, type MswPackage } from './msw-majors.ts';
import { rehearsalCases } from './rehearsal.ts';

const MISSING = chromiumMissing();
const available = MISSING === undefined;

const root = fileURLToPath(new URL('../../', import.meta.url));
const table = behaviourTable(seedFixtures());

/** One msw major's page in Chromium: its bundle, its worker script, its server and browser profile. */
type Opened = { page: Page; errors: string[]; close(): Promise<void> };

/** Serves the page, its bundled scripts and MSW's worker script; nothing else. */
function serve(files: Record<string, { type: string; body: string }>): Promise<Server> {
  const http = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://x').pathname];
    if (!file) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
  });
  return new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve(http)));
}

/** Bundles the page with its `msw` imports bound to `name` (msw-majors.ts), serves it and opens it in Chromium. */
async function open(name: MswPackage): Promise<Opened> {
  const dir = mkdtempSync(join(tmpdir(), 'msw-browser-'));
  const errors: string[] = [];
  let server: Server | undefined;
  let context: BrowserContext | undefined;
  const close = async (): Promise<void> => {
    await context?.close();
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await build({
      root,
      logLevel: 'error',
      configFile: false,
      resolve: { alias: [{ find: /^msw(?=$|\/)/, replacement: name }] },
      build: {
        outDir: join(dir, 'out'),
        emptyOutDir: true,
        lib: { entry: join(root, 'mock/test/browser/page.ts'), formats: ['es'], fileName: () => 'page.js' },
        minify: false,
        target: 'es2022',
      },
    });
    const scripts = Object.fromEntries(
      readdirSync(join(dir, 'out'))
        .filter((f) => f.endsWith('.js'))
        .map((f) => [`/${f}`, { type: 'text/javascript', body: readFileSync(join(dir, 'out', f), 'utf8') }]),
    );
    server = await serve({
      ...scripts,
      '/': {
        type: 'text/html',
        body: '<!doctype html><meta charset="utf-8"><title>msw</title><link rel="icon" href="data:,"><script type="module" src="/page.js"></script>',
      },
      '/mockServiceWorker.js': { type: 'text/javascript', body: readFileSync(join(root, 'node_modules', name, 'lib', 'mockServiceWorker.js'), 'utf8') },
    });
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    // Nothing leaves this machine: anything but the page's own origin is refused.
    await context.route(
      (url) => url.origin !== origin,
      (route) => route.abort(),
    );
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => errors.push(error.message));
    // Chromium logs every 4xx/5xx answer as "Failed to load resource"; the table expects many of those.
    // msw warns ([MSW] …) when the worker script is another version than the library the page bundled.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of'))
        errors.push(`console: ${message.text()}`);
      if (message.type() === 'warning' && message.text().includes('[MSW]')) errors.push(`console: ${message.text()}`);
    });
    await page.goto(`${origin}/`);
    await page
      .waitForFunction(() => 'mockReady' in globalThis, undefined, { timeout: 20_000 })
      .catch(async (error: unknown) => {
        throw new Error(`the page did not start: ${errors.join(' | ') || String(error)}`);
      });
    expect(await page.evaluate(() => (globalThis as unknown as { mockReady: Promise<string> }).mockReady)).toBe('ready');
    return { page, errors, close };
  } catch (error) {
    await close();
    throw error;
  }
}

const transportIn =
  (opened: () => Opened | undefined): Transport =>
  async (sent) => {
    const page = opened()?.page;
    if (!page) throw new Error('no page');
    const headers: Array<[string, string]> = [];
    for (const [name, value] of Object.entries(sent.headers ?? {})) for (const one of Array.isArray(value) ? value : [value]) headers.push([name, one]);
    const body = sent.body === undefined ? null : [...(typeof sent.body === 'string' ? Buffer.from(sent.body, 'utf8') : sent.body)];
    const seen = await page.evaluate(
      (request) =>
        (globalThis as unknown as { mockSend: (s: typeof request) => Promise<{ status: number; headers: Array<[string, string]>; text: string }> }).mockSend(
          request,
        ),
      { method: sent.method ?? 'POST', path: sent.path, headers, body },
    );
    return { status: seen.status, headers: Object.fromEntries(seen.headers), text: seen.text };
  };

if (!available) {
  it(`MSW in Chromium: skipped, ${MISSING ?? ''}`, (ctx) => ctx.skip(MISSING));
} else {
  describe.each(MSW_PACKAGES)('MSW in Chromium (%s/browser setupWorker, the service worker registered)', (name) => {
    let opened: Opened | undefined;
    beforeAll(async () => {
      opened = await open(name);
    }, 120_000);
    afterAll(() => opened?.close());
    const transport = transportIn(() => opened);

    it.each(table.map((c, i) => [c.name, c, i] as const))('%s', async (_name, behaviour, i) => {
      behaviour.check(await runCase(transport, behaviour, `browser-${name}-${i}`));
    });

    it(`the page ran without an uncaught error or an msw warning, and ${name}'s worker controls it`, async () => {
      expect(opened?.errors).toEqual([]);
      expect(
        await opened?.page.evaluate(() =>
          Boolean((globalThis as unknown as { navigator: { serviceWorker: { controller: unknown } } }).navigator.serviceWorker.controller),
        ),
      ).toBe(true);
    });

    // Failure a frontend can rehearse (rehearsal.ts): a fault is a fetch that rejects in the page (HttpResponse.error()),
    // which Chromium logs as a failed load: after the check above that the page logged no error.
    it.each(rehearsalCases(seedFixtures()).map((c, i) => [c.name, c, i] as const))('%s', async (_name, rehearsal, i) => {
      await rehearsal.run(async (sent) => {
        try {
          return await transport(sent);
        } catch (error) {
          return { failed: error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error) };
        }
      }, `browser-${name}-rehearsal-${i}`);
    });
  });
}
