// How `npm start` runs the mock, for the tools that start it the same way (the bench, the soak), and from where.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package's root: the bench's children run there. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The file `npm start` runs: the mock command's entry. */
export const MOCK_MAIN = 'cli/mock.cjs';

/** The node arguments of package.json's start script (node flags, then cli/mock.cjs), relative to the root. */
export function startArgs(): string[] {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const scripts = typeof manifest === 'object' && manifest !== null && 'scripts' in manifest ? manifest.scripts : undefined;
  const start = typeof scripts === 'object' && scripts !== null && 'start' in scripts ? scripts.start : undefined;
  const words = typeof start === 'string' ? start.trim().split(/\s+/) : [];
  if (words[0] !== 'node' || !words.includes(MOCK_MAIN)) throw new Error(`package.json's start script is not "node … ${MOCK_MAIN}": ${String(start)}`);
  return words.slice(1);
}
