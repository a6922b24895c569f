// The optional peer dependencies each command needs. A frontend team installs the package for `./msw` and `./client`
// and pays for nothing else; what only some commands need (the server, the suite's runner, Redis, Redocly) is an
// optional peer in package.json, and a command whose peers are missing exits 2 with one line giving the command that
// installs them, with the version ranges package.json declares (the one place they are written).
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The peers a command needs, by command (a command not listed needs none). */
export const COMMAND_PEERS: Readonly<Record<string, ReadonlyArray<string>>> = {
  mock: ['express'],
  contract: ['vitest', 'fast-check'],
  diff: ['@redocly/cli'],
};

/** What `mock --store redis://…` needs on top of the mock's peers. */
export const REDIS_PEERS: ReadonlyArray<string> = ['ioredis'];

/** What `mock --log-format json` needs on top of the mock's peers (its structured logger). */
export const JSON_LOG_PEERS: ReadonlyArray<string> = ['pino'];

/** What the mock's GET /__mock/metrics needs; without it the mock runs and that endpoint answers 501 with this line. */
export const METRICS_PEERS: ReadonlyArray<string> = ['prom-client'];

type Manifest = { name?: unknown; peerDependencies?: Record<string, string> };

/** package.json of this package: beside cli/ in the repository, two levels up from dist/cli/. */
function manifest(): Manifest {
  for (const up of ['../package.json', '../../package.json']) {
    try {
      const found: unknown = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8'));
      if (typeof found === 'object' && found !== null && 'name' in found && found.name === 'service-external-api') return found as Manifest;
    } catch {
      // not this level
    }
  }
  throw new Error('service-external-api: package.json not found beside the command line');
}

/** The package's version (package.json), or 'unknown'. */
export function packageVersion(): string {
  try {
    const version: unknown = (manifest() as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Whether `name` resolves from where this package is installed (as its own imports would resolve it). */
function installed(name: string): boolean {
  // The node_modules folders Node searches from here; a package.json there, whatever the package's `exports` allow.
  const folders = createRequire(import.meta.url).resolve.paths(name) ?? [];
  return folders.some((folder) => existsSync(join(folder, name, 'package.json')));
}

/**
 * The one line that says which peers `what` needs and how to install them, or undefined when all are there. The
 * versions are package.json's peerDependencies ranges, quoted for a POSIX shell.
 */
export function missingPeersLine(what: string, peers: ReadonlyArray<string>, isInstalled: (name: string) => boolean = installed): string | undefined {
  const missing = peers.filter((name) => !isInstalled(name));
  if (missing.length === 0) return undefined;
  const ranges = manifest().peerDependencies ?? {};
  const specs = missing.map((name) => `'${name}@${ranges[name] ?? 'latest'}'`);
  const names = missing.join(', ');
  return `error: ${what} needs ${names} (optional peer ${missing.length === 1 ? 'dependency' : 'dependencies'} of service-external-api, not installed): npm install --save-dev ${specs.join(' ')}`;
}

/** Exits 2 with that line when a peer is missing. */
export function requirePeers(what: string, peers: ReadonlyArray<string>): void {
  const line = missingPeersLine(what, peers);
  if (line === undefined) return;
  process.stderr.write(`${line}\n`);
  process.exit(2);
}
