// The validation proxy's command line: `service-external-api proxy --target URL [options]` (`npm run proxy -- …` here).
// `main(argv)` parses the options (a bad one is exit 2 with one line), listens, prints the URL and each exchange that
// broke the contract, and on SIGINT/SIGTERM writes the JUnit report (--report) and closes. Importing this module does
// nothing; the package's command line (cli/cli.ts) calls main.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { TOKENS_MAX_BYTES } from '../har/args.ts';
import { DEFAULT_RECORD_MAX_BYTES, Recorder } from '../har/recorder.ts';
import { readFileBounded } from '../../spec/lib/read-file.ts';
import { RULES, type Received } from './check.ts';
import type { RawRequest } from '../model/predict.ts';
import { parseFixtures, TokenKnowledge } from './knowledge.ts';
import { DEFAULT_CAPACITY, DEFAULT_MAX_BYTES, MIN_MAX_BYTES } from './log.ts';
import { MAX_REPORTED, printable } from '../../spec/lib/violations.ts';
import { createValidationProxy, DEFAULT_MAX_BODY, DEFAULT_TIMEOUT_MS, VIOLATIONS_HEADER } from './server.ts';
import { listenHosts } from '../../mock/src/server/hosts.ts';
import { optionErrors, type OptionErrors } from '../../mock/src/server/options.ts';

export const DEFAULT_PORT = 4020;

const USAGE = `Usage: service-external-api proxy --target URL [options]     (in the repository: npm run proxy -- …)

Forwards every request to URL unchanged and checks each answer against the spec and production's rules; an answer
that breaks the contract gets the header ${VIOLATIONS_HEADER}: <count>.

  --target URL        the server to check (required), e.g. https://staging.example.com or http://127.0.0.1:4010
  --port N            port to listen on (default ${DEFAULT_PORT}); 0 picks a free port
  --host H            address to bind (default 127.0.0.1)
  --allowed-host H    also answer requests whose Host is H (repeatable; NAME:PORT, or NAME on any port); any other Host
                      than the address it listens on gets 421, so a DNS-rebinding page cannot use the proxy
  --tokens FILE       JSON persona → token ({"full_access": "opk_…", "read_only": "opk_…", …}), or the mock's
                      GET /__mock/fixtures document (tokens, records, people): adds the persona rules
  --report FILE       write a JUnit XML report (one test case per operation and rule) there on exit
  --max-violations N  exchanges with violations kept for GET /__proxy/violations (default ${DEFAULT_CAPACITY}; the oldest go first)
  --max-log-bytes N   the most bytes those exchanges take (default ${DEFAULT_MAX_BYTES}, at least ${MIN_MAX_BYTES}; the oldest go
                      first); each lists at most ${MAX_REPORTED} violations, then "and N more"
  --max-body-bytes N  the largest request or answer body held for the check (default ${DEFAULT_MAX_BODY}); a larger
                      answer streams through with backpressure, unchecked, and is a violation (rule size)
  --timeout MS        answer 504 and record a violation when the target has not answered within MS (default ${DEFAULT_TIMEOUT_MS})
  --record FILE       write every exchange forwarded to FILE as HAR 1.2 (tokens as $<persona> or $token-<n>, every
                      credential masked), valid within a second of the last exchange and after SIGINT/SIGTERM
  --record-max-bytes N  stop recording (one line; forwarding goes on) past N bytes (default ${DEFAULT_RECORD_MAX_BYTES})
  --quiet             do not print each exchange that broke the contract
  --help              show this help

Endpoints: GET /__proxy/violations, GET /__proxy/summary, POST /__proxy/reset. See contract-tests/README.md.`;

/** Bad options: one line, exit 2 (a const with a declared type, so `never` narrows). */
const bad: OptionErrors = optionErrors('proxy');

/** The proxy command's options, as node:util parseArgs reads them. */
const OPTIONS = {
  target: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  tokens: { type: 'string' },
  report: { type: 'string' },
  'max-violations': { type: 'string' },
  'max-log-bytes': { type: 'string' },
  timeout: { type: 'string' },
  'max-body-bytes': { type: 'string' },
  record: { type: 'string' },
  'record-max-bytes': { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

/** Runs the proxy until SIGINT/SIGTERM (then exits 0); exits 2 on a bad option. */
export async function main(argv: string[]): Promise<void> {
  const values = bad.parse(argv, OPTIONS).values;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }

  if (values.target === undefined) bad.fail('--target is required: the URL of the server to check, e.g. --target http://127.0.0.1:4010');
  let target: URL;
  try {
    target = new URL(values.target);
  } catch {
    bad.fail(`--target is not a URL: "${values.target}" (e.g. https://staging.example.com)`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') bad.fail(`--target must start with http:// or https://, got "${values.target}"`);
  if (target.username || target.password || target.search || target.hash)
    bad.fail('--target must be an origin (and path), without credentials, query or fragment');
  const port = bad.integer(values.port ?? String(DEFAULT_PORT), '--port', 0, 65535);
  const host = values.host ?? '127.0.0.1';
  if (host.trim() === '') bad.fail('--host must not be empty');
  const capacity = values['max-violations'] === undefined ? DEFAULT_CAPACITY : bad.integer(values['max-violations'], '--max-violations', 1, 1_000_000);
  const maxLogBytes =
    values['max-log-bytes'] === undefined ? DEFAULT_MAX_BYTES : bad.integer(values['max-log-bytes'], '--max-log-bytes', MIN_MAX_BYTES, 16 * 1024 * 1024 * 1024);
  const timeoutMs = values.timeout === undefined ? DEFAULT_TIMEOUT_MS : bad.integer(values.timeout, '--timeout', 1, 3_600_000);

  let knowledge = new TokenKnowledge();
  let knowledgeTokens: Record<string, string> = {};
  let fixtureIds: { projects: unknown; goals: unknown; people: unknown } | undefined;
  const secrets: Array<[string, string]> = [];
  if (values.tokens !== undefined) {
    let text: string;
    try {
      text = readFileBounded(values.tokens, TOKENS_MAX_BYTES, `--tokens ${values.tokens}`);
    } catch (error) {
      bad.fail(printable(error instanceof Error ? error.message : String(error)));
    }
    const parsed = parseFixtures(text);
    // What the file holds is outside text: its keys and the parser's excerpt of it are printed escaped.
    if (!parsed.ok) bad.fail(printable(`--tokens ${values.tokens}: ${parsed.error}`));
    knowledge = new TokenKnowledge(parsed.fixtures);
    fixtureIds = { ...parsed.fixtures.records, people: parsed.fixtures.people };
    knowledgeTokens = Object.fromEntries(Object.entries(parsed.fixtures.tokens).filter((e): e is [string, string] => typeof e[1] === 'string'));
    for (const token of Object.values(parsed.fixtures.tokens ?? {})) if (typeof token === 'string' && token) secrets.push([token, knowledge.variable(token)]);
  }
  const report = values.report === undefined ? undefined : resolve(values.report);
  if (report !== undefined) {
    try {
      mkdirSync(dirname(report), { recursive: true });
    } catch (error) {
      bad.fail(`--report: cannot create the directory of ${values.report}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const recordMax =
    values['record-max-bytes'] === undefined
      ? DEFAULT_RECORD_MAX_BYTES
      : bad.integer(values['record-max-bytes'], '--record-max-bytes', 1024, 4 * 1024 * 1024 * 1024);
  let recorder: Recorder | undefined;
  if (values.record !== undefined) {
    const file = resolve(values.record);
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, '');
    } catch (error) {
      bad.fail(`--record: cannot write ${values.record}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const personas = Object.entries(knowledgeTokens).map(([persona, token]) => [token, persona] as const);
    recorder = new Recorder({
      file,
      origin: `${target.origin}${target.pathname.replace(/\/+$/, '')}`,
      personas,
      ...(fixtureIds ? { fixtures: fixtureIds } : {}),
      maxBytes: recordMax,
      onStop: (line) => process.stderr.write(`${line}\n`),
    });
  }
  const quiet = values.quiet === true;
  const extraHosts = values['allowed-host'] ?? [];
  bad.hosts(extraHosts);
  const proxy = createValidationProxy({
    target: target.href,
    allowedHosts: (port) => listenHosts(host, port, extraHosts),
    maxBodyBytes:
      values['max-body-bytes'] === undefined ? DEFAULT_MAX_BODY : bad.integer(values['max-body-bytes'], '--max-body-bytes', 1024, 256 * 1024 * 1024),
    knowledge,
    capacity,
    ...(recorder ? { onExchange: (request: RawRequest, received: Received) => recorder.add(request, received, new Date(), 0) } : {}),
    maxLogBytes,
    timeoutMs,
    onViolation: (entry) => {
      if (quiet) return;
      const errors = entry.errors;
      const lines = [
        `✗ #${entry.seq} ${entry.operation}: ${entry.method} ${entry.path} → ${entry.status} (${errors} violation${errors === 1 ? '' : 's'})`,
        ...entry.lines.map((l) => `  ${l}`),
        `  request: ${entry.request}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    },
  });
  let url: string;
  try {
    url = await proxy.listen(port, host);
  } catch (error) {
    bad.listenFailure(error, host, port);
  }
  const origin = `${target.origin}${target.pathname.replace(/\/+$/, '')}`;
  const lines = [
    `proxy listening on ${url} → ${origin}`,
    `port: ${new URL(url).port}`,
    `checks: ${Object.keys(RULES).join(', ')}${knowledge.hasTokens ? ' (with the personas of --tokens)' : ' (personas only as the traffic shows them: give --tokens for the persona rules)'}`,
    ...(recorder ? [`recording: ${values.record ?? ''} (HAR 1.2, credentials masked, up to ${recordMax} bytes)`] : []),
    `violations: GET ${url}/__proxy/violations · summary: GET ${url}/__proxy/summary · reset: POST ${url}/__proxy/reset${report ? ` · JUnit on exit: ${report}` : ''}`,
  ];
  if (!['127.0.0.1', '::1', 'localhost'].includes(host))
    lines.push(`warning: bound to ${host}, not loopback: anyone who can reach this address can send requests through it`);
  process.stdout.write(`${lines.join('\n')}\n`);

  await new Promise<void>((done) => {
    let closing = false;
    const shutdown = (signal: string): void => {
      if (closing) return;
      closing = true;
      const summary = proxy.log.summary(origin, knowledge.learned);
      recorder?.close();
      if (report !== undefined) {
        try {
          writeFileSync(report, proxy.junit());
        } catch (error) {
          process.stderr.write(`proxy: cannot write --report ${report}: ${error instanceof Error ? error.message : String(error)}\n`);
        }
      }
      const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
      process.stdout.write(
        `${signal}: ${count(summary.checked, 'exchange')} checked, ${summary.broken} broke the contract (${count(summary.violations, 'violation')}, ${count(summary.warnings, 'warning')})${report ? `; JUnit report: ${report}` : ''}\n`,
      );
      setTimeout(() => process.exit(0), 2000).unref();
      void proxy.close().then(() => {
        done();
        process.exit(0);
      });
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
  });
}
