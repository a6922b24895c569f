// What `npm run release` checks before it writes anything: that the spec lints (each problem as one line naming the
// file, the place, the rule and why), and that the version is a bump at least as large as the changes since the last
// release need (spec/README.md, "The contract through change").
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { type Change, semver } from '../diff/diff.ts';
import { isObject } from '../lib/openapi.ts';

/** The spec's lint problems in a checkout (spec/openapi.yaml with spec/redocly.yaml), one line each, errors first. */
export function lintProblems(checkout: string): Promise<string[]> {
  const redocly = join(checkout, 'node_modules', '.bin', 'redocly');
  const args = ['lint', 'spec/openapi.yaml', '--config', 'spec/redocly.yaml', '--format', 'json'];
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  return new Promise((done) => {
    execFile(redocly, args, { cwd: checkout, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 300_000 }, (error, stdout, stderr) => {
      let report: unknown;
      try {
        report = JSON.parse(stdout);
      } catch {
        const said = stderr.split('\n').find((l) => l.trim() !== '' && !/^\s*at /.test(l)) ?? `exit ${String(error?.code ?? '?')}`;
        done([`redocly lint could not read the spec (${said.trim().slice(0, 200)})`]);
        return;
      }
      const problems = isObject(report) && Array.isArray(report['problems']) ? report['problems'].filter(isObject) : [];
      const lines = problems
        .sort((a, b) => Number(b['severity'] === 'error') - Number(a['severity'] === 'error'))
        .map((problem) => {
          const location = Array.isArray(problem['location']) && isObject(problem['location'][0]) ? problem['location'][0] : {};
          const source = isObject(location['source']) ? String(location['source']['ref'] ?? '') : '';
          const start = isObject(location['start']) ? ` line ${String(location['start']['line'])}` : '';
          const from = isObject(problem['from']) && isObject(problem['from']['source']) ? `, used by ${String(problem['from']['source']['ref'])}` : '';
          const message = String(problem['message'] ?? '').replace(/\s+/g, ' ');
          return `${source}${String(location['pointer'] ?? '')} (${String(problem['severity'])} ${String(problem['ruleId'])}${start}${from}): ${message}`;
        });
      done(lines);
    });
  });
}

export type Bump = 'major' | 'minor' | 'patch';

/** Changes that add to the contract without breaking it: a minor version from 1.0 on (a patch one while 0.x). */
const ADDITIONS = new Set(['operation-added', 'response-property-added', 'request-property-added', 'request-enum-widened', 'response-added']);

/**
 * The smallest bump `changes` since `last` need, as semver reads them for a client: a breaking (ERR) change a major
 * one (a minor one while 0.x), an addition a minor one (a patch one while 0.x), anything else a patch. `allows`
 * says whether a version is at least that.
 */
export function bumpNeeded(
  last: string,
  changes: ReadonlyArray<Change>,
): { bump: Bump; least: string; reason: string; allows(v: string): boolean } | undefined {
  const from = semver(last);
  if (!from) return undefined;
  const [major, minor, patch] = from;
  const breaking = changes.filter((c) => c.level === 'ERR');
  const adding = changes.filter((c) => ADDITIONS.has(c.id));
  const zero = major === 0;
  let bump: Bump = 'patch';
  let least = `${major}.${minor}.${patch + 1}`;
  let why = 'a release';
  const listed = (found: ReadonlyArray<Change>): string =>
    `${[...new Set(found.map((c) => `${c.operation ?? '(document)'} ${c.id}`))].slice(0, 3).join(', ')}${found.length > 3 ? ', …' : ''}`;
  if (breaking.length > 0) {
    [bump, least] = zero ? ['minor', `0.${minor + 1}.0`] : ['major', `${major + 1}.0.0`];
    why = `${breaking.length} breaking change${breaking.length === 1 ? '' : 's'} since ${last} (${listed(breaking)})`;
  } else if (adding.length > 0 && !zero) {
    [bump, least] = ['minor', `${major}.${minor + 1}.0`];
    why = `${adding.length} addition${adding.length === 1 ? '' : 's'} since ${last} (${listed(adding)})`;
  }
  const need = semver(least) ?? [0, 0, 0];
  return {
    bump,
    least,
    reason: `${why} need${breaking.length + adding.length === 1 ? 's' : ''} a ${bump} bump${zero && bump === 'minor' ? ' (breaking while 0.x)' : ''}: ${least} or above`,
    allows: (v) => {
      const got = semver(v);
      return got !== undefined && (got[0] - need[0] || got[1] - need[1] || got[2] - need[2]) >= 0;
    },
  };
}
