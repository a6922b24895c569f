// The package's one command line, `service-external-api <command>` (the bin; npm start, npm run contract and npm run
// docs call the same functions): the top of the package, the one folder that imports every command's folder (below
// it, the proxy and the docs' try-it import parts of the mock: README.md, the table of folders). Each command is
// loaded only when asked for, so `mock` never loads the contract suite's test runner, and a command whose optional
// peers are missing exits 2 before loading anything (peers.ts).
import {
  COMMAND_PEERS,
  JSON_LOG_PEERS,
  METRICS_PEERS,
  missingPeersLine,
  nodeSatisfies,
  packageVersion,
  peerRangeWithout,
  REDIS_PEERS,
  requirePeers,
  runnerLine,
  VITEST_5_NODE,
} from './peers.ts';

const COMMANDS = {
  mock: 'the production-true mock server (on http://127.0.0.1:4010 unless told otherwise)',
  contract: 'the contract suite against an implementation URL (exit 0 pass, 1 violation, 2 bad configuration)',
  proxy: 'a validation proxy: forwards live traffic to --target and checks every exchange against the contract',
  docs: 'write the API reference as one self-contained HTML page',
  diff: 'compare two versions of the contract and grade every change (ERR breaks a client, WARN may, INFO is safe)',
  drift: 'check recorded traffic (a HAR file) offline with every rule the proxy checks live; sends nothing',
  replay: 'send a recording (HAR) again to --target and compare each answer with the recorded one',
  coverage: 'merge coverage JSON files (contract, drift, proxy) and fail below --min KEY=PERCENT',
} as const;
type Command = keyof typeof COMMANDS;

const isCommand = (word: string | undefined): word is Command => word !== undefined && Object.hasOwn(COMMANDS, word);

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length)) + 2;
  return [
    'Usage: service-external-api <command> [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, what]) => `  ${name.padEnd(width)}${what}`),
    '',
    '  service-external-api <command> --help   the options of one command',
    '  service-external-api --version          the package version',
  ].join('\n');
}

/** Runs one command; unknown commands and options are one line on stderr and exit 2. */
export async function main(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(`${usage()}\n`);
    return;
  }
  if (!isCommand(first)) {
    process.stderr.write(`error: unknown command "${first}"; the commands are ${Object.keys(COMMANDS).join(', ')} (see --help)\n`);
    process.exit(2);
  }
  // `--help` of a command needs nothing but the command's own module.
  if (!rest.some((word) => word === '--help' || word === '-h')) {
    const peers = [...(COMMAND_PEERS[first] ?? [])];
    // `mock --store redis://…` (or MOCK_STORE) keeps the state in Redis, through ioredis.
    if (first === 'mock' && (rest.some((word) => word === '--store' || word.startsWith('--store=')) || process.env['MOCK_STORE'])) peers.push(...REDIS_PEERS);
    // `mock --log-format json` writes its lines through pino.
    if (first === 'mock' && rest.some((word, i) => word === '--log-format=json' || (word === '--log-format' && rest[i + 1] === 'json')))
      peers.push(...JSON_LOG_PEERS);
    // `drift --spec` reads another version of the contract with the diff command's reader, which bundles with Redocly.
    if (first === 'drift' && rest.some((word) => word === '--spec' || word.startsWith('--spec='))) peers.push(...(COMMAND_PEERS['diff'] ?? []));
    // On a Node.js that vitest 5 refuses (20), the line that installs a missing runner offers the majors that run there.
    const vitest = first === 'contract' && !nodeSatisfies(VITEST_5_NODE, process.versions.node) ? peerRangeWithout('vitest', [5]) : undefined;
    requirePeers(`service-external-api ${first}`, peers, vitest === undefined ? {} : { vitest });
    // The project's vitest, where it does not run on this Node.js (vitest 5 on Node.js 20): one line with the npx
    // command that brings vitest 4 for this run.
    const runner = first === 'contract' ? runnerLine(rest) : undefined;
    if (runner !== undefined) {
      process.stderr.write(`${runner}\n`);
      process.exit(2);
    }
  }
  switch (first) {
    case 'mock':
      await (await import('../mock/src/server/serve.ts')).runMock(rest, {
        metricsMissing: missingPeersLine('GET /__mock/metrics', METRICS_PEERS)?.replace(/^error: /, ''),
      });
      return;
    case 'contract':
      await (await import('../contract-tests/run.ts')).runContract(rest);
      return;
    case 'proxy':
      await (await import('../contract-tests/proxy/main.ts')).main(rest);
      return;
    case 'docs':
      await (await import('../docs-site/command.ts')).runDocs(rest);
      return;
    case 'diff':
      await (await import('../spec/diff/command.ts')).runDiff(
        rest,
        rest.some((word) => word === '--traffic' || word.startsWith('--traffic='))
          ? (await import('../contract-tests/har/diff-traffic.ts')).withTraffic
          : undefined,
      );
      return;
    case 'drift':
      await (await import('../contract-tests/drift/command.ts')).runDrift(
        rest,
        packageVersion(),
        rest.some((word) => word === '--spec' || word.startsWith('--spec=')) ? (await import('../spec/diff/diff.ts')).loadDocument : undefined,
      );
      return;
    case 'replay':
      await (await import('../contract-tests/replay/command.ts')).runReplay(rest);
      return;
    case 'coverage':
      await (await import('../contract-tests/coverage/command.ts')).runCoverage(rest);
      return;
  }
}
