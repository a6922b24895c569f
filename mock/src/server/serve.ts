// The `mock` command: `service-external-api mock [options]`, which `npm start [-- options]` runs (cli/mock.cjs).
// With cli.ts, the only code that reads argv and the environment, listens, and prints. `npm start` adds
// `--max-semi-space-size=4`: it keeps V8's young generation small, where under load the default lets it grow to
// ~200 MB of RSS that is never given back.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { fixturesOf } from '../core/controls.ts';
import type { CoreOptions as MockOptions } from '../core/core.ts';
import { listenHosts } from './hosts.ts';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_MAX_HOLD_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_WAITING,
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
import type { Service } from './service.ts';
import type { RedisSessions } from '../storage/redisSessions.ts';

/** How long a drain waits for the requests in flight (--drain-ms). */
const DEFAULT_DRAIN_MS = 10_000;
/** How long the exit waits for the JSON log's last lines to be read (a reader that never reads does not hold it). */
const LOG_FLUSH_MS = 2000;

/** What the command line found of the optional peers the server may load after its start. */
export type ServerPeers = { metricsMissing?: string | undefined };

const USAGE = `Usage: service-external-api mock [options]     (in the repository: npm start -- [options])

Starts the production-true mock of the external API and prints its URL, tokens and fixture ids.

  --port N          port to listen on (default 4010, or $PORT); 0 picks a free port
  --host H          address to bind (default 127.0.0.1)
  --seed FILE       start from this seed (JSON {"state", "fixtures"}; see mock/docs/state.md)
  --delay MS        wait MS before every API answer; MIN-MAX waits a random time in that range
  --max-delay MS    how long a request with Prefer: fault=timeout is held before its connection is dropped
                    (default ${DEFAULT_MAX_HOLD_MS}; the client may give up first)
  --max-waiting N   delayed requests (--delay, Prefer: delay, a scenario's) that may wait at once (default
                    ${DEFAULT_MAX_WAITING}); one more gets the mock's 503 at once. A client that goes away stops its wait
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
                    operation, status, ms, session; never a token; needs the optional peer pino). A reader that
                    falls behind never holds up the mock: past 1 MB buffered, lines are dropped and counted
  --drain-ms N      on SIGTERM/SIGINT, let requests in flight finish for up to N ms, then exit 0 (default
                    ${DEFAULT_DRAIN_MS}); meanwhile GET /__mock/ready answers 503 and any other new request the mock's 503
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
  'max-waiting': { type: 'string' },
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

type Args = ReturnType<typeof parseMockArgs>;
type Fixtures = ReturnType<typeof fixturesOf>;

/** The command line read: --help answered, every option checked (a bad one is one line and exit 2). */
function parseMockArgs(argv: string[]) {
  const args = bad.parse(argv, OPTIONS);
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  return args.values;
}

/** Where to listen: --port (or $PORT) and --host. */
function listenAddress(values: Args): { port: number; host: string } {
  const envPort = process.env['PORT']?.trim() || undefined;
  const port = bad.integer(values.port ?? envPort ?? '4010', values.port !== undefined ? '--port' : 'PORT', 0, 65535);
  const host = values.host ?? '127.0.0.1';
  if (host.trim() === '') bad.fail('--host must not be empty');
  return { port, host };
}

/** --seed FILE, read and checked. */
async function readSeedOption(file: string): Promise<NonNullable<MockOptions['seed']>> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    bad.fail(`cannot read --seed ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { parseSeed } = await import('../domain/seedFile.ts');
  const parsed = parseSeed(text);
  if (!parsed.ok) bad.fail(`--seed ${file}: ${parsed.error}`);
  return parsed.seed;
}

/** --delay MS or MIN-MAX. */
function delayOption(text: string): NonNullable<MockOptions['delay']> {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!match?.[1]) bad.fail(`--delay must be MS or MIN-MAX in whole milliseconds, got "${text}"`);
  const min = bad.integer(match[1], '--delay', 0, MAX_DELAY_MS);
  const max = match[2] === undefined ? min : bad.integer(match[2], '--delay maximum', 0, MAX_DELAY_MS);
  if (max < min) bad.fail(`--delay ${text}: the maximum is below the minimum`);
  return { min, max };
}

/** --cors-origin and --no-cors. */
function corsOption(values: Args): NonNullable<MockOptions['cors']> {
  if (values['no-cors'] && values['cors-origin']) bad.fail('--no-cors and --cors-origin contradict each other');
  const origins = values['cors-origin'];
  for (const origin of origins ?? [])
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) bad.fail(`--cors-origin must be an origin like http://localhost:5173, got "${origin}"`);
  return values['no-cors'] ? { enabled: false } : origins ? { enabled: true, origins } : { enabled: true };
}

/** The core's options from the command line (the store and the Hosts are added once known). */
async function coreOptions(values: Args): Promise<MockOptions> {
  const options: MockOptions = {
    bodyLimit: values['body-limit'] === undefined ? DEFAULT_BODY_LIMIT : bad.integer(values['body-limit'], '--body-limit', 1, 256_000_000),
  };
  if (values.seed !== undefined) options.seed = await readSeedOption(values.seed);
  if (values.delay !== undefined) options.delay = delayOption(values.delay);
  if (values['max-delay'] !== undefined) options.maxDelay = bad.integer(values['max-delay'], '--max-delay', 0, MAX_HOLD_MS);
  if (values['max-waiting'] !== undefined) options.maxWaiting = bad.integer(values['max-waiting'], '--max-waiting', 1, 1_000_000);
  options.cors = corsOption(values);
  if (values['no-control']) options.control = false;
  const mode = values['self-check'];
  if (mode !== undefined) {
    if (!isSelfCheckMode(mode)) bad.fail(`--self-check must be ${SELF_CHECK_MODES.join(', ')}, got "${mode}"`);
    options.selfCheck = mode;
  }
  if (values['max-sessions'] !== undefined) options.maxSessions = bad.integer(values['max-sessions'], '--max-sessions', 1, 100_000);
  if (values['max-session-bytes'] !== undefined) options.maxSessionBytes = bad.integer(values['max-session-bytes'], '--max-session-bytes', 64 * 1024, 2 ** 32);
  if (values['max-total-bytes'] !== undefined) options.maxTotalBytes = bad.integer(values['max-total-bytes'], '--max-total-bytes', 1024 * 1024, 2 ** 40);
  return options;
}

/** The shared store of --store (or $MOCK_STORE), opened: the sessions in Redis (redisSessions.ts, loaded only then). */
async function openStore(values: Args, options: MockOptions): Promise<RedisSessions | undefined> {
  const store = values.store ?? (process.env['MOCK_STORE']?.trim() || undefined);
  if (store === undefined && values['store-prefix'] !== undefined) bad.fail('--store-prefix needs --store (or MOCK_STORE)');
  if (store === undefined) return undefined;
  const [{ openRedisSessions }, { defaultSeed }, { storeOptionsOf }] = await Promise.all([
    import('../storage/redisSessions.ts'),
    import('../domain/seed.ts'),
    import('../core/core.ts'),
  ]);
  options.seed ??= defaultSeed();
  const redisOptions = {
    name: values.store === undefined ? 'MOCK_STORE' : '--store',
    seed: options.seed,
    maxSessions: options.maxSessions,
    prefix: values['store-prefix'],
    storeOptions: storeOptionsOf(() => new Date(), options),
  };
  const redis = await openRedisSessions(store, redisOptions).catch((error: unknown) => bad.fail(error instanceof Error ? error.message : String(error)));
  options.sessions = redis;
  return redis;
}

/** What the operators are told besides the requests: the store lost and back, the drain. Text on stdout/stderr, or JSON lines. */
type Say = (level: 'info' | 'warn', text: string, msg: string, fields: Record<string, string | number>) => void;

function sayer(log: JsonLog | undefined): Say {
  return (level, text, msg, fields) => {
    if (log) log.event(msg, fields, level);
    else if (level === 'info') process.stdout.write(`${text}\n`);
    else process.stderr.write(`warning: ${text}\n`);
  };
}

/** A Redis outage and its recovery, told once each (the API's 503s and the ready probe say the rest meanwhile). */
function watchStore(redis: RedisSessions, say: Say): void {
  redis.onConnection((change) => {
    const store = `Redis at ${redis.url}`;
    if (change.up) say('info', `the mock's store (${store}) is back`, 'store back', { store });
    else
      say('warn', `the mock's store (${store}) is unreachable (${change.reason}): API requests get 503 until it is back`, 'store lost', {
        store,
        reason: change.reason,
      });
  });
}

/** The banner of --log-format text: the URL, the tokens and fixture ids, and what to try. */
function banner(fixtures: Fixtures, options: MockOptions, host: string, url: string, port: number, shared: string | undefined): string {
  const full = fixtures.tokens['full_access'] ?? '';
  const lines = [
    `mock listening on ${url}`,
    `port: ${port}`,
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
    `  curl -s ${url}/api/external/v1/projects/resume -H 'Authorization: Bearer ${full}' -H 'Content-Type: application/json' \\`,
    `    -d '{"project_id":"${fixtures.projects['paused'] ?? ''}","message":"{\\"type\\":\\"doc\\",\\"content\\":[]}"}'`,
    `  curl -s ${url}/api/external/v1/goals/close -H 'Authorization: Bearer ${full}' -H 'Content-Type: application/json' \\`,
    `    -d '{"goal_id":"${fixtures.goals['open'] ?? ''}","success":"yes","success_status":"achieved","retrospective":"{\\"type\\":\\"doc\\",\\"content\\":[]}"}'`,
    '',
    options.control === false
      ? 'control endpoints: off (--no-control)'
      : `fixtures as JSON: ${url}/__mock/fixtures · state: ${url}/__mock/state · reset: POST ${url}/__mock/reset`,
  ];
  if (shared) lines.push(shared);
  if (!['127.0.0.1', '::1', 'localhost'].includes(host))
    lines.push('', `warning: bound to ${host}, not loopback: anyone who can reach this address can use the tokens above`);
  return `${lines.join('\n')}\n`;
}

/** On SIGTERM/SIGINT: the drain (service.ts), what it cut off, the store closed after the last answer, exit 0. */
function onSignals(server: Server, service: Service, drainMs: number, log: JsonLog | undefined, closeStore: (() => Promise<void>) | undefined): void {
  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    if (log) log.event('draining', { signal, drain_ms: drainMs });
    else process.stdout.write(`${signal}: closing the mock (draining: requests in flight get up to ${drainMs} ms)\n`);
    const { ended, cutOff } = await service.drain(server, drainMs);
    if (log) log.event('closed', { signal, drain: ended, cut_off: cutOff }, cutOff > 0 ? 'warn' : 'info');
    else if (ended === 'timed out')
      process.stdout.write(
        `${signal}: ${cutOff === 1 ? '1 request' : `${cutOff} requests`} still in flight after ${drainMs} ms ${cutOff === 1 ? 'was' : 'were'} cut off\n`,
      );
    // The shared store's connection, if any, closes after the last answer that needed it.
    await closeStore?.().catch(() => undefined);
    await log?.flush(LOG_FLUSH_MS);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/** Runs the mock until SIGINT/SIGTERM; a bad option is one line on stderr and exit 2. */
export async function runMock(argv: string[], peers: ServerPeers = {}): Promise<void> {
  const values = parseMockArgs(argv);
  const { port, host } = listenAddress(values);
  const options = await coreOptions(values);
  const extraHosts = values['allowed-host'] ?? [];
  bad.hosts(extraHosts);
  let answered: ReadonlySet<string> = new Set();
  options.allowedHosts = () => answered;
  const logFormat = values['log-format'] ?? 'text';
  if (!isLogFormat(logFormat)) bad.fail(`--log-format must be ${LOG_FORMATS.join(' or ')}, got "${logFormat}"`);
  const drainMs = values['drain-ms'] === undefined ? DEFAULT_DRAIN_MS : bad.integer(values['drain-ms'], '--drain-ms', 0, 600_000);
  const log: JsonLog | undefined = logFormat === 'json' ? await (await import('./requestLog.ts')).jsonLog() : undefined;
  const redis = await openStore(values, options);
  const shared = redis && `state: in Redis at ${redis.url} (key prefix ${redis.prefix}), shared by every mock pointed there`;
  if (redis) watchStore(redis, sayer(log));
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
  const sources = { waiting: core.waiting, ...(log ? { logDropped: log.dropped } : {}) };
  const loadMetrics = async (): Promise<MockMetrics | string> => peers.metricsMissing ?? (await import('./metrics.ts')).loadMetrics(core.sessions, sources);
  const service = createService({ sessions: core.sessions, allowedHosts: () => answered, loadMetrics, log: log?.request });
  const startFailure = await core.ready;
  if (startFailure) bad.fail(`the mock could not start: ${startFailure.message.split('\n')[0] ?? ''}`);
  const server = createServer(service.listener(createHttpListener(core)));
  server.listen(port, host);
  server.on('error', (error) => bad.listenFailure(error, host, port));
  server.on('listening', () => {
    const address = server.address() as AddressInfo;
    answered = listenHosts(host, address.port, extraHosts);
    const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    // A log pipeline gets one JSON line, without the tokens: they are at GET /__mock/fixtures.
    if (log) log.event('mock listening', { url, port: address.port, fixtures: `${url}/__mock/fixtures`, ...(shared ? { store: shared } : {}) });
    else process.stdout.write(banner(fixturesOf(core.seed, core.seed.state), options, host, url, address.port, shared));
  });
  onSignals(server, service, drainMs, log, redis && (() => redis.close()));
}
