// The `docs` command: `service-external-api docs [--out FILE|DIR]` writes the API reference, one self-contained HTML
// page (into DIR/index.html when --out names a directory).
// The package ships the page `npm run build` made (dist/docs-site/index.html), so a consumer needs no Redocly; in the
// repository the page `npm run docs` wrote is copied, or built first when there is none.
import { copyFileSync, existsSync, mkdirSync, type Stats, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sampleLanguageList } from './sample-languages.ts';

const USAGE = `Usage: service-external-api docs [--out FILE|DIR]

Writes the API reference as one self-contained HTML page that opens offline: both operations, every response
with its example, and ${sampleLanguageList()} samples.

  --out FILE|DIR  where to write it (default: api-docs.html in the current directory): a FILE ending in .html;
                  a DIR ending in / or one that exists gets DIR/index.html (its folders made as needed); any
                  other name is refused in one line (--out site: say site/ or site.html)
  --help          show this help`;

/**
 * Where `--out` writes the page, or the one line that says why it cannot: a path ending in `/` (or the platform's
 * separator) or naming an existing directory gets `index.html` inside it (folders made as needed); a path ending in
 * `.html` or `.htm` is the file itself; anything else is refused, since a bare name (`--out site`) could mean either.
 */
export function docsTarget(out: string | undefined, cwd: string = process.cwd()): { file: string } | { error: string } {
  if (out === undefined) return { file: resolve(cwd, 'api-docs.html') };
  if (out.trim() === '') return { error: '--out must name a file or a directory' };
  const path = resolve(cwd, out);
  const shown = JSON.stringify(out);
  let existing: Stats | undefined;
  try {
    existing = statSync(path);
  } catch {
    existing = undefined;
  }
  const asDirectory = out.endsWith('/') || out.endsWith(sep) || existing?.isDirectory() === true;
  if (asDirectory) {
    if (existing !== undefined && !existing.isDirectory()) return { error: `--out ${shown}: ${path} is a file, not a directory` };
    return { file: join(path, 'index.html') };
  }
  if (!/\.html?$/i.test(out)) return { error: `--out ${shown}: name a page ending in .html (${out}.html) or a directory ending in / (${out}/)` };
  if (existing !== undefined && !existing.isFile()) return { error: `--out ${shown}: ${path} exists and is not a file` };
  return { file: path };
}

/** Copies the built page to `file`, making its folders; the one line that says why not, when it cannot. */
export function placePage(built: string, file: string): string | undefined {
  try {
    // A folder on the way that is a file is named, not left to mkdir's EEXIST/ENOTDIR.
    for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
      if (!existsSync(dir)) continue;
      if (!statSync(dir).isDirectory()) return `cannot write ${file}: ${dir} is a file, not a directory`;
      break;
    }
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(built, file);
    return undefined;
  } catch (error) {
    return `cannot write ${file}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''}`;
  }
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
  const target = docsTarget(values.out);
  if ('error' in target) fail(target.error);
  const output = target.file;
  const built = BUILT.find((path) => existsSync(path));
  if (built === undefined) {
    // Only in the repository, where Redocly is a devDependency.
    const { buildDocs } = await import('./build.ts');
    process.stdout.write(`${buildDocs(output)}\n`);
    return;
  }
  const problem = placePage(built, output);
  if (problem !== undefined) fail(problem);
  process.stdout.write(`wrote ${output} (${statSync(output).size} bytes): open it in a browser, no network needed\n`);
}
