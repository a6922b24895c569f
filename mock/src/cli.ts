// The package's one command line, `service-external-api <command>` (the bin; npm start, npm run contract and npm run
// docs call the same functions). Each command is loaded only when asked for, so `mock` never loads the contract suite's
// test runner.
import { readFileSync } from 'node:fs';

const COMMANDS = {
  mock: 'the production-true mock server (what npm start runs)',
  contract: 'the contract suite against an implementation URL (exit 0 pass, 1 violation, 2 bad configuration)',
  proxy: 'a validation proxy: forwards live traffic to --target and checks every exchange against the contract',
  docs: 'write the API reference as one self-contained HTML page',
  diff: 'compare two versions of the contract and grade every change (ERR breaks a client, WARN may, INFO is safe)',
} as const;
type Command = keyof typeof COMMANDS;

const isCommand = (word: string | undefined): word is Command => word !== undefined && Object.hasOwn(COMMANDS, word);

/** The package's version, from the package.json above this file (two levels in the repository, three in dist/). */
export function packageVersion(): string {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const manifest: unknown = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8'));
      if (typeof manifest === 'object' && manifest !== null && 'name' in manifest && manifest.name === 'service-external-api' && 'version' in manifest && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // not this level
    }
  }
  return 'unknown';
}

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
  switch (first) {
    case 'mock':
      await (await import('./serve.ts')).runMock(rest);
      return;
    case 'contract':
      await (await import('../../contract-tests/run.ts')).runContract(rest);
      return;
    case 'proxy':
      await (await import('../../contract-tests/proxy/main.ts')).main(rest);
      return;
    case 'docs':
      await (await import('../../docs-site/command.ts')).runDocs(rest);
      return;
    case 'diff':
      await (await import('../../spec/diff/command.ts')).runDiff(rest);
      return;
  }
}
