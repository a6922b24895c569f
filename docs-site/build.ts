// `npm run docs`: writes docs-site/dist/index.html, the API reference as one self-contained page (Redoc CE 3 through
// `redocly build-docs`), from generated/openapi.json plus the code samples of docs-site/samples.ts.
//   node docs-site/build.ts [FILE]   exit 0 with the page written, 1 when redocly fails (its output is printed)
// generated/ is only read: the document with `x-codeSamples` goes to a temporary file. The package ships the page
// this builds (`npm run build`); the CLI's `docs` command copies that (docs-site/command.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDocument, type JsonObject } from '../spec/lib/openapi.ts';
import { DOCUMENT_URL } from '../spec/lib/files.ts';
import { changesSection } from './changes.ts';
import { sampleLanguageList } from './sample-languages.ts';
import { generateSamples, withCodeSamples } from './samples.ts';
import { tryItScript } from './tryit.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
/** Where `npm run docs` writes the page. */
export const DOCS_PAGE = join(here, 'dist', 'index.html');
const redocly = join(root, 'node_modules', '.bin', 'redocly');

/**
 * The only resources the inlined Redoc bundle fetches from the network are the two images of its "API docs by
 * Redocly" badge. They become inline SVG wordmarks, so the page loads nothing from outside the file (the browser
 * test fails on any request that is not file:, data: or blob:).
 */
const REMOTE_IMAGES = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const BADGE = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' width='52' height='14' viewBox='0 0 52 14'><text x='0' y='11' font-family='sans-serif' font-size='11' font-weight='600' fill='#0044d4'>Redocly</text></svg>",
)}`;

/**
 * Code samples and examples wrap at the panel's edge instead of scrolling sideways (a curl line with a token and a
 * body is several hundred characters): Redoc offers no option for it, so the page gets one rule.
 */
const WRAP_CODE = '<style>pre { white-space: pre-wrap !important; overflow-wrap: anywhere; }</style>';

/** Builds the page into `output` with redocly (a devDependency); returns the line to print. Throws redocly's output on failure. */
export function buildDocs(output: string = DOCS_PAGE): string {
  // The document with its prose (loadDocument() is the run-time one, without descriptions).
  const document = withCodeSamples(JSON.parse(readFileSync(DOCUMENT_URL, 'utf8')) as JsonObject);
  // The introduction ends with the released versions and their changes (CHANGELOG.md).
  const info = document['info'];
  if (typeof info !== 'object' || info === null || Array.isArray(info)) throw new Error('the document has no info');
  Object.assign(info, { description: `${String((info as JsonObject)['description'] ?? '').trimEnd()}\n\n\n${changesSection()}\n` });
  const work = mkdtempSync(join(tmpdir(), 'docs-site-'));
  let result: ReturnType<typeof spawnSync>;
  try {
    const input = join(work, 'openapi.json');
    writeFileSync(input, JSON.stringify(document));
    mkdirSync(dirname(output), { recursive: true });
    result = spawnSync(redocly, ['build-docs', input, '--output', output, '--config', join(here, 'redocly.yaml'), '--lint-config', 'error', '--inlineBundle'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (result.status !== 0) {
    throw new Error(
      `${`${String(result.stdout)}${String(result.stderr)}`.trim()}\nredocly build-docs failed (${result.error?.message ?? `exit ${String(result.status)}`})`,
    );
  }

  // The try-it panels load after the reference: the script is the page's last element and waits for `load`. The
  // replacements are functions: a minified script may hold `$&` or `$'`, which a replacement string would expand.
  const script = tryItScript();
  const html = readFileSync(output, 'utf8')
    .replace(REMOTE_IMAGES, BADGE)
    .replace('</head>', () => `${WRAP_CODE}</head>`)
    .replace(/<\/body>(?![\s\S]*<\/body>)/, () => `<script>${script}</script></body>`);
  writeFileSync(output, html);

  const operations = generateSamples(loadDocument()).map((s) => `${s.operationId} (${s.examples.length} examples)`);
  return `wrote ${relative(process.cwd(), output) || output} (${Buffer.byteLength(html)} bytes) with ${sampleLanguageList()} samples for ${operations.join(', ')}`;
}

if (import.meta.main) {
  try {
    console.log(buildDocs(process.argv[2] === undefined ? DOCS_PAGE : process.argv[2]));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
