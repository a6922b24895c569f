// The `package` project's global setup (vitest.config.ts): `npm pack` once for the files that install the package as its
// users get it (the package test, the footprint test, the deployment recipes), which each packed it before. Needs dist/
// (`npm run build`, which `npm test` runs before vitest); packs with --ignore-scripts so nothing rebuilds dist/ under
// the other tests. The tarball and its file list reach the tests through `inject('tarball')`.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { explain, ROOT, run } from './run.ts';

export type Packed = { file: string; files: string[] };

declare module 'vitest' {
  export interface ProvidedContext {
    tarball: Packed;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'cli.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  const work = mkdtempSync(join(tmpdir(), 'service-external-api-pack-'));
  const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT });
  const [packed] = pack.status === 0 ? (JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>) : [];
  if (!packed) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`npm pack failed: ${explain(pack)}`);
  }
  project.provide('tarball', { file: join(work, packed.filename), files: packed.files.map((f) => f.path) });
  return () => rmSync(work, { recursive: true, force: true });
}
