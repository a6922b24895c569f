// What `service-external-api/msw` costs a browser: the entry bundled as a frontend build would (esbuild, ESM,
// minified, code splitting, msw left to the app), then every chunk gzipped. "Before the first answer" is the entry and
// what it imports statically; the chunks it imports dynamically (the response validators, loaded while the app starts,
// and Ajv's compiler, loaded only to explain a reply that breaks the spec) count in the total. The bench reports it
// (`npm run bench`), and the footprint test checks the limits on these byte counts.
//
//   node mock/bench/bundle.ts [ENTRY]     prints the report as JSON (default ENTRY: dist/mock/src/msw.js)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** The bundle's limits: all chunks, and what loads before the first mocked answer, in gzip bytes. */
export const BUNDLE_LIMITS = { total_gzip: 120 * 1024, first_answer_gzip: 60 * 1024 } as const;

export type BundleReport = {
  entry: string;
  total_bytes: number;
  total_gzip: number;
  /** The entry chunk and every chunk it imports statically, transitively: loaded before its first line runs. */
  first_answer_gzip: number;
  chunks: Array<{ file: string; bytes: number; gzip: number; loaded: 'at start' | 'later' }>;
  /** The ten inputs (packages, or files of this package) with the most bytes in the output. */
  top_modules: Array<{ module: string; bytes: number }>;
  /** Every npm package with code in the output. */
  packages: string[];
};

/** Bundles `entry` for a browser and measures it. */
export async function measureBrowserBundle(entry: string): Promise<BundleReport> {
  const out = mkdtempSync(join(tmpdir(), 'msw-bundle-'));
  try {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'esm',
      splitting: true,
      platform: 'browser',
      target: 'es2022',
      external: ['msw', 'msw/*'],
      outdir: out,
      metafile: true,
      write: true,
      logLevel: 'silent',
    });
    const outputs = result.metafile.outputs;
    const gzip = new Map<string, number>();
    for (const file of Object.keys(outputs)) gzip.set(file, gzipSync(readFileSync(file), { level: 9 }).length);
    const entryFile = Object.keys(outputs).find(
      (file) => outputs[file]?.entryPoint !== undefined && file.endsWith('.js') && outputs[file]?.entryPoint === relative(process.cwd(), entry),
    );
    const start = entryFile ?? Object.keys(outputs).find((file) => outputs[file]?.entryPoint !== undefined) ?? '';
    const atStart = new Set<string>();
    const visit = (file: string): void => {
      if (atStart.has(file) || !outputs[file]) return;
      atStart.add(file);
      for (const imported of outputs[file]?.imports ?? []) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    };
    visit(start);
    const modules = new Map<string, number>();
    const packages = new Set<string>();
    for (const output of Object.values(outputs)) {
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        // The last node_modules/ of the path: the package the file belongs to (this one too, when installed).
        const owner = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(input);
        const own = owner?.[1] === 'service-external-api' || !owner;
        if (!own && owner?.[1] && bytesInOutput > 0) packages.add(owner[1]);
        const name = own ? (owner?.[2] ?? input).replace(/^.*?(?=(?:dist\/)?(?:mock|spec|generated|contract-tests|docs-site)\/)/, '') : (owner?.[1] ?? input);
        modules.set(name, (modules.get(name) ?? 0) + bytesInOutput);
      }
    }
    const chunks = Object.entries(outputs)
      .filter(([file]) => file.endsWith('.js'))
      .map(([file, output]) => ({
        file: relative(out, file),
        bytes: output.bytes,
        gzip: gzip.get(file) ?? 0,
        loaded: atStart.has(file) ? ('at start' as const) : ('later' as const),
      }));
    return {
      entry,
      total_bytes: chunks.reduce((sum, chunk) => sum + chunk.bytes, 0),
      total_gzip: chunks.reduce((sum, chunk) => sum + chunk.gzip, 0),
      first_answer_gzip: chunks.filter((chunk) => chunk.loaded === 'at start').reduce((sum, chunk) => sum + chunk.gzip, 0),
      chunks,
      top_modules: [...modules]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([module, bytes]) => ({ module, bytes })),
      packages: [...packages].sort(),
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entry = process.argv[2] ?? fileURLToPath(new URL('../../dist/mock/src/msw.js', import.meta.url));
  process.stdout.write(`${JSON.stringify(await measureBrowserBundle(entry), null, 2)}\n`);
}
