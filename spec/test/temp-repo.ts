// A git repository of its own in the temporary folder, holding a copy of this checkout's code and spec (node_modules
// linked, not copied) in one commit: what the tests of `git:` refs, `--behaviour` and `release` run in, so no test
// runs git against this checkout's repository.
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
/** What is not copied: the dependencies (linked), git's own files, and what builds and runs leave behind. */
const LEFT_OUT = new Set(['node_modules', '.git', '.ci', '.vitest', 'dist', 'coverage']);

export type Ran = { code: number; stdout: string; stderr: string };

/** Runs a program to its end (bounded), with its exit code and output. */
export const run = (file: string, args: ReadonlyArray<string>, cwd: string, timeout = 240_000): Promise<Ran> =>
  new Promise((resolve) => {
    execFile(file, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });

/** The repository at `dir` (created), its first commit made; `git` runs git in it with a test identity. */
export async function tempRepo(dir: string): Promise<{ dir: string; git(args: ReadonlyArray<string>): Promise<Ran> }> {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(ROOT))
    if (!LEFT_OUT.has(name)) cpSync(join(ROOT, name), join(dir, name), { recursive: true, filter: (source) => !source.includes('/node_modules') });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  // `node_modules/` (with the slash) does not match the link.
  appendFileSync(join(dir, '.gitignore'), '\nnode_modules\n');
  const git = (args: ReadonlyArray<string>): Promise<Ran> =>
    run('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], dir);
  for (const args of [
    ['init', '--quiet'],
    ['add', '-A'],
    ['commit', '--quiet', '-m', 'the code and spec as they are'],
  ]) {
    const ran = await git(args);
    if (ran.code !== 0) throw new Error(`git ${args[0]} in ${dir}: ${ran.stderr.trim()}`);
  }
  return { dir, git };
}
