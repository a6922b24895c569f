// The `docs` command: `service-external-api docs [--out FILE|DIR]` writes the API reference, one self-contained HTML
// page (into DIR/index.html when --out names a directory).
// The package ships the page `npm run build` made (dist/docs-site/index.html), so a consumer needs no Redocly; in the
// repository the page `npm run docs` wrote is copied, or built first when there is none.
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sampleLanguageList } from './sample-languages.ts';

const USAGE = `Usage: service-external-api docs [--out FILE|DIR]

Writes the API reference as one self-contained HTML page that opens offline: both operations, every response
with its example, and ${sampleLanguageList()} samples.

  --out FILE   where to write it (default: api-docs.html in the current directory); a directory (one that exists,
               or a path ending in /) gets index.html written into it
  --help       show this help`;

/** The file to write: --out itself, or index.html inside it when it is a directory or ends with a separator. */
function outputFile(out: string | undefined): string {
  if (out === undefined) return resolve('api-docs.html');
  const path = resolve(out);
  const directory = out.endsWith('/') || out.endsWith(sep) || (existsSync(path) && statSync(path).isDirectory());
  return directory ? join(path, 'index.html') : path;
}

/** The page shipped beside this file (installed package), then the one `npm run docs` writes (repository). */
const BUILT = [new URL('./index.html', import.meta.url), new URL('./dist/index.html', import.meta.url)].map((url) => fileURLToPath(url));

function fail(message: string): never {
  process.stderr.write(`docs: ${message}\n`);
  process.exit(2);
}

export async function runDocs(argv: string[]): Promise<void> {
  let values: { out?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args: argv, options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (error) {
    fail(`${error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)} (see --help)`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (values.out?.trim() === '') fail('--out must name a file or a directory');
  const output = outputFile(values.out);
  if (existsSync(output) && statSync(output).isDirectory()) fail(`--out ${values.out ?? ''}: ${output} is a directory; name the file to write`);
  const built = BUILT.find((path) => existsSync(path));
  if (built === undefined) {
    // Only in the repository, where Redocly is a devDependency.
    const { buildDocs } = await import('./build.ts');
    process.stdout.write(`${buildDocs(output)}\n`);
    return;
  }
  try {
    mkdirSync(dirname(output), { recursive: true });
    copyFileSync(built, output);
  } catch (error) {
    fail(`cannot write ${output}: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.stdout.write(`wrote ${output} (${statSync(output).size} bytes): open it in a browser, no network needed\n`);
}
