// The `mock` command: `service-external-api mock [options]`, which `npm start [-- options]` runs (cli/mock.cjs).
// With cli.ts, the only code that reads argv and the environment, listens, and prints. `npm start` adds
// `--max-semi-space-size=4`: it keeps V8's young generation small, where under load the default lets it grow to
// ~200 MB of RSS that is never given back.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { CoreOptions as MockOptions } from '../core/core.ts';
import { listenHosts } from './hosts.ts';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_MAX_HOLD_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_BYTES,
  DEFAULT_TOTAL_BYTES,
  isSelfCheckMode,
  MAX_DELAY_MS,
  MAX_HOLD_MS,
  SAMPLE_EVERY,
  SAMPLE_FIRST,
  SELF_CHECK_MODES,
} from '../limits.ts';
import { optionErrors, type OptionErrors } from './options.ts';
import type { MockMetrics } from './metrics.ts';
import { isLogFormat, LOG_FORMATS, type JsonLog } from './requestLog.ts';

/** How long a drain waits for the requests in flight (--drain-ms). */
const DEFAULT_DRAIN_MS = 10_000;

/** What the command line found of the optional peers the server may load after its start. */
export type ServerPeers = { metricsMissing?: string | undefined };

const USAGE = `Usage: service-external-api mock [options]     (in the repository: npm start -- [options])

Starts the production-true mock of the external API and prints its URL, tokens and fixture ids.

  --port N          port to listen on (default 4010, or $PORT); 0 picks a free port
  --host H          address to bind (default 127.0.0.1)
  --seed FILE       start from this seed (JSON {"state", "fixtures"}; see mock/README.md)
  --delay MS        wait MS before every API answer; MIN-MAX waits a random time in that range
  --max-delay MS    how long a request with Prefer: fault=timeout is held before its connection is dropped
                    (default ${DEFAULT_MAX_HOLD_MS}; the client may give up first)
  --cors-origin O   allow only this browser origin (repeatable; default: reflect any origin)
  --no-cors         no CORS headers and no preflight answers, as production
  --no-control      do not serve the /__mock/ control endpoints
  --allowed-host H  also answer requests whose Host is H (repeatable; NAME:PORT, or NAME for that name on any port
                    and with none): behind a load balancer or a DNS name. Any other Host gets 421 (DNS rebinding)
  --max-sessions N  X-Mock-Session sessions kept before the least recently used is dropped (default ${DEFAULT_MAX_SESSIONS})
  --body-limit N    largest request body in bytes (default ${DEFAULT_BODY_LIMIT})
  --max-session-bytes N
                    rich text one session keeps, in bytes (default ${DEFAULT_SESSION_BYTES}): the oldest comment threads
                    go first; a write whose document alone is larger gets the mock's 507, and changes nothing
  --max-total-bytes N
                    what all sessions keep together, in bytes (default ${DEFAULT_TOTAL_BYTES}): past it the least
                    recently used sessions are dropped (in-memory sessions; Redis keeps them)
  --self-check M    check answers against the spec before sending them (a violation is a 500 naming it):
                      always  every answer (default): nothing off-spec ever leaves the mock
                      sample  the first ${SAMPLE_FIRST} answers of each operation, status and error code, then 1 in ${SAMPLE_EVERY}:
                              a fault that every answer of a kind has is still caught on its first; a rarer one may pass
                      off     none: the spec's conformance rests on the test suite alone (load tests of your own code)
  --store URL       keep the state in Redis, shared by every mock pointed at it: redis://host:port/db (or $MOCK_STORE)
  --store-prefix P  key prefix in Redis (default service-external-api)
  --log-format F    text (default: the banner, for people) or json (one line per request: time, method, path,
                    operation, status, ms, session; never a token; needs the optional peer pino)
  --drain-ms N      on SIGTERM/SIGINT, stop accepting and let requests in flight finish for up to N ms, then exit 0
                    (default ${DEFAULT_DRAIN_MS}); GET /__mock/ready answers 503 meanwhile
  --help            show this help`;

/** Bad options: one line, exit 2 (a const with a declared type, so `never` narrows). */
const bad: OptionErrors = optionErrors('error');

/** The mock command's options, as node:util parseArgs reads them. */
const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  seed: { type: 'string' },
  'body-limit': { type: 'string' },
  delay: { type: 'string' },
  'max-delay': { type: 'string' },
  'cors-origin': { type: 'string', multiple: true },
  'no-cors': { type: 'boolean' },
  'no-control': { type: 'boolean' },
  'allowed-host': { type: 'string', multiple: true },
  'max-sessions': { type: 'string' },
  'max-session-bytes': { type: 'string' },
  'max-total-bytes': { type: 'string' },
  'self-check': { type: 'string' },
  store: { type: 'string' },
  'store-prefix': { type: 'string' },
  'log-format': { type: 'string' },
  'drain-ms': { type: 'string' },
  help: { type: 'boolean' },
} as const;

/** Runs the mock until SIGINT/SIGTERM; a bad option is one line on stderr and exit 2. */
export async function runMock(argv: string[], peers: ServerPeers = {}): Promise<void> {
  const args = bad.parse(argv, OPTIONS);
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }

  const envPort = process.env['PORT']?.trim() || undefined;
  const port = bad.integer(args.values.port ?? envPort ?? '4010', args.values.port !== undefined ? '--port' : 'PORT', 0, 65535);
  const host = args.values.host ?? '127.0.0.1';
  if (host.trim() === '') bad.fail('--host must not be empty');
  const bodyLimit = args.values['body-limit'] === undefined ? DEFAULT_BODY_LIMIT : bad.integer(args.values['body-limit'], '--body-limit', 1, 256_000_000);
  let seed: MockOptions['seed'];
  if (args.values.seed !== undefined) {
    let text: string;
    try {
      text = readFileSync(args.values.seed, 'utf8');
    } catch (error) {
      bad.fail(`cannot read --seed ${args.values.seed}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const { parseSeed } = await import('../domain/seedFile.ts');
    const parsed = parseSeed(text);
    if (!parsed.ok) bad.fail(`--seed ${args.values.seed}: ${parsed.error}`);
    seed = parsed.seed;
  }

  const options: MockOptions = { bodyLimit };
  if (seed) options.seed = seed;
  if (args.values.delay !== undefined) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(args.values.delay);
    if (!match?.[1]) bad.fail(`--delay must be MS or MIN-MAX in whole milliseconds, got "${args.values.delay}"`);
    const min = bad.integer(match[1], '--delay', 0, MAX_DELAY_MS);
    const max = match[2] === undefined ? min : bad.integer(match[2], '--delay maximum', 0, MAX_DELAY_MS);
    if (max < min) bad.fail(`--delay ${args.values.delay}: the maximum is below the minimum`);
    options.delay = { min, max };
  }
  if (args.values['max-delay'] !== undefined) options.maxDelay = bad.integer(args.values['max-delay'], '--max-delay', 0, MAX_HOLD_MS);
  if (args.values['no-cors'] && args.values['cors-origin']) bad.fail('--no-cors and --cors-origin contradict each other');
  const origins = args.values['cors-origin'];
  for (const origin of origins ?? [])
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) bad.fail(`--cors-origin must be an origin like http://localhost:5173, got "${origin}"`);
  options.cors = args.values['no-cors'] ? { enabled: false } : origins ? { enabled: true, origins } : { enabled: true };
  if (args.values['no-control']) options.control = false;
  const extraHosts = args.values['allowed-host'] ?? [];
  bad.hosts(extraHosts);
  let answered: ReadonlySet<string> = new Set();
  options.allowedHosts = () => answered;
  const mode = args.values['self-check'];
  if (mode !== undefined) {
    if (!isSelfCheckMode(mode)) bad.fail(`--self-check must be ${SELF_CHECK_MODES.join(', ')}, got "${mode}"`);
    options.selfCheck = mode;
  }
  if (args.values['max-sessions'] !== undefined) options.maxSessions = bad.integer(args.values['max-sessions'], '--max-sessions', 1, 100_000);
  if (args.values['max-session-bytes'] !== undefined)
    options.maxSessionBytes = bad.integer(args.values['max-session-bytes'], '--max-session-bytes', 64 * 1024, 2 ** 32);
  if (args.values['max-total-bytes'] !== undefined)
    options.maxTotalBytes = bad.integer(args.values['max-total-bytes'], '--max-total-bytes', 1024 * 1024, 2 ** 40);
  const logFormat = args.values['log-format'] ?? 'text';
  if (!isLogFormat(logFormat)) bad.fail(`--log-format must be ${LOG_FORMATS.join(' or ')}, got "${logFormat}"`);
  const drainMs = args.values['drain-ms'] === undefined ? DEFAULT_DRAIN_MS : bad.integer(args.values['drain-ms'], '--drain-ms', 0, 600_000);
  const log: JsonLog | undefined = logFormat === 'json' ? await (await import('./requestLog.ts')).jsonLog() : undefined;
  // --store: the sessions in Redis (mock/src/storage/redisSessions.ts, loaded only then), so several mock processes share one state.
  const store = args.values.store ?? (process.env['MOCK_STORE']?.trim() || undefined);
  let shared: string | undefined;
  let closeStore: (() => Promise<void>) | undefined;
  if (store === undefined && args.values['store-prefix'] !== undefined) bad.fail('--store-prefix needs --store (or MOCK_STORE)');
  if (store !== undefined) {
    const [{ openRedisSessions }, { defaultSeed }, { storeOptionsOf }] = await Promise.all([
      import('../storage/redisSessions.ts'),
      import('../domain/seed.ts'),
      import('../core/core.ts'),
    ]);
    options.seed ??= defaultSeed();
    const redisOptions = {
      name: args.values.store === undefined ? 'MOCK_STORE' : '--store',
      seed: options.seed,
      maxSessions: options.maxSessions,
      prefix: args.values['store-prefix'],
      storeOptions: storeOptionsOf(() => new Date(), options),
    };
    const redis = await openRedisSessions(store, redisOptions).catch((error: unknown) => bad.fail(error instanceof Error ? error.message : String(error)));
    options.sessions = redis;
    closeStore = () => redis.close();
    shared = `state: in Redis at ${redis.url} (key prefix ${redis.prefix}), shared by every mock pointed there`;
  }
  // Loaded after the options are read: --help and a bad option answer before the server's modules load. The server is
  // node:http over the core (httpListener.ts): no framework on a replica's start.
  const [{ createMockCore }, { fixturesOf }, { createServer }, { createHttpListener }, { createService }] = await Promise.all([
    import('../core/core.ts'),
    import('../core/controls.ts'),
    import('node:http'),
    import('./httpListener.ts'),
    import('./service.ts'),
  ]);
  const core = createMockCore(options);
  // The metrics (prom-client) load after the first answer or at the first scrape, off the cold start's path.
  const loadMetrics = async (): Promise<MockMetrics | string> => peers.metricsMissing ?? (await import('./metrics.ts')).loadMetrics(core.sessions);
  const service = createService({ sessions: core.sessions, allowedHosts: () => answered, loadMetrics, log: log?.request });
  const startFailure = await core.ready;
  if (startFailure) bad.fail(`the mock could not start: ${startFailure.message.split('\n')[0] ?? ''}`);
  const server = createServer(service.listener(createHttpListener(core)));
  server.listen(port, host);
  server.on('error', (error) => bad.listenFailure(error, host, port));
  server.on('listening', () => {
    const address = server.address() as AddressInfo;
    answered = listenHosts(host, address.port, extraHosts);
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${shownHost}:${address.port}`;
    if (log) {
      // A log pipeline gets one JSON line, without the tokens: they are at GET /__mock/fixtures.
      log.event('mock listening', { url, port: address.port, fixtures: `${url}/__mock/fixtures`, ...(shared ? { store: shared } : {}) });
      return;
    }
    const fixtures = fixturesOf(core.seed, core.seed.state);
    const lines = [
      `mock listening on ${url}`,
      `port: ${address.port}`,
      '',
      'tokens by persona:',
      ...Object.entries(fixtures.tokens).map(([persona, token]) => `  ${persona.padEnd(13)} ${token}`),
      '',
      'projects:',
      ...Object.entries(fixtures.projects).map(([story, id]) => `  ${story.padEnd(13)} ${id}`),
      'goals:',
      ...Object.entries(fixtures.goals).map(([story, id]) => `  ${story.padEnd(13)} ${id}`),
      'people:',
      ...Object.entries(fixtures.people).map(([persona, id]) => `  ${persona.padEnd(13)} ${id}`),
      '',
      'try:',
      `  curl -s ${url}/api/external/v1/projects/resume -H 'Authorization: Bearer ${fixtures.tokens['full_access'] ?? ''}' -H 'Content-Type: application/json' \\`,
      `    -d '{"project_id":"${fixtures.projects['paused'] ?? ''}","message":"{\\"type\\":\\"doc\\",\\"content\\":[]}"}'`,
      `  curl -s ${url}/api/external/v1/goals/close -H 'Authorization: Bearer ${fixtures.tokens['full_access'] ?? ''}' -H 'Content-Type: application/json' \\`,
      `    -d '{"goal_id":"${fixtures.goals['open'] ?? ''}","success":"yes","success_status":"achieved","retrospective":"{\\"type\\":\\"doc\\",\\"content\\":[]}"}'`,
      '',
      options.control === false
        ? 'control endpoints: off (--no-control)'
        : `fixtures as JSON: ${url}/__mock/fixtures · state: ${url}/__mock/state · reset: POST ${url}/__mock/reset`,
    ];
    if (shared) lines.push(shared);
    if (!['127.0.0.1', '::1', 'localhost'].includes(host))
      lines.push('', `warning: bound to ${host}, not loopback: anyone who can reach this address can use the tokens above`);
    process.stdout.write(`${lines.join('\n')}\n`);
  });

  let closing = false;
  function shutdown(signal: string): void {
    if (closing) return;
    closing = true;
    if (log) log.event('draining', { signal, drain_ms: drainMs });
    else process.stdout.write(`${signal}: closing the mock (draining: requests in flight get up to ${drainMs} ms)\n`);
    void service.drain(server, drainMs).then(async (ended) => {
      if (log) log.event('closed', { signal, drain: ended });
      else if (ended === 'timed out') process.stdout.write(`${signal}: requests still in flight after ${drainMs} ms were cut off\n`);
      // The shared store's connection, if any, closes after the last answer that needed it.
      await closeStore?.().catch(() => undefined);
      process.exit(0);
    });
  }
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
