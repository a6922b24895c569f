// What `npm run release` releases and records (spec/README.md, "The contract through change"): the working tree as it
// stands, not the last commit. The release stages a copy of every file git would commit (tracked or not, ignored files
// left out) to run the mock's behaviour diff on, and records what it wrote as a commit of its own: a git tree of the
// working tree with the release's files in it, made in a temporary index (the user's index, branch and HEAD are not
// touched), whose parent is the commit the release was made on top of. spec/releases/<version>.commit names it, and
// refs/releases/<version> keeps it from git's garbage collection; the next release's behaviour diff starts there.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

type Ran = { code: number; stdout: string; stderr: string };

function git(root: string, args: ReadonlyArray<string>, options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<Ran> {
  return new Promise((done) => {
    const child = execFile(
      'git',
      args,
      { cwd: root, env: { ...process.env, ...options.env }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

const SHA = /^[0-9a-f]{40}$/;

/** Whether `root` is the top of a git work tree (a release outside one records nothing and runs no behaviour diff). */
export async function isGitRoot(root: string): Promise<boolean> {
  const top = await git(root, ['rev-parse', '--show-toplevel']);
  return top.code === 0 && relative(top.stdout.trim(), root) === '';
}

/** The commit HEAD names, or undefined in a repository with no commit yet. */
export async function headCommit(root: string): Promise<string | undefined> {
  const head = await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  const sha = head.stdout.trim();
  return head.code === 0 && SHA.test(sha) ? sha : undefined;
}

/** Every file of the working tree git would commit (tracked or new, ignored ones left out), relative to `root`. */
async function workingTreeFiles(root: string): Promise<string[]> {
  const listed = await git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  if (listed.code !== 0) throw new Error(`git ls-files fails: ${listed.stderr.trim().split('\n')[0] ?? ''}`);
  // A tracked file deleted in the working tree is listed by --cached but is not there to release.
  return [...new Set(listed.stdout.split('\0').filter((f) => f !== ''))].filter((f) => {
    try {
      return !lstatSync(join(root, f)).isDirectory();
    } catch {
      return false;
    }
  });
}

/**
 * A copy of the working tree in a fresh folder (node_modules linked): what the release stages, generates in and runs
 * the mock of. `remove` takes it away.
 */
export async function stageWorkingTree(root: string): Promise<{ dir: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'api-release-'));
  try {
    for (const file of await workingTreeFiles(root)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      const source = join(root, file);
      if (lstatSync(source).isSymbolicLink()) symlinkSync(readlinkSync(source), join(dir, file));
      else copyFileSync(source, join(dir, file));
    }
    if (existsSync(join(root, 'node_modules'))) symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Who the release commit is by: the user's git identity, or a fixed one when none is configured. */
async function identity(root: string): Promise<NodeJS.ProcessEnv> {
  const configured = await git(root, ['var', 'GIT_COMMITTER_IDENT']);
  if (configured.code === 0) return {};
  const [name, email] = ['service-external-api release', 'release@localhost'];
  return { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
}

/**
 * The commit of what a release writes: the working tree with `files` (absolute path → content) in place of what it
 * holds, as a git tree built in a temporary index, committed on top of HEAD. Nothing of the user's (index, branch,
 * HEAD, working tree) changes; only objects are added to the repository.
 */
export async function releaseCommit(
  root: string,
  files: ReadonlyMap<string, string>,
  message: string,
): Promise<{ commit: string; tree: string; on: string | undefined }> {
  const scratch = mkdtempSync(join(tmpdir(), 'api-release-index-'));
  try {
    const env = { GIT_INDEX_FILE: join(scratch, 'index') };
    const added = await git(root, ['add', '--all', '--', '.'], { env });
    if (added.code !== 0) throw new Error(`git add (in a temporary index) fails: ${added.stderr.trim().split('\n')[0] ?? ''}`);
    for (const [path, content] of files) {
      const blob = await git(root, ['hash-object', '-w', '--stdin'], { input: content });
      const sha = blob.stdout.trim();
      if (blob.code !== 0 || !SHA.test(sha)) throw new Error(`git hash-object fails: ${blob.stderr.trim().split('\n')[0] ?? ''}`);
      const placed = await git(root, ['update-index', '--add', '--cacheinfo', `100644,${sha},${relative(root, path)}`], { env });
      if (placed.code !== 0) throw new Error(`git update-index fails: ${placed.stderr.trim().split('\n')[0] ?? ''}`);
    }
    const written = await git(root, ['write-tree'], { env });
    const tree = written.stdout.trim();
    if (written.code !== 0 || !SHA.test(tree)) throw new Error(`git write-tree fails: ${written.stderr.trim().split('\n')[0] ?? ''}`);
    const on = await headCommit(root);
    const made = await git(root, ['commit-tree', tree, ...(on ? ['-p', on] : []), '-m', message], { env: await identity(root) });
    const commit = made.stdout.trim();
    if (made.code !== 0 || !SHA.test(commit)) throw new Error(`git commit-tree fails: ${made.stderr.trim().split('\n')[0] ?? ''}`);
    return { commit, tree, on };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Keeps a release's commit reachable (refs/releases/<version>), so git's garbage collection never drops it. */
export async function keepReleaseCommit(root: string, version: string, commit: string): Promise<void> {
  await git(root, ['update-ref', `refs/releases/${version}`, commit]);
}

/** spec/releases/<version>.commit's text: the release's commit first (what the next release reads), then for people. */
export function commitRecord(recorded: { commit: string; tree: string; on: string | undefined }): string {
  return `${recorded.commit}\n# the working tree as released: tree ${recorded.tree}, made on top of ${recorded.on ?? '(no commit)'}\n`;
}

/**
 * The commit the behaviour diff of the next release starts from: the one `<version>.commit` names (its first line;
 * a file from before it held the commit HEAD was at) when the repository has it, else the commit that added
 * spec/releases/<version>.json (the release, as committed). Undefined when neither is there.
 */
export async function releasedCommit(root: string, releases: string, version: string): Promise<string | undefined> {
  const file = join(releases, `${version}.commit`);
  const first = existsSync(file) ? (readFileSync(file, 'utf8').split('\n')[0] ?? '').trim() : '';
  if (SHA.test(first) && (await git(root, ['cat-file', '-e', `${first}^{commit}`])).code === 0) return first;
  const added = await git(root, ['log', '-1', '--diff-filter=A', '--format=%H', '--', relative(root, join(releases, `${version}.json`))]);
  const sha = added.stdout.trim();
  return added.code === 0 && SHA.test(sha) ? sha : undefined;
}
