// The try-it panel (tryit/panel.ts) as one script for the reference page: bundled with esbuild (minified, for
// browsers), the self-check's validators and Ajv's compiler left out. The panel runs the mock with the self-check off,
// so their dynamic imports never run; left external, they stay unresolved specifiers the page never loads.
import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./tryit/panel.ts', import.meta.url));
const LEFT_OUT = ['*/generated/response-validators.js', '*/spec/lib/ajv.ts'];

/** The panel's code, ready to inline in a <script> element (no `</script` inside). */
export function tryItScript(): string {
  const result = buildSync({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    external: LEFT_OUT,
    logLevel: 'silent',
    legalComments: 'none',
  });
  const code = result.outputFiles[0]?.text;
  if (code === undefined) throw new Error('esbuild wrote no try-it script');
  return code.replaceAll('</script', '<\\/script');
}
