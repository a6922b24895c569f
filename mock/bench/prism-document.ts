// Prism's document: generated/openapi.json itself if Prism can load it within --prism-probe, else the acyclic export
// beside it (Prism stays at "Starting Prism…" for minutes on the cyclic one).
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ACYCLIC_DOCUMENT_URL, DOCUMENT_URL } from '../../spec/lib/files.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import { stop } from './children.ts';
import { ROOT } from './launch.ts';
import { say } from './say.ts';
import type { Settings } from './settings.ts';
import { startServer, type Context, type ServerName } from './start-server.ts';

export type PrismSpecInfo = {
  used: string;
  literal: { tried: boolean; answered: boolean; waited_s: number; note: string };
  acyclic: { bytes: number } | null;
};

export function prismEntry(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@stoplight/prism-cli/package.json');
  const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = isObject(manifest) ? manifest['bin'] : undefined;
  const relativeBin = typeof bin === 'string' ? bin : isObject(bin) && typeof bin['prism'] === 'string' ? bin['prism'] : undefined;
  if (!relativeBin) throw new Error('@stoplight/prism-cli has no prism bin');
  return join(dirname(manifestPath), relativeBin);
}

/** Probes Prism on generated/openapi.json (when it is measured and --prism-probe > 0); sets `ctx.prismSpec` to what it serves. */
export async function choosePrismDocument(settings: Settings, servers: ReadonlyArray<ServerName>, ctx: Context): Promise<PrismSpecInfo> {
  const prism: PrismSpecInfo = {
    used: relative(ROOT, fileURLToPath(DOCUMENT_URL)),
    literal: { tried: false, answered: false, waited_s: 0, note: '' },
    acyclic: null,
  };
  if (servers.includes('prism-default') && settings.prismProbe > 0) {
    say(`prism: trying generated/openapi.json for up to ${settings.prismProbe} s…`);
    prism.literal.tried = true;
    const since = performance.now();
    try {
      const probe = await startServer('prism-default', ctx, settings.prismProbe * 1000);
      await stop(probe.proc);
      prism.literal = {
        tried: true,
        answered: true,
        waited_s: Number(((performance.now() - since) / 1000).toFixed(1)),
        note: 'Prism loads generated/openapi.json',
      };
    } catch (error) {
      prism.literal = {
        tried: true,
        answered: false,
        waited_s: Number(((performance.now() - since) / 1000).toFixed(1)),
        note: error instanceof Error ? error.message : String(error),
      };
    }
  }
  if (!prism.literal.answered) {
    const path = fileURLToPath(ACYCLIC_DOCUMENT_URL);
    const bytes = statSync(path).size;
    ctx.prismSpec = path;
    prism.used = relative(ROOT, path);
    prism.acyclic = { bytes };
    say(
      `prism: ${prism.literal.tried ? `generated/openapi.json gave no answer in ${prism.literal.waited_s} s; ` : ''}serving ${prism.used} (${(bytes / 1024).toFixed(0)} KiB)`,
    );
  }
  return prism;
}
