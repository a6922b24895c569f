// `service-external-api replay FILE.har --target URL [--tokens FILE] [--map FILE]`: sends the recorded API requests
// again to --target, in order, and compares each answer with the recorded one (replay.ts). Prints, per differing
// exchange, the first differing JSON pointer with both values; the last line `replay: N same, N differ`. Exit 0 all
// same, 1 one differs, 2 bad input (one line). Writes go only to a loopback target unless CONTRACT_ALLOW_WRITES is set.
import { readFileBounded } from '../../spec/lib/read-file.ts';
import { isLoopback } from '../io/env.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import { HarError, readHar } from '../har/har.ts';
import { failWith, parseCommand, TOKENS_MAX_BYTES } from '../har/args.ts';
import { parseFixtures, type Fixtures } from '../proxy/knowledge.ts';
import { fixtureMap, mockFixtures, replay } from './replay.ts';

const REPLAY_USAGE = `Usage: service-external-api replay FILE.har --target URL [options]

Sends the recorded API requests of FILE.har (from proxy --record, redocly proxy or a browser) again to URL, in order,
and compares each answer with the recorded one: status, media type, the headers production fixes, and the body (every
key present, absent or null, types, enum values, texts, flags and computed values; times and record ids by form).

  --target URL   the implementation to replay against (required); writes go only to loopback unless
                 CONTRACT_ALLOW_WRITES=1 is set
  --tokens FILE  persona → token JSON (or the mock's GET /__mock/fixtures document): the token sent for $<persona>;
                 against this package's mock, its fixtures are read when --tokens is not given
  --map FILE     JSON { "<recorded id>": "<target id>", … }: record ids to send instead (against the mock, each fixture
                 of the recording maps to the mock's fixture of the same kind and story by default)
  --help         show this help

Prints, per differing exchange, the first differing JSON pointer with both values; the last line is
"replay: N same, N differ". Exit: 0 all same, 1 one differs, 2 bad input (one line on stderr).`;

const OPTIONS = { target: { type: 'string' }, tokens: { type: 'string' }, map: { type: 'string' }, help: { type: 'boolean' } } as const;
const fail: (message: string) => never = failWith('replay');
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function readJson(file: string, option: string): unknown {
  const text = (() => {
    try {
      return readFileBounded(file, TOKENS_MAX_BYTES, `${option} ${file}`, 'is larger than 8 MB');
    } catch (error) {
      return fail(message(error));
    }
  })();
  try {
    return JSON.parse(text);
  } catch (error) {
    return fail(`${option} ${file}: ${message(error)}`);
  }
}

export async function runReplay(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand('replay', argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`${REPLAY_USAGE}\n`);
    return;
  }
  const [file, ...extra] = positionals;
  if (file === undefined) fail('give the recording: replay FILE.har --target URL (see --help)');
  if (extra.length > 0) fail(`replay takes one recording, got also ${extra.join(' ').slice(0, 80)}`);
  if (values.target === undefined) fail('--target is required: the URL of the implementation to replay against');
  let target: URL;
  try {
    target = new URL(values.target);
  } catch {
    fail(`--target is not a URL: "${values.target.slice(0, 100)}"`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') fail('--target must start with http:// or https://');
  if (target.username || target.password || target.search || target.hash) fail('--target must be an origin (and path), without credentials, query or fragment');
  const allowWrites = /^(1|true|yes)$/i.test(process.env['CONTRACT_ALLOW_WRITES']?.trim() ?? '');
  if (!isLoopback(target.hostname) && !allowWrites)
    fail(`the recording's writes would go to ${target.host}, which is not this machine; set CONTRACT_ALLOW_WRITES=1 to allow writes there`);
  let read: ReturnType<typeof readHar>;
  try {
    read = readHar(file);
  } catch (error) {
    if (error instanceof HarError) fail(`${file} ${error.message}`);
    fail(`${file}: ${message(error)}`);
  }
  const fixturesDoc = await mockFixtures(target);
  let tokens: Fixtures['tokens'] = {};
  if (values.tokens !== undefined) {
    const parsed = parseFixtures(JSON.stringify(readJson(values.tokens, '--tokens')));
    if (!parsed.ok) fail(`--tokens ${values.tokens}: ${parsed.error}`);
    tokens = parsed.fixtures.tokens;
  } else if (isObject(fixturesDoc)) {
    const parsed = parseFixtures(JSON.stringify(fixturesDoc));
    if (parsed.ok) tokens = parsed.fixtures.tokens;
  }
  let map = fixtureMap(read.har.log._fixtures, fixturesDoc);
  if (values.map !== undefined) {
    const given = readJson(values.map, '--map');
    if (!isObject(given) || Object.values(given).some((v) => typeof v !== 'string'))
      fail(`--map ${values.map} must be a JSON object of recorded id → target id (strings)`);
    map = new Map(Object.entries(given).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }
  let result: Awaited<ReturnType<typeof replay>>;
  try {
    result = await replay(read.har, read.exchanges, {
      target,
      tokens,
      map,
      mock: fixturesDoc !== undefined,
      onFinding: (f) =>
        process.stdout.write(
          `✗ entry ${f.entry} ${f.method} ${JSON.stringify(f.path).slice(1, -1)}: ${f.difference.pointer}: recorded ${f.difference.recorded}, got ${f.difference.got}\n`,
        ),
    });
  } catch (error) {
    fail(`${target.origin} cannot be reached: ${message(error)}`);
  }
  process.stdout.write(`replay: ${result.same} same, ${result.differ} differ\n`);
  process.exitCode = result.differ > 0 ? 1 : 0;
}
