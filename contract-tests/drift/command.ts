// `service-external-api drift FILE.har [--spec PATH|git:REF] [--tokens FILE] [--format text|json|junit|sarif]
// [--output FILE] [--coverage FILE]`: checks a recording offline (drift.ts) and never sends a request. Exit 0 no
// violation, 1 a violation, 2 bad input (one line). With --spec, the contract the traffic is held to is that version:
// read with the diff command's bounded reader (spec/diff, handed over by cli/cli.ts: the suite stays above the spec's
// tooling), it takes the place of the bundled document before any of the
// checking code is loaded, so every rule reads it (which is why the checks are imported only after that).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadDocument as bundledDocument } from '../../spec/lib/openapi.ts';
import { readFileBounded } from '../../spec/lib/read-file.ts';
import { failWith, oneOf, parseCommand, TOKENS_MAX_BYTES } from '../har/args.ts';

const DRIFT_USAGE = `Usage: service-external-api drift FILE.har [options]

Checks recorded traffic (HAR 1.2: from proxy --record, from redocly proxy, or a browser's "Save all as HAR") offline,
in recorded order, with every rule the validation proxy checks live: the spec (statuses, media types, schemas,
headers), production's answer to each request in its order of checks (transport, inputs, token, read-only, missing
fields, record), the state rules through the sequence, what a write leaves alone, and the caller. Sends nothing.

  --spec PATH|git:REF  hold the traffic to that version of the contract (a document, a split root, or spec/ at a git
                       ref) instead of this package's
  --tokens FILE        persona → token JSON, or the mock's GET /__mock/fixtures document: the personas of the tokens a
                       recording carries unmasked, and the fixture records and people (a recording of proxy --record
                       names its personas itself: $full_access)
  --format F           text (default), json, junit, sarif (SARIF 2.1.0, for code-scanning views)
  --output FILE        write the report there instead of stdout (the last line of counts still goes to stdout)
  --coverage FILE      also write what the traffic exercised as coverage JSON (the shape of contract --coverage)
  --help               show this help

Exit: 0 no violation, 1 a violation, 2 bad input (one line on stderr).`;

const OPTIONS = {
  spec: { type: 'string' },
  tokens: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string' },
  coverage: { type: 'string' },
  help: { type: 'boolean' },
} as const;

const fail: (message: string) => never = failWith('drift');
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Puts `other` in the place of the bundled document (the one object every module reads), before they read it. */
function useDocument(other: Record<string, unknown>): void {
  const document = bundledDocument();
  for (const key of Object.keys(document)) delete document[key];
  Object.assign(document, other);
}

/** Reads another version of the contract (the diff command's bounded reader, spec/diff: given by cli/cli.ts). */
export type SpecLoader = (given: string) => Promise<{ document: Record<string, unknown>; cleanup(): void }>;

export async function runDrift(argv: string[], version = 'unknown', loadSpec?: SpecLoader): Promise<void> {
  const { values, positionals } = parseCommand('drift', argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`${DRIFT_USAGE}\n`);
    return;
  }
  const [file, ...extra] = positionals;
  if (file === undefined) fail('give the recording: drift FILE.har (see --help)');
  if (extra.length > 0) fail(`drift takes one recording, got also ${extra.join(' ').slice(0, 80)}`);
  const format = oneOf('drift', '--format', values.format, ['text', 'json', 'junit', 'sarif'], 'text');
  if (values.spec !== undefined) {
    if (loadSpec === undefined) fail('--spec needs the diff command’s reader (run drift from the service-external-api command line)');
    const given = values.spec;
    try {
      const loaded = await loadSpec(given);
      loaded.cleanup();
      useDocument(loaded.document);
    } catch (error) {
      const said = message(error);
      fail(said.startsWith(given) ? `--spec ${said}` : `--spec ${given}: ${said}`);
    }
  }
  const { HarError, readHar } = await import('../har/har.ts');
  const { parseFixtures } = await import('../proxy/knowledge.ts');
  let fixtures: import('../proxy/knowledge.ts').Fixtures | undefined;
  if (values.tokens !== undefined) {
    let text = '';
    try {
      text = readFileBounded(values.tokens, TOKENS_MAX_BYTES, `--tokens ${values.tokens}`);
    } catch (error) {
      fail(message(error));
    }
    const parsed = parseFixtures(text);
    if (!parsed.ok) fail(`--tokens ${values.tokens}: ${parsed.error}`);
    fixtures = parsed.fixtures;
  }
  let read: ReturnType<typeof readHar>;
  try {
    read = readHar(file);
  } catch (error) {
    if (error instanceof HarError) fail(`${file} ${error.message}`);
    fail(`${file}: ${message(error)}`);
  }
  const { drift } = await import('./drift.ts');
  const { countsLine, driftJson, driftJunit, driftSarif, driftText } = await import('./report.ts');
  const result = drift(read.har, read.exchanges, fixtures);
  const report =
    format === 'json'
      ? driftJson(result, file, values.spec)
      : format === 'junit'
        ? driftJunit(result)
        : format === 'sarif'
          ? driftSarif(result, file, version)
          : driftText(result);
  const write = (path: string, text: string, what: string): void => {
    try {
      mkdirSync(dirname(resolve(path)), { recursive: true });
      writeFileSync(path, text);
    } catch (error) {
      fail(`cannot write ${what} ${path}: ${message(error)}`);
    }
  };
  if (values.coverage !== undefined) write(values.coverage, `${JSON.stringify({ target: file, ...result.log.coverage.report() }, null, 2)}\n`, '--coverage');
  if (values.output !== undefined) {
    write(values.output, report, '--output');
    process.stdout.write(`${countsLine(result)}\n`);
  } else process.stdout.write(report);
  process.exitCode = result.violations > 0 ? 1 : 0;
}
