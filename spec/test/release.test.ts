// `npm run release` obeys the version policy and releases all or nothing, run in a
// repository of its own in the temporary folder (never this checkout's git): a bump smaller than the changes need is
// refused in one line naming the bump needed; a spec that does not lint is refused in one line naming the file, the
// rule and why; neither changes a file. A release that goes through releases the working tree:
// it writes every file, puts the behaviour the working tree's mock changed since the last release into the CHANGELOG
// (an uncommitted template change included), records what it released as a commit of its own without moving HEAD or
// the index, and the next release starts from that commit.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRelease } from '../tools/release.ts';
import { type Ran, run, tempRepo } from './temp-repo.ts';

const work = mkdtempSync(join(tmpdir(), 'release-'));
const repo = join(work, 'repo');
let git: Awaited<ReturnType<typeof tempRepo>>['git'];
const release = (args: string[]): Promise<Ran> => run(process.execPath, [join(repo, 'spec', 'tools', 'release.ts'), ...args], repo, 400_000);

/** A hash of every file of the repository but node_modules and .git: what "nothing changed" compares. */
function snapshot(dir = repo): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      if (name === 'node_modules' || name === '.git') continue;
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path), createHash('sha256').update(readFileSync(path)).digest('hex'));
    }
  };
  walk(dir);
  return out;
}

const edit = (path: string, from: RegExp, to: string): void => {
  const file = join(repo, path);
  const text = readFileSync(file, 'utf8');
  const next = text.replace(from, to);
  expect(next, `${path} has ${from}`).not.toBe(text);
  writeFileSync(file, next);
};

const expectRefused = (ran: Ran, line: RegExp): void => {
  expect([ran.code, ran.stdout]).toEqual([2, '']);
  expect(ran.stderr.trim().split('\n')).toHaveLength(1);
  expect(ran.stderr.trim()).toMatch(line);
};

beforeAll(async () => {
  ({ git } = await tempRepo(repo));
  // The last release's commit, as `release` records it.
  const head = (await git(['rev-parse', 'HEAD'])).stdout.trim();
  const [last] = readdirSync(join(repo, 'spec', 'releases'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .reverse();
  writeFileSync(join(repo, 'spec', 'releases', (last ?? '').replace(/\.json$/, '.commit')), `${head}\n`);
  // A breaking change to the spec (a documented status removed) and to the mock (a comment-only caller gets 500).
  edit('spec/paths/projects_resume.yaml', /^ {4}'406':\n {6}\$ref: .*\n/m, '');
  edit('mock/src/operations/outcome.ts', /forbidden: errors\.FORBIDDEN,/, 'forbidden: errors.OPERATION_FAILED,');
  expect((await git(['add', '-A'])).code).toBe(0);
  expect((await git(['commit', '--quiet', '-m', 'breaking changes'])).code).toBe(0);
  // Not committed: a message template reworded, so the working tree's mock answers a request missing a field with
  // 500. The release releases the working tree, so it lists that.
  edit('spec/components/messages.yaml', /^( {2}missingFields: )'Missing required fields: \{names\}'$/m, "$1'Required fields missing: {names}'");
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the CHANGELOG a release writes', () => {
  const intro = '# Changelog\n\nThe changes, newest first.\n\n';
  const released = '## 0.1.0 - 2026-11-24\n\n### Safe\n\n- first\n';
  it('puts the version above the last release, its graded changes first', () => {
    expect(withRelease(`${intro}${released}`, '0.2.0', '2026-12-01', '### Breaking\n\n- gone\n')).toBe(
      `${intro}## 0.2.0 - 2026-12-01\n\n### Breaking\n\n- gone\n\n${released}`,
    );
  });
  it('takes in what stood under ## Unreleased, below the graded changes, and drops that heading', () => {
    const unreleased = '## Unreleased\n\n### Mock (no change to the API contract)\n\n- faults\n\n';
    expect(withRelease(`${intro}${unreleased}${released}`, '0.2.0', '2026-12-01', '### Breaking\n\n- gone\n')).toBe(
      `${intro}## 0.2.0 - 2026-12-01\n\n### Breaking\n\n- gone\n\n### Mock (no change to the API contract)\n\n- faults\n\n${released}`,
    );
    expect(withRelease(`${intro}${unreleased}`, '0.1.0', '2026-11-24', '')).toBe(
      `${intro}## 0.1.0 - 2026-11-24\n\n### Mock (no change to the API contract)\n\n- faults\n`,
    );
  });
});

describe('npm run release', () => {
  it('refuses a patch for a breaking change, naming the bump needed, and changes no file', async () => {
    const before = snapshot();
    expectRefused(
      await release(['0.1.1', '--no-behaviour']),
      /^error: 0\.1\.1 is too small a bump: 1 breaking change since 0\.1\.0 \(resumeProject response-removed\) needs a minor bump \(breaking while 0\.x\): 0\.2\.0 or above$/,
    );
    expect(snapshot()).toEqual(before);
  }, 300_000);

  it('refuses a spec that does not lint, naming the example, the rule and why, and changes no file', async () => {
    const example = 'spec/components/examples/CloseGoalMissedRequest.yaml';
    const text = readFileSync(join(repo, example), 'utf8');
    edit(example, /^ {2}success: .*$/m, '  success: 5');
    try {
      const before = snapshot();
      expectRefused(
        await release(['0.2.0', '--no-behaviour']),
        /^error: the spec does not lint, nothing was released: spec\/components\/examples\/CloseGoalMissedRequest\.yaml#\/value\/success \(error no-invalid-media-type-examples line \d+, used by spec\/paths\/goals_close\.yaml\): Example value must conform to the schema: `success` property type must be string\.$/,
      );
      expect(snapshot()).toEqual(before);
    } finally {
      writeFileSync(join(repo, example), text);
    }
  }, 300_000);

  it('releases the working tree (an uncommitted template change shows as the behaviour change it makes) and records it as a commit of its own', async () => {
    const head = (await git(['rev-parse', 'HEAD'])).stdout.trim();
    const status = (await git(['status', '--porcelain'])).stdout;
    const ran = await release(['0.2.0']);
    expect([ran.code, ran.stderr]).toEqual([0, '']);
    expect(ran.stdout).toMatch(
      /^released 0\.2\.0: spec\/openapi\.yaml, generated\/.*, package\.json, spec\/releases\/0\.2\.0\.json, CHANGELOG\.md, spec\/releases\/0\.2\.0\.commit\n$/,
    );
    expect(readFileSync(join(repo, 'spec', 'openapi.yaml'), 'utf8')).toMatch(/^ {2}version: 0\.2\.0$/m);
    expect(JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version).toBe('0.2.0');
    expect(JSON.parse(readFileSync(join(repo, 'generated', 'openapi.json'), 'utf8')).info.version).toBe('0.2.0');
    const changelog = readFileSync(join(repo, 'CHANGELOG.md'), 'utf8');
    const section = changelog.slice(changelog.search(/^## 0\.2\.0 - \d{4}-\d{2}-\d{2}$/m), changelog.search(/^## 0\.1\.0 /m));
    expect(section).toMatch(/^### Breaking$/m);
    expect(section).toContain('- `resumeProject`: Response `406` was removed. (response, `response-removed`)');
    // The committed mock change (403 → 500) and the working tree's template change (400 → 500), both listed.
    expect(section).toMatch(/^- `closeGoal`: Answered 500, was 403: \d+ cases?, e\.g\. .* \(response, `behaviour-status-changed`\)$/m);
    expect(section).toMatch(/^- `resumeProject`: Answered 500, was 403: \d+ cases?, e\.g\. .* \(response, `behaviour-status-changed`\)$/m);
    // The reworded template is no instance of the spec's 400 example any more: the working tree's mock answers 500.
    expect(section).toMatch(/^- `closeGoal`: Answered 500, was 400: \d+ cases?, e\.g\. .*missing fields.* \(response, `behaviour-status-changed`\)$/m);
    expect(section).toMatch(/^- `resumeProject`: Answered 500, was 400: \d+ cases?, e\.g\. .*missing fields.* \(response, `behaviour-status-changed`\)$/m);
    // Nothing of the user's git state moved: HEAD, the branch, the index (the template change is still unstaged).
    expect((await git(['rev-parse', 'HEAD'])).stdout.trim()).toBe(head);
    expect((await git(['diff', '--cached', '--name-only'])).stdout).toBe('');
    expect(status).toContain(' M spec/components/messages.yaml');
    // What was released is a commit on top of HEAD holding the working tree as released, kept by refs/releases/0.2.0.
    const record = readFileSync(join(repo, 'spec', 'releases', '0.2.0.commit'), 'utf8');
    const [commit = ''] = record.split('\n');
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    expect(record).toContain(`made on top of ${head}`);
    expect((await git(['rev-parse', `${commit}^`])).stdout.trim()).toBe(head);
    expect((await git(['rev-parse', 'refs/releases/0.2.0'])).stdout.trim()).toBe(commit);
    for (const file of ['spec/components/messages.yaml', 'spec/openapi.yaml', 'CHANGELOG.md', 'spec/releases/0.2.0.json', 'generated/openapi.json'])
      expect((await git(['show', `${commit}:${file}`])).stdout, file).toBe(readFileSync(join(repo, file), 'utf8'));
    // No temporary file is left beside what was written.
    expect([...snapshot().keys()].filter((f) => /\.release-\d+$/.test(f))).toEqual([]);
    // The worktrees the behaviour diff made are gone.
    expect((await git(['worktree', 'list'])).stdout.trim().split('\n')).toHaveLength(1);
  }, 400_000);

  it('starts the next release from what the last one released, not from the commit it was made on', async () => {
    // Nothing changed since 0.2.0 was released (the template change was released, though never committed).
    const ran = await release(['0.2.1']);
    expect([ran.code, ran.stderr]).toEqual([0, '']);
    const changelog = readFileSync(join(repo, 'CHANGELOG.md'), 'utf8');
    const section = changelog.slice(changelog.search(/^## 0\.2\.1 /m), changelog.search(/^## 0\.2\.0 /m));
    expect(section).not.toMatch(/behaviour-/);
    expect(section).toContain('- No change to the contract.');
  }, 400_000);
});
