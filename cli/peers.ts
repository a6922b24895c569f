// The optional peer dependencies each command needs. A frontend team installs the package for `./msw` and `./client`
// and pays for nothing else; what only some commands need (the server, the suite's runner, Redis, Redocly) is an
// optional peer in package.json, and a command whose peers are missing exits 2 with one line giving the command that
// installs them, with the version ranges package.json declares (the one place they are written). The ranges are the
// ones spec/test/package.test.ts proves (the oldest and newest of each major, on Node.js 20 and 24), so an optional peer
// a project already has never stops `npm install`.
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The peers a command needs, by command (a command not listed needs none): what it loads. The `mock` command serves
 * through node:http (server/httpListener.ts) and loads no Express; `createMockApp` (./mock) is what needs express.
 * `diff` reads YAML specs with `yaml` and bundles `$ref`s with Redocly.
 */
export const COMMAND_PEERS: Readonly<Record<string, ReadonlyArray<string>>> = {
  contract: ['vitest', 'fast-check'],
  diff: ['@redocly/cli', 'yaml'],
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

/** The package.json of `name` as this package's own imports would find it (the first on Node's search path), or undefined. */
function peerManifestPath(name: string): string | undefined {
  // The node_modules folders Node searches from here; a package.json there, whatever the package's `exports` allow.
  const folders = createRequire(import.meta.url).resolve.paths(name) ?? [];
  return folders.map((folder) => join(folder, name, 'package.json')).find((file) => existsSync(file));
}

/** Whether `name` resolves from where this package is installed (as its own imports would resolve it). */
function installed(name: string): boolean {
  return peerManifestPath(name) !== undefined;
}

/** The version and the Node.js range (`engines.node`) of an installed peer, or undefined when it is not installed. */
function installedPeer(name: string): { version: string; node: string | undefined } | undefined {
  const file = peerManifestPath(name);
  if (file === undefined) return undefined;
  try {
    const found: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof found !== 'object' || found === null || !('version' in found) || typeof found.version !== 'string') return undefined;
    const engines = 'engines' in found && typeof found.engines === 'object' && found.engines !== null ? found.engines : {};
    const node = 'node' in engines && typeof engines.node === 'string' ? engines.node : undefined;
    return { version: found.version, node };
  } catch {
    return undefined;
  }
}

/**
 * Whether Node.js `version` (`20.20.2`) is within `range` as package.json `engines` write it: alternatives joined by
 * `||`, each `^X.Y.Z`, `>=X.Y.Z` or `X.x`. A form it does not read counts as satisfied: the runner itself has the last word.
 */
export function nodeSatisfies(range: string, version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split('.').map(Number);
  const at = major * 1e6 + minor * 1e3 + patch;
  return range.split('||').some((alternative) => {
    const m = /^\s*(\^|>=)?\s*(\d+)(?:\.(\d+|x))?(?:\.(\d+|x))?\s*$/.exec(alternative);
    if (!m) return true;
    const [low = 0, lowMinor = 0, lowPatch = 0] = [m[2], m[3], m[4]].map((part) => (part === undefined || part === 'x' ? 0 : Number(part)));
    const from = low * 1e6 + lowMinor * 1e3 + lowPatch;
    return m[1] === '>=' ? at >= from : major === low && at >= from;
  });
}

/** The Node.js versions vitest 5 runs on (its engines); on others the `contract` command takes vitest 3 or 4. */
export const VITEST_5_NODE = '^22.12.0 || ^24.0.0 || >=26.0.0';

/** package.json's peer range of `name` without its alternatives of the majors given (`^5.0.0` of `vitest`). */
export function peerRangeWithout(name: string, majors: ReadonlyArray<number>): string | undefined {
  const range = manifest().peerDependencies?.[name];
  if (range === undefined) return undefined;
  const kept = range.split('||').filter((alternative) => !majors.includes(Number(/\d+/.exec(alternative)?.[0])));
  return kept.length > 0 ? kept.map((alternative) => alternative.trim()).join(' || ') : range;
}

/** A word as a POSIX shell reads it back: as it is when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * When the project's vitest does not run on this Node.js (vitest 5 on Node.js 20), the one line saying so and giving
 * the command that runs the suite with a vitest that does, with the same arguments (file paths made absolute); else
 * undefined. The command runs npx in an empty folder: npx takes a package the project already has from the project,
 * where the package would find the project's vitest again, so there it installs all three into its own cache. A vitest
 * that is not installed is missingPeersLine's to say.
 */
export function runnerLine(
  argv: ReadonlyArray<string>,
  nodeVersion: string = process.versions.node,
  peer = installedPeer('vitest'),
  cwd: string = process.cwd(),
): string | undefined {
  if (peer?.node === undefined || nodeSatisfies(peer.node, nodeVersion)) return undefined;
  const args = argv.map((word, i) => {
    const option = /^--(report|coverage)=(.+)$/.exec(word);
    if (option) return `--${option[1]}=${resolve(cwd, option[2] ?? '')}`;
    return argv[i - 1] === '--report' || argv[i - 1] === '--coverage' ? resolve(cwd, word) : word;
  });
  const npx = [
    'npx',
    '--yes',
    '-p',
    `service-external-api@${packageVersion()}`,
    '-p',
    'vitest@4',
    '-p',
    'fast-check@4',
    'service-external-api',
    'contract',
    ...args,
  ];
  return `error: service-external-api contract: this project's vitest ${peer.version} needs Node.js ${peer.node}, and this is Node.js v${nodeVersion.replace(/^v/, '')}; run the suite with vitest 4, which runs here: (cd "$(mktemp -d)" && ${npx.map(shellWord).join(' ')})`;
}

/**
 * The one line that says which peers `what` needs and how to install them, or undefined when all are there. The
 * versions are package.json's peerDependencies ranges (or `narrower` ones), quoted for a POSIX shell.
 */
export function missingPeersLine(
  what: string,
  peers: ReadonlyArray<string>,
  isInstalled: (name: string) => boolean = installed,
  narrower: Readonly<Record<string, string>> = {},
): string | undefined {
  const missing = peers.filter((name) => !isInstalled(name));
  if (missing.length === 0) return undefined;
  const ranges = { ...manifest().peerDependencies, ...narrower };
  const specs = missing.map((name) => `'${name}@${ranges[name] ?? 'latest'}'`);
  const names = missing.join(', ');
  return `error: ${what} needs ${names} (optional peer ${missing.length === 1 ? 'dependency' : 'dependencies'} of service-external-api, not installed): npm install --save-dev ${specs.join(' ')}`;
}

/** Exits 2 with that line when a peer is missing (`narrower`: a range to suggest instead of package.json's). */
export function requirePeers(what: string, peers: ReadonlyArray<string>, narrower: Readonly<Record<string, string>> = {}): void {
  const line = missingPeersLine(what, peers, installed, narrower);
  if (line === undefined) return;
  process.stderr.write(`${line}\n`);
  process.exit(2);
}
