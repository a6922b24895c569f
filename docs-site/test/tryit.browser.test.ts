// The try-it panels of the reference page, in Chromium, from the page the compiled `service-external-api docs --out`
// writes, opened from disk with every request that leaves the file refused: each operation with each persona answers as
// production does (the behaviour the mock's own tests hold it to), state carries over until Reset, the keyboard
// reaches and uses every control, nothing is logged as an error. Screenshots of one try-it per operation are written
// to docs-site/dist/ (not committed); the time until the operation list shows is written beside them.
import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationModels, responseExamples } from '../../spec/lib/operations.ts';
import { PERSONAS } from '../../mock/src/domain/state.ts';
import * as errors from '../../mock/src/answers/errors.ts';
import { createMockCore } from '../../mock/src/core/core.ts';
import { createHttpListener } from '../../mock/src/server/httpListener.ts';
import { gateway } from '../../spec/lib/messages.ts';
import { productionJson } from '../../spec/lib/number-form.ts';
import { chromiumMissing, openOffline } from './chromium.ts';

const missing = chromiumMissing();
const TIMEOUT = 90_000;
const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'tryit-'));
const pageFile = join(work, 'reference', 'api.html');
const shots = join(root, 'docs-site', 'dist');

/** Production's plain-text bodies, from the mock's one error catalog. */
const UNAUTHORIZED = String(errors.UNAUTHORIZED.body);
const READ_ONLY = String(errors.READ_ONLY_TOKEN.body);
const NOT_FOUND = JSON.stringify(errors.NOT_FOUND.body);

let context: BrowserContext;
let page: Page;
let consoleErrors: string[] = [];
let outsideRequests: string[] = [];
let listVisibleMs = Number.NaN;

beforeAll(async () => {
  if (missing) return;
  // The page as a consumer writes it: the compiled package's docs command, which copies the page `npm run build`
  // made (npm test builds before it runs the tests).
  const written = spawnSync(process.execPath, [join(root, 'dist', 'cli', 'bin.cjs'), 'docs', '--out', pageFile], { cwd: root, encoding: 'utf8' });
  if (written.status !== 0) throw new Error(`service-external-api docs --out failed:\n${written.stdout}${written.stderr}`);
  const offline = await openOffline(join(work, 'profile'), 15_000);
  ({ context, page } = offline);
  consoleErrors = offline.consoleErrors;
  outsideRequests = offline.outsideRequests;
  const started = Date.now();
  await page.goto(pathToFileURL(pageFile).href);
  // The operation list: the sidebar's entries for the operations' tags.
  await page.locator('[data-component-name="Menu/Menu"]').getByRole('link', { name: 'Projects', exact: true }).waitFor({ state: 'visible' });
  listVisibleMs = Date.now() - started;
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, 'tryit-load.json'), `${JSON.stringify({ operation_list_visible_ms: listVisibleMs }, null, 2)}\n`);
}, TIMEOUT);

afterAll(async () => {
  await context?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A loopback server for one test, on a free port. */
async function listenOnce(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not a TCP server');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends what the panel holds, as `persona`, with `body` when given; the status and the body as sent. */
async function send(
  panel: Locator,
  persona: string,
  body?: (value: Record<string, unknown>) => Record<string, unknown>,
): Promise<{ status: number; text: string }> {
  await panel.locator('select[data-try-persona]').selectOption(persona);
  if (body) {
    const textarea = panel.locator('textarea[data-try-body]');
    const parsed: unknown = JSON.parse(await textarea.inputValue());
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the body is not a JSON object');
    await textarea.fill(JSON.stringify(body(parsed as Record<string, unknown>)));
  }
  // A fresh answer each time: the previous one is gone before the next arrives.
  await panel.evaluate((node) => node.querySelector('[data-try-status]')?.remove());
  await panel.locator('button[data-try-send]').click();
  const status = panel.locator('[data-try-status]');
  await status.waitFor();
  return { status: Number(await status.textContent()), text: (await panel.locator('[data-try-response]').textContent()) ?? '' };
}

async function reset(panel: Locator): Promise<void> {
  await panel.locator('button[data-try-reset]').click();
  await panel.locator('[data-try-note]').waitFor();
}

async function eventCount(panel: Locator): Promise<number> {
  await panel.locator('button[data-try-events]').click();
  const shown = panel.locator('[data-try-events-out]');
  await shown.waitFor();
  const parsed: unknown = JSON.parse((await shown.textContent()) ?? '');
  const list = typeof parsed === 'object' && parsed !== null && 'events' in parsed ? parsed.events : undefined;
  return Array.isArray(list) ? list.length : -1;
}

describe.skipIf(missing)(
  missing ? `try it in the reference page — skipped: ${missing}` : 'try it in the reference page (from docs --out, opened from disk)',
  { timeout: TIMEOUT },
  () => {
    for (const model of operationModels()) {
      describe(model.operationId, () => {
        const panel = (): Locator => page.locator(`[data-try-operation="${model.operationId}"]`);
        const idField = model.fields.find((field) => field.kind === 'id' && field.required)?.name ?? '';

        it('offers every persona and no token, and a body from the spec’s first named example', async () => {
          expect(
            await panel()
              .locator('select[data-try-persona] option')
              .evaluateAll((options) => options.map((o) => o.getAttribute('value') ?? '')),
          ).toEqual([...PERSONAS, 'none']);
          expect(JSON.parse(await panel().locator('textarea[data-try-body]').inputValue())).toEqual(model.examples[0]?.value);
        });

        it('full access: 200, and the state moves (an event is journalled per write, kept across calls)', async () => {
          await reset(panel());
          expect(await eventCount(panel())).toBe(0);
          const first = await send(panel(), 'full_access');
          expect(first.status, first.text).toBe(200);
          const record: unknown = JSON.parse(first.text);
          expect(typeof record === 'object' && record !== null && Object.keys(record)).toEqual([model.operationId === 'resumeProject' ? 'project' : 'goal']);
          if (model.operationId === 'resumeProject') expect(first.text).toContain('"state":"active"');
          else expect(first.text).toContain('"is_closed":true');
          const second = await send(panel(), 'full_access');
          expect(second.status).toBe(200);
          expect(await eventCount(panel())).toBe(2);
          await panel().screenshot({ path: join(shots, `tryit-${model.operationId}.png`) });
        });

        it('read only: 403 with production’s plain text; no token: 401; a malformed id: 404 before the token', async () => {
          await reset(panel());
          expect(await send(panel(), 'read_only')).toEqual({ status: 403, text: READ_ONLY });
          expect(await send(panel(), 'none')).toEqual({ status: 401, text: UNAUTHORIZED });
          expect(await send(panel(), 'none', (body) => ({ ...body, [idField]: 'not an id!' }))).toEqual({ status: 404, text: NOT_FOUND });
          expect(await eventCount(panel())).toBe(0);
        });

        it('comment only: 403 JSON (can see, cannot edit); no access: 404 (cannot see); suspended: 401', async () => {
          await reset(panel());
          expect(await send(panel(), 'comment_only')).toEqual({ status: 403, text: JSON.stringify(errors.FORBIDDEN.body) });
          expect(await send(panel(), 'no_access')).toEqual({ status: 404, text: NOT_FOUND });
          expect(await send(panel(), 'suspended')).toEqual({ status: 401, text: UNAUTHORIZED });
        });

        it('Simulate: each documented status answers the spec’s own example, a network error and a timeout answer nothing; none changes the state', async () => {
          await reset(panel());
          const simulate = panel().locator('select[data-try-simulate]');
          const statuses = [...model.responses.keys()];
          expect(await simulate.locator('option').evaluateAll((options) => options.map((o) => o.getAttribute('value') ?? ''))).toEqual([
            '',
            'fault=network-error',
            'fault=timeout',
            ...statuses.map((status) => `code=${status}`),
            'code=502',
            'code=503',
            'code=504',
          ]);
          // The mock-only gateway statuses: a gateway's page, as text/html, marked as rehearsed.
          for (const [status, page] of gateway()) {
            await simulate.selectOption(`code=${status}`);
            expect(await send(panel(), 'full_access'), String(status)).toEqual({ status, text: page });
            expect(await panel().locator('[data-try-headers]').textContent()).toContain('x-mock-rehearsal: prefer');
            expect(await panel().locator('[data-try-headers]').textContent()).toContain('content-type: text/html; charset=utf-8');
          }
          for (const status of statuses) {
            const example = responseExamples(model).find((e) => e.status === Number(status));
            await simulate.selectOption(`code=${status}`);
            const answered = await send(panel(), 'full_access');
            expect(answered, status).toEqual({
              status: Number(status),
              // Written as production writes numbers (spec/lib/number-form.ts), as every answer of the mock is.
              text: typeof example?.value === 'string' ? example.value : productionJson(example?.value),
            });
          }
          for (const [fault, shown] of [
            ['fault=network-error', 'network error'],
            ['fault=timeout', 'timeout'],
          ] as const) {
            await simulate.selectOption(fault);
            await panel().evaluate((node) => node.querySelector('[data-try-status]')?.remove());
            await panel().locator('button[data-try-send]').click();
            // While the in-page mock holds a timeout, the panel says what is happening.
            if (fault === 'fault=timeout')
              expect(await panel().locator('[data-try-waiting]').textContent()).toBe(
                'Waiting: the mock holds this request for 3 s (a mock server holds it until its --max-delay), then drops the connection, as asked (fault=timeout). No answer will come.',
              );
            await expect.poll(() => panel().locator('[data-try-status]').count()).toBe(1);
            expect(await panel().locator('[data-try-note]').textContent()).toMatch(
              fault === 'fault=timeout'
                ? /^No HTTP answer: the mock held the request as asked \(fault=timeout;/
                : /^No HTTP answer: the mock dropped the connection as asked \(fault=network-error\)/,
            );
            expect(await panel().locator('[data-try-status]').textContent()).toBe(shown);
            expect(await panel().locator('[data-try-response]').count()).toBe(0);
            expect(await panel().locator('[data-try-curl]').textContent()).toContain(`-H 'Prefer: ${fault}'`);
          }
          await simulate.selectOption('');
          expect(await eventCount(panel())).toBe(0);
        });

        it('Reset returns every record to the seed', async () => {
          await reset(panel());
          await send(panel(), 'full_access');
          expect(await eventCount(panel())).toBe(1);
          await reset(panel());
          expect(await eventCount(panel())).toBe(0);
        });
      });
    }

    it('every control has a label, and the keyboard alone reaches and uses them in order', async () => {
      const first = page.locator('[data-try-operation]').first();
      const controls = first.locator('select, textarea, input, button');
      const ids = await controls.evaluateAll((nodes) => nodes.map((node) => node.id || node.textContent || ''));
      for (const id of ids.filter((value) => value.startsWith('try-'))) expect(await page.locator(`label[for="${id}"]`).count(), id).toBe(1);
      // From the top of the page: the first Tab reaches "Skip to Try it", Enter lands on the first panel's persona
      // select; Tab goes on to Send in document order, and Enter on Send answers.
      await page.reload();
      await page.locator('[data-try-skip]').waitFor({ state: 'attached' });
      await page.keyboard.press('Tab');
      expect(await page.locator('[data-try-skip]').evaluate((node) => node === node.ownerDocument.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      const order: string[] = [];
      for (let i = 0; i < 12; i++) {
        order.push(
          await page.evaluate(() => {
            const active = (globalThis as unknown as { document: { activeElement: { id: string; textContent: string | null } | null } }).document.activeElement;
            return active?.id || active?.textContent || '';
          }),
        );
        if (order.at(-1) === 'Send') break;
        await page.keyboard.press('Tab');
      }
      expect(order[0]).toMatch(/-persona$/);
      expect(order).toEqual(expect.arrayContaining([expect.stringMatching(/-body$/), 'Send']));
      await first.evaluate((node) => node.querySelector('[data-try-status]')?.remove());
      await page.keyboard.press('Enter');
      await first.locator('[data-try-status]').waitFor();
      expect(Number(await first.locator('[data-try-status]').textContent())).toBeGreaterThanOrEqual(200);
    });

    it('sends to a server with fetch when asked, and says in one line when the browser cannot', async () => {
      const first = page.locator('[data-try-operation]').first();
      await first.locator('input[data-try-remote]').check();
      // A closed loopback port: nothing answers, and the page is refused anything but its own file.
      await first.locator('input[data-try-base-url]').fill('http://127.0.0.1:9');
      await first.locator('button[data-try-send]').click();
      await expect
        .poll(() => first.locator('[data-try-note]').textContent())
        .toMatch(/^The browser did not send it, or got no answer: http:\/\/127\.0\.0\.1:9\/api\/external\/v1\/.* \(CORS\), or cannot be reached/);
      await first.locator('input[data-try-remote]').uncheck();
    });

    it('sent to a mock server with a fault, says what the mock did (never CORS), and while a timeout is held, that it waits; a gateway 503 is its page', async () => {
      const server = createServer(createHttpListener(createMockCore({ maxDelay: 1500 })));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      const address = server.address();
      const port = address !== null && typeof address === 'object' ? address.port : 0;
      await page.route(`http://127.0.0.1:${port}/**`, (route) => route.continue());
      const first = page.locator('[data-try-operation]').first();
      const simulate = first.locator('select[data-try-simulate]');
      const sendNow = async (): Promise<void> => {
        await first.evaluate((node) => node.querySelector('[data-try-status]')?.remove());
        await first.locator('button[data-try-send]').click();
      };
      try {
        await first.locator('input[data-try-remote]').check();
        await first.locator('input[data-try-base-url]').fill(`http://127.0.0.1:${port}`);
        await simulate.selectOption('fault=network-error');
        await sendNow();
        await first.locator('[data-try-status]').waitFor();
        expect(await first.locator('[data-try-status]').textContent()).toBe('network error');
        expect(await first.locator('[data-try-note]').textContent()).toMatch(
          /^No HTTP answer: the mock dropped the connection as asked \(fault=network-error\); fetch reports it as a network error/,
        );
        await simulate.selectOption('fault=timeout');
        await sendNow();
        await expect
          .poll(() => first.locator('[data-try-waiting]').textContent())
          .toBe(
            'Waiting: the mock holds this request until its --max-delay passes (30 s unless started with another), then drops the connection, as asked (fault=timeout). No answer will come.',
          );
        await first.locator('[data-try-status]').waitFor({ timeout: 10_000 });
        expect(await first.locator('[data-try-status]').textContent()).toBe('timeout');
        expect(await first.locator('[data-try-note]').textContent()).toMatch(
          /^No HTTP answer: the mock held the request until its --max-delay passed and then dropped the connection, as asked \(fault=timeout\)/,
        );
        await simulate.selectOption('code=503');
        await sendNow();
        await first.locator('[data-try-status]').waitFor();
        expect(await first.locator('[data-try-status]').textContent()).toBe('503');
        expect(await first.locator('[data-try-response]').textContent()).toBe(gateway().get(503));
        expect(await first.locator('[data-try-headers]').textContent()).toContain('x-mock-rehearsal: prefer');
        // Chromium logs every non-2xx answer to a fetch as a console error: this one was asked for.
        const asked = consoleErrors.findIndex((text) => text.includes('status of 503 (Service Unavailable)'));
        if (asked >= 0) consoleErrors.splice(asked, 1);
      } finally {
        await simulate.selectOption('');
        await first.locator('input[data-try-remote]').uncheck();
        await page.unroute(`http://127.0.0.1:${port}/**`);
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('shows a redirect as the answer and never follows it: nothing reaches the other server', async () => {
      // Two loopback servers: the one named answers every POST with 307 to the other, which records what reaches it.
      const reached: string[] = [];
      const cors = {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': 'content-type, authorization',
        'access-control-allow-methods': 'POST',
      };
      const other = await listenOnce((req, res) => {
        reached.push(`${req.method ?? ''} ${req.url ?? ''}`);
        req.resume();
        res.writeHead(200, { ...cors, 'content-type': 'application/json' });
        res.end('{"answered_by":"the other server"}');
      });
      const named = await listenOnce((req, res) => {
        req.resume();
        if (req.method === 'OPTIONS') {
          res.writeHead(204, cors);
          res.end();
          return;
        }
        res.writeHead(307, { ...cors, location: `http://127.0.0.1:${other.port}/elsewhere` });
        res.end();
      });
      // The page's routes let these two through (the context refuses everything else).
      for (const port of [named.port, other.port]) await page.route(`http://127.0.0.1:${port}/**`, (route) => route.continue());
      try {
        const first = page.locator('[data-try-operation]').first();
        await first.locator('input[data-try-remote]').check();
        await first.locator('input[data-try-base-url]').fill(`http://127.0.0.1:${named.port}`);
        await first.evaluate((node) => node.querySelector('[data-try-status]')?.remove());
        await first.locator('button[data-try-send]').click();
        await first.locator('[data-try-status]').waitFor();
        // Chromium hides a redirect's status and Location from the page (an opaque redirect): the panel says so.
        expect(await first.locator('[data-try-status]').textContent()).toBe('3xx');
        expect(await first.locator('[data-try-headers]').textContent()).toBe('location: not readable by a web page');
        expect(await first.locator('[data-try-response]').textContent()).toBe('');
        expect(await first.locator('[data-try-note]').textContent()).toBe(
          "The server answered 3xx, a redirect to its Location, which the browser does not let this page read. Try it does not follow redirects: nothing was sent there. The curl line below shows the redirect's status and Location (curl -i).",
        );
        expect(await first.locator('[data-try-curl]').textContent()).toContain(`http://127.0.0.1:${named.port}/api/external/v1/`);
        expect(reached).toEqual([]);
        await first.locator('input[data-try-remote]').uncheck();
      } finally {
        for (const port of [named.port, other.port]) await page.unroute(`http://127.0.0.1:${port}/**`);
        await named.close();
        await other.close();
      }
    });

    it('keeps the page one file of at most 900 KB gzip, the try-it script last (it starts after the reference renders)', () => {
      const html = readFileSync(pageFile, 'utf8');
      expect(gzipSync(html, { level: 9 }).length).toBeLessThanOrEqual(900 * 1024);
      expect(html.trimEnd()).toMatch(/<script>[\s\S]*<\/script><\/body>\s*<\/html>$/);
      expect(html.match(/<script[^>]*\bsrc=/g)).toBeNull();
    });

    it('lists the released versions and their changes in a Changes section', async () => {
      await expect
        .poll(() =>
          page
            .getByRole('heading', { name: /Changes$/ })
            .first()
            .isVisible(),
        )
        .toBe(true);
      expect(await page.getByText(/^0\.1\.0 \(\d{4}-\d{2}-\d{2}\)$/).count()).toBeGreaterThan(0);
    });

    it('logs no console error and makes no request outside the file (the remote send above was refused by the route)', () => {
      expect(consoleErrors.filter((text) => !/127\.0\.0\.1:9|ERR_FAILED|Failed to fetch|net::/.test(text))).toEqual([]);
      expect(outsideRequests.filter((url) => !url.startsWith('http://127.0.0.1:9/'))).toEqual([]);
      expect(listVisibleMs).toBeGreaterThan(0);
    });
  },
);
