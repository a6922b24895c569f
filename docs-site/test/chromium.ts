// Debian's chromium for the browser tests (playwright-core never downloads a browser of its own). Where it is missing,
// a developer's run skips those tests with one line saying how to get it; CI (CI set, as .ci/run runs) fails instead,
// because .ci/run installs it.
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** The flags this machine's closed network needs (no background connections), headless as root. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here (a sentence for the skipped suite's name), or undefined when they can. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`;
  if (process.env['CI']) throw new Error(`${reason}; in CI the browser tests never skip`);
  return reason;
}

/** A browser page cut off from everything but files: what it logs as an error and what it tried to fetch are kept. */
export type OfflinePage = { context: BrowserContext; page: Page; consoleErrors: string[]; outsideRequests: string[] };

/**
 * Chromium with a profile in `userDataDir`, where any request that is not the file itself (or what it makes in
 * memory: data:, blob:) is recorded and refused, and console errors and uncaught exceptions are recorded.
 */
export async function openOffline(userDataDir: string, timeoutMs: number): Promise<OfflinePage> {
  const consoleErrors: string[] = [];
  const outsideRequests: string[] = [];
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
  });
  await context.route(
    (url) => !['file:', 'data:', 'blob:'].includes(url.protocol),
    async (route) => {
      outsideRequests.push(route.request().url());
      await route.abort();
    },
  );
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(timeoutMs);
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
  return { context, page, consoleErrors, outsideRequests };
}
