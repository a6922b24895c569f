// The built reference page in a real browser (Debian's chromium through playwright-core), opened from disk with the
// network cut off: what an API consumer sees must be there, and the page must need nothing but its own file.
// Builds the page first (`node docs-site/build.ts`, what `npm run docs` runs), so it works on a fresh clone.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dereference, isObject, pointerTo, resolvePointer } from '../../spec/lib/openapi.ts';
import { loadFullDocument } from '../../spec/lib/files.ts';
import { generateSamples } from '../samples.ts';
import { chromiumMissing, openOffline } from './chromium.ts';

const missing = chromiumMissing();
const TIMEOUT = 60_000;

const root = fileURLToPath(new URL('../../', import.meta.url));
const pageFile = join(root, 'docs-site', 'dist', 'index.html');
const screenshot = join(root, 'docs-site', 'dist', 'screenshot.png');
// The document the page renders, prose included.
const document = await loadFullDocument();

const info = isObject(document['info']) ? document['info'] : {};
const title = String(info['title']);
const introHeadings = [...String(info['description']).matchAll(/^## (.+)$/gm)].map((m) => m[1] ?? '');

/** What the page must show for each operation, read from the spec. */
const operations = generateSamples(document).map((s) => {
  const operation = resolvePointer(document, pointerTo('paths', s.path, s.method));
  const tags: unknown = isObject(operation) ? operation['tags'] : undefined;
  const tag: unknown = Array.isArray(tags) ? tags[0] : undefined;
  if (!isObject(operation) || typeof tag !== 'string' || !isObject(operation['responses'])) throw new Error(`${s.operationId} has no tag or responses`);
  const responseText = (status: string, media: string): string => {
    const response = dereference(document, pointerTo('paths', s.path, s.method, 'responses', status));
    const example = resolvePointer(document, `${response.pointer}/content/${media.replace('/', '~1')}/example`);
    if (typeof example !== 'string') throw new Error(`${s.operationId} ${status} has no ${media} example`);
    return example;
  };
  return {
    ...s,
    summary: String(operation['summary']),
    tag,
    statuses: Object.keys(operation['responses']),
    unauthorized: responseText('401', 'text/plain'),
    readOnly: responseText('403', 'text/plain'),
  };
});

let context: BrowserContext;
let page: Page;
let userDataDir = '';
let consoleErrors: string[] = [];
let outsideRequests: string[] = [];

beforeAll(async () => {
  if (missing) return;
  const build = spawnSync(process.execPath, [join(root, 'docs-site', 'build.ts')], { cwd: root, encoding: 'utf8', timeout: TIMEOUT });
  if (build.status !== 0) throw new Error(`node docs-site/build.ts failed:\n${build.stdout}${build.stderr}`);
  userDataDir = mkdtempSync(join(tmpdir(), 'docs-chromium-'));
  // Anything that is not the file itself (or what it makes in memory) is recorded and refused.
  const offline = await openOffline(userDataDir, 10_000);
  ({ context, page } = offline);
  consoleErrors = offline.consoleErrors;
  outsideRequests = offline.outsideRequests;
  await page.goto(pathToFileURL(pageFile).href);
}, TIMEOUT);

afterAll(async () => {
  await context?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

/** A heading by its text; Redoc puts a "link to …" anchor before the text in the accessible name. */
function headingLocator(text: string): Locator {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return page.getByRole('heading', { name: new RegExp(`(^|\\s)${escaped}$`) });
}

function heading(text: string): Locator {
  return page.getByRole('main').locator(headingLocator(text));
}

/** Opens an operation the way a reader does: its tag in the sidebar, then the operation. Returns its section. */
async function openOperation(tag: string, summary: string): Promise<Locator> {
  const sidebar = page.locator('[data-component-name="Menu/Menu"]');
  await sidebar.getByRole('link', { name: tag, exact: true }).click();
  await sidebar.getByRole('link', { name: summary }).click();
  await heading(summary).waitFor({ state: 'visible' });
  return page.locator('[data-item-kind="httpItem"]').filter({ has: headingLocator(summary) });
}

describe.skipIf(missing)(
  missing ? `the reference page in chromium — skipped: ${missing}` : 'the reference page (docs-site/dist/index.html)',
  { timeout: TIMEOUT },
  () => {
    it('is one file that loads no script, style or image from elsewhere', () => {
      const html = readFileSync(pageFile, 'utf8');
      // Matches are compared, not the 2.7 MB page, so a failure prints what was found.
      expect(html.match(/<(script|link|img)\b[^>]*\b(src|href)=["']?(https?:)?\/\/[^"' >]*/gi)).toBeNull();
      expect(html.match(/\bimport\b[^;]*?from\s*["']https?:[^"']*/g)).toBeNull();
      expect(html.match(/https:\/\/cdn\.redoc\.ly\/[^`"' ]*/g)).toBeNull();
      expect(html.match(/"disableTelemetry":(true|false)/)?.[0]).toBe('"disableTelemetry":true');
    });

    it('shows the API title and every section of the introduction', async () => {
      await expect.poll(() => page.getByRole('heading', { level: 1 }).first().textContent(), { timeout: 15_000 }).toContain(title);
      for (const text of introHeadings) {
        expect(await heading(text).isVisible(), text).toBe(true);
      }
      expect(introHeadings).toEqual(expect.arrayContaining(['Authentication', 'Order of checks', 'Errors']));
      // The introduction quotes the read-only 403's text, as the spec's response has it (computed here, looked for in the page).
      const readOnly = operations[0]?.readOnly;
      if (readOnly === undefined) throw new Error('no operation');
      expect(await page.getByText(readOnly).first().isVisible()).toBe(true);
    });

    it("renders the introduction's Operations list as one list item per operation", async () => {
      // info.description is folded YAML: two list lines with no blank line between them fold into one bullet.
      // Redoc puts each `## ` section of the introduction in an element of its own, named by the heading.
      const items = (await page.locator('[data-section-id="/section/operations"] ul > li').allTextContents()).map((t) => t.trim());
      expect(items).toEqual(operations.map((o) => expect.stringContaining(o.summary)));
      expect(items).toHaveLength(2);
    });

    it('lists every operation on the landing page, each a link that opens it (the sidebar starts collapsed)', async () => {
      for (const operation of operations) {
        const link = page.getByRole('main').getByRole('link', { name: operation.summary, exact: true }).first();
        expect(await link.isVisible(), operation.summary).toBe(true);
        expect(await link.getAttribute('href')).toBe(`#/${operation.tag.toLowerCase()}/${operation.operationId.toLowerCase()}`);
      }
      const last = operations.at(-1);
      if (!last) throw new Error('no operation');
      await page.getByRole('main').getByRole('link', { name: last.summary, exact: true }).first().click();
      await heading(last.summary).waitFor({ state: 'visible' });
      await page.goto(pathToFileURL(pageFile).href);
      await page.getByRole('heading', { level: 1 }).first().waitFor({ state: 'visible' });
    });

    for (const operation of operations) {
      describe(`${operation.summary} (${operation.operationId})`, () => {
        let section: Locator;

        it('is reached from the sidebar and shows its method and path', async () => {
          section = await openOperation(operation.tag, operation.summary);
          await expect.poll(() => section.getByText(operation.path).first().isVisible()).toBe(true);
          // Redoc updates the address after it scrolls: on a loaded machine, a moment after the section shows.
          await expect.poll(() => page.url()).toContain(`#/${operation.tag.toLowerCase()}/${operation.operationId.toLowerCase()}`);
        });

        it('lists every documented response status and shows the 401 and read-only 403 bodies', async () => {
          const tabs = section.getByRole('tablist', { name: 'Response status' });
          expect(await tabs.getByRole('tab').allTextContents()).toEqual(operation.statuses);
          for (const [status, body] of [
            ['401', operation.unauthorized],
            ['403', operation.readOnly],
          ] as const) {
            await tabs.getByRole('tab', { name: status, exact: true }).click();
            await expect.poll(() => tabs.getByRole('tab', { name: status, exact: true }).getAttribute('aria-selected')).toBe('true');
            await expect.poll(() => section.getByText(body, { exact: true }).last().isVisible(), { message: `${status} body ${body}` }).toBe(true);
          }
        });

        it('shows the generated curl and TypeScript samples', async () => {
          const language = section.getByRole('button', { name: 'curl', exact: true });
          await language.scrollIntoViewIfNeeded();
          const code = section.locator('[data-component-name="CodeBlock/CodeBlock"]').first();
          await expect.poll(() => code.textContent()).toContain(`curl -sS -w '\\n' -X POST '${operation.url}'`);
          await language.click();
          await page.getByRole('menuitem', { name: 'TypeScript', exact: true }).click();
          await expect.poll(() => code.textContent()).toContain(`await api.${operation.operationId}({`);
          const shown = (await code.textContent()) ?? '';
          expect(shown.replace(/\s+/g, '')).toContain(operation.typescript.replace(/\s+/g, ''));
          expect(await code.isVisible()).toBe(true);
          // A long line wraps at the panel's edge: no code block scrolls sideways.
          const wide = await section.locator('pre').evaluateAll((blocks) => blocks.filter((block) => block.scrollWidth > block.clientWidth + 1).length);
          expect(wide).toBe(0);
          // Back to curl, so the screenshot shows the first language.
          await section.getByRole('button', { name: 'TypeScript', exact: true }).click();
          await page.getByRole('menuitem', { name: 'curl', exact: true }).click();
          await expect.poll(() => code.textContent()).toContain("curl -sS -w '\\n' -X POST");
        });
      });
    }

    it('makes no request outside the file and logs no console error', () => {
      expect(outsideRequests).toEqual([]);
      expect(consoleErrors).toEqual([]);
    });

    it('saves full-page screenshots: dist/screenshot.png with the first operation open, one more per other operation', async () => {
      // Redoc CE 3 expands one tag section at a time (the one the route points at), so one picture per operation.
      const dist = dirname(screenshot);
      for (const [index, operation] of operations.entries()) {
        await page.setViewportSize({ width: 1400, height: 900 });
        await openOperation(operation.tag, operation.summary);
        // Scroll through once so everything drawn on scrolling is drawn, then make the viewport as tall as the page,
        // which keeps the sticky sidebar at the top of the picture.
        const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
        for (let y = 0; y < height; y += 800) await page.mouse.wheel(0, 800);
        await page.setViewportSize({ width: 1400, height: Math.min(height, 16_000) });
        await page.evaluate('window.scrollTo(0, 0)');
        const file = index === 0 ? screenshot : join(dist, `screenshot-${operation.operationId}.png`);
        rmSync(file, { force: true });
        await page.screenshot({ path: file, fullPage: true });
        expect(statSync(file).size, file).toBeGreaterThan(50_000);
        expect(await heading(operation.summary).isVisible()).toBe(true);
      }
      expect(existsSync(screenshot)).toBe(true);
      expect(consoleErrors).toEqual([]);
      expect(outsideRequests).toEqual([]);
    });
  },
);
