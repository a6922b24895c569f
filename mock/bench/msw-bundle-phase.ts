// The browser bundle of service-external-api/msw, from the compiled package (what a frontend build bundles).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { measureBrowserBundle, type BundleReport } from './bundle.ts';
import { fixed } from './format.ts';
import { ROOT } from './launch.ts';
import { say } from './say.ts';

/** The bundle of a full run (undefined when it could not be measured: the failure is filed). */
export async function mswBundlePhase(full: boolean, failures: string[]): Promise<BundleReport | undefined> {
  let bundle: BundleReport | undefined;
  const mswEntry = join(ROOT, 'dist', 'mock', 'src', 'msw.js');
  if (full && existsSync(mswEntry)) {
    try {
      bundle = await measureBrowserBundle(mswEntry);
      say();
      say(
        `service-external-api/msw for a browser: ${fixed(bundle.total_gzip / 1024, 1)} KB gzip in all, ${fixed(bundle.first_answer_gzip / 1024, 1)} KB before the first answer; ${bundle.chunks.map((c) => `${c.file} ${fixed(c.gzip / 1024, 1)} KB (${c.loaded})`).join(' · ')}`,
      );
      say(`  largest modules: ${bundle.top_modules.map((m) => `${m.module} ${fixed(m.bytes / 1024, 0)} KB`).join(' · ')}`);
    } catch (error) {
      failures.push(`the msw bundle: ${error instanceof Error ? error.message : String(error)}`);
    }
  } else if (full) failures.push('the msw bundle: dist/mock/src/msw.js is missing (npm run build writes it)');
  return bundle;
}
