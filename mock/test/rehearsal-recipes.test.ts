// mock/docs/rehearsing.md's recipes for rehearsing failure, run as written: each ```ts block after a
// `<!-- recipe: NAME -->` marker is written out with `service-external-api/…` resolved to this repository's source, and
// imported here: the test files' tests run as tests of this file, each in its own describe; the Storybook story runs
// as msw-storybook-addon runs it (its handlers installed, its loaders, then its render).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { describe, expect, it } from 'vitest';
import { isObject } from '../../spec/lib/openapi.ts';
import { chromiumMissing, CHROMIUM } from '../../docs-site/test/chromium.ts';
import { specExample } from './rehearsal.ts';

const ROOT = new URL('../../', import.meta.url);
const README = readFileSync(new URL('mock/docs/rehearsing.md', ROOT), 'utf8');
/** Gitignored: the recipes as run, for a look after a failure. */
const OUT = new URL('.vitest/recipes/', ROOT);

/** The package's entry points, as the recipes import them, and the source each one is built from. */
const ENTRY_POINTS: Record<string, string> = {
  'service-external-api/msw': 'mock/src/msw.ts',
  'service-external-api/mock': 'mock/src/index.ts',
  'service-external-api/client': 'docs-site/client/index.ts',
};

/** The recipe's code block, written out with the package's entry points resolved to the source; its file URL. */
function recipe(name: string): string {
  const code = new RegExp(`<!-- recipe: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(README)?.[1];
  if (code === undefined) throw new Error(`mock/docs/rehearsing.md has no recipe "${name}"`);
  const resolved = code.replace(/'(service-external-api\/[a-z]+)'/g, (whole, specifier: string) => {
    const source = ENTRY_POINTS[specifier];
    return source === undefined ? whole : `'${new URL(source, ROOT).href}'`;
  });
  mkdirSync(OUT, { recursive: true });
  const file = new URL(`${name}.ts`, OUT);
  writeFileSync(file, resolved);
  return file.href;
}

describe('recipe: a retry test with msw/node', async () => {
  await import(recipe('retry'));
});

const noBrowser = chromiumMissing();
describe.skipIf(noBrowser !== undefined)(`recipe: a Playwright-style test against the server${noBrowser ? ` (${noBrowser})` : ''}`, async () => {
  process.env['CHROME_PATH'] ??= CHROMIUM;
  if (noBrowser === undefined) await import(recipe('playwright'));
});

describe('recipe: a Storybook story of the error state', () => {
  it("renders the spec's own 500 for a close the scenario fails", async () => {
    const story: unknown = await import(recipe('story'));
    const closeFails = isObject(story) ? story['CloseFails'] : undefined;
    if (!isObject(closeFails) || !isObject(closeFails['parameters']) || !Array.isArray(closeFails['loaders']) || typeof closeFails['render'] !== 'function')
      throw new Error('the story recipe exports no CloseFails story with parameters, loaders and render');
    const msw = closeFails['parameters']['msw'];
    const handlers = isObject(msw) && Array.isArray(msw['handlers']) ? msw['handlers'].filter((h) => h instanceof RequestHandler) : [];
    expect(handlers.length).toBeGreaterThan(0);
    const server = setupServer(...handlers);
    server.listen({ onUnhandledRequest: 'error' });
    try {
      let loaded: Record<string, unknown> = {};
      for (const loader of closeFails['loaders']) if (typeof loader === 'function') loaded = { ...loaded, ...(await loader()) };
      const expected = specExample('closeGoal', 500).value;
      const message = isObject(expected) ? expected['message'] : undefined;
      expect(closeFails['render']({}, { loaded })).toBe(`<p role="alert">Could not close the goal (500): ${String(message)}</p>`);
    } finally {
      server.close();
    }
  });
});

it('the recipes are the blocks this file runs, and the README names this file', () => {
  expect([...README.matchAll(/<!-- recipe: ([a-z]+) -->/g)].map((m) => m[1])).toEqual(['retry', 'playwright', 'story']);
  expect(README).toContain('`test/rehearsal-recipes.test.ts`');
});
