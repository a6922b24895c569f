// The optional peers each command asks for (cli/peers.ts), in process: which command needs which peer, the Node.js
// ranges the contract command compares with its vitest, and the one line it prints where that vitest refuses the
// Node.js. spec/test/package.test.ts runs the same from installed consumer projects on Node.js 20 and 24.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_PEERS, missingPeersLine, nodeSatisfies, peerRangeWithout, runnerLine, shellWord, VITEST_5_NODE } from '../../cli/peers.ts';
import { ROOT } from './run.ts';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

describe('which command needs which optional peer', () => {
  it('mock needs none (it serves through node:http), contract its runner, diff Redocly and yaml', () => {
    expect(COMMAND_PEERS['mock']).toBeUndefined();
    expect(COMMAND_PEERS['contract']).toEqual(['vitest', 'fast-check']);
    expect(COMMAND_PEERS['diff']).toEqual(['@redocly/cli', 'yaml']);
    expect(readFileSync(join(ROOT, 'mock', 'src', 'server', 'serve.ts'), 'utf8')).not.toMatch(/from 'express'|import\('express'\)|\/app\.ts'/);
  });

  it('every peer a command names is an optional peer of package.json, and yaml is no longer a dependency of everyone', () => {
    for (const name of Object.values(COMMAND_PEERS).flat()) {
      expect(manifest.peerDependencies[name], name).toBeDefined();
      expect(manifest.peerDependenciesMeta[name]?.optional, name).toBe(true);
    }
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['ajv', 'ajv-formats', 'openapi-fetch']);
  });
});

describe('the Node.js ranges of a runner', () => {
  it('reads engines as vitest 3, 4 and 5 write them', () => {
    expect(nodeSatisfies(VITEST_5_NODE, '20.20.2')).toBe(false);
    expect(nodeSatisfies(VITEST_5_NODE, '22.11.0')).toBe(false);
    expect(nodeSatisfies(VITEST_5_NODE, '22.12.0')).toBe(true);
    expect(nodeSatisfies(VITEST_5_NODE, 'v24.9.0')).toBe(true);
    expect(nodeSatisfies(VITEST_5_NODE, '25.0.0')).toBe(false);
    expect(nodeSatisfies(VITEST_5_NODE, '26.1.0')).toBe(true);
    expect(nodeSatisfies('^20.0.0 || ^22.0.0 || >=24.0.0', '20.20.2')).toBe(true);
    expect(nodeSatisfies('^18.0.0 || ^20.0.0 || >=22.0.0', '21.0.0')).toBe(false);
    // A form it does not read leaves the decision to the runner.
    expect(nodeSatisfies('>=20 <21 || 1.2.3 - 4.5.6', '10.0.0')).toBe(true);
  });

  it('offers the vitest majors that run on a Node.js vitest 5 refuses', () => {
    expect(peerRangeWithout('vitest', [5])).toBe('^3.0.0 || ^4.0.1');
    expect(missingPeersLine('service-external-api contract', ['vitest', 'fast-check'], () => false, { vitest: '^3.0.0 || ^4.0.1' })).toBe(
      `error: service-external-api contract needs vitest, fast-check (optional peer dependencies of service-external-api, not installed): npm install --save-dev 'vitest@^3.0.0 || ^4.0.1' 'fast-check@${manifest.peerDependencies['fast-check']}'`,
    );
  });
});

describe('the line the contract command prints where its vitest refuses the Node.js', () => {
  const vitest5 = { version: '5.1.1', node: VITEST_5_NODE };

  it('is nothing where the vitest runs (a missing vitest is the missing-peers line, said first)', () => {
    expect(runnerLine(['--base-url', 'http://127.0.0.1:4010'], '24.9.0', vitest5)).toBeUndefined();
    expect(runnerLine([], '20.20.2', { version: '4.1.12', node: '^20.0.0 || ^22.0.0 || >=24.0.0' })).toBeUndefined();
  });

  it('gives npx in an empty folder with vitest 4, the same arguments, and report paths made absolute', () => {
    const line = runnerLine(
      ['--base-url', 'https://staging.example.com', '--report', 'reports/c.xml', '--coverage=cov.json', "it's"],
      '20.20.2',
      vitest5,
      '/home/qa/app',
    );
    expect(line).toBe(
      `error: service-external-api contract: this project's vitest 5.1.1 needs Node.js ${VITEST_5_NODE}, and this is Node.js v20.20.2; run the suite with vitest 4, which runs here: (cd "$(mktemp -d)" && npx --yes -p service-external-api@${manifest.version} -p vitest@4 -p fast-check@4 service-external-api contract --base-url https://staging.example.com --report /home/qa/app/reports/c.xml --coverage=/home/qa/app/cov.json 'it'\\''s')`,
    );
  });

  it('quotes a word for a POSIX shell only when it must', () => {
    expect(shellWord('https://x.example/a?b')).toBe("'https://x.example/a?b'");
    expect(shellWord('--base-url=http://127.0.0.1:4010')).toBe('--base-url=http://127.0.0.1:4010');
    expect(shellWord('$(rm -rf ~)')).toBe("'$(rm -rf ~)'");
  });
});
