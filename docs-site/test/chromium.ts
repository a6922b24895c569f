// Debian's chromium for the browser tests (playwright-core never downloads a browser of its own). Where it is missing,
// a developer's run skips those tests with one line saying how to get it; CI (CI set, as .ci/run runs) fails instead,
// because .ci/run installs it.
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';
/** The flags this machine's closed network needs (no background connections), headless as root. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Why the browser tests cannot run here (a sentence for the skipped suite's name), or undefined when they can. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`;
  if (process.env['CI']) throw new Error(`${reason}; in CI the browser tests never skip`);
  return reason;
}
