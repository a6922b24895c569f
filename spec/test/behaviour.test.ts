// diff --behaviour on a real code change: a clone of this repository gets one commit that changes what the
// mock answers (a comment-only caller's 403 becomes the handler's 500), and the diff between the two commits reports
// it under behaviour-…, ERR, and says that the base's contract suite fails on it, as the ERR change predicts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DiffReport } from '../diff/diff.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
type Ran = { code: number; stdout: string; stderr: string };
const run = (file: string, args: string[], cwd: string): Promise<Ran> =>
  new Promise((resolve) => {
    execFile(file, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 240_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });

describe('diff --behaviour', () => {
  const work = mkdtempSync(join(tmpdir(), 'behaviour-diff-'));
  const clone = join(work, 'repo');
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('reports a changed status as behaviour-status-changed (ERR) and the base suite failing on it', async () => {
    expect((await run('git', ['clone', '--quiet', '--shared', ROOT, clone], work)).code).toBe(0);
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    const errors = join(clone, 'mock', 'src', 'operations', 'outcome.ts');
    const source = readFileSync(errors, 'utf8');
    const changed = source.replace('forbidden: errors.FORBIDDEN,', 'forbidden: errors.OPERATION_FAILED,');
    expect(changed).not.toBe(source);
    writeFileSync(errors, changed);
    const git = (args: string[]): Promise<Ran> => run('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], clone);
    expect((await git(['commit', '--quiet', '-am', 'a comment-only caller gets 500'])).code).toBe(0);

    const ran = await run(process.execPath, [join(clone, 'cli', 'bin.cjs'), 'diff', 'git:HEAD~1', 'git:HEAD', '--behaviour', '--format', 'json'], clone);
    expect(ran.code, ran.stderr).toBe(1);
    const report = JSON.parse(ran.stdout) as DiffReport;
    expect(Object.keys(report)).toEqual(['base', 'revision', 'changes', 'counts']);
    const statuses = report.changes.filter((c) => c.id === 'behaviour-status-changed');
    expect(statuses.length).toBeGreaterThan(0);
    for (const change of statuses) {
      expect(change).toMatchObject({ level: 'ERR', direction: 'response' });
      // One change per answer that changed, with how many cases show it.
      expect(change.message).toMatch(/^Answered 500, was 403: \d+ cases?, e\.g\. /);
    }
    expect(statuses.map((c) => c.operation)).toEqual(expect.arrayContaining(['resumeProject']));
    // The document did not change: every ERR is the behaviour's (and the version rule's).
    expect(report.changes.filter((c) => c.level === 'ERR' && !c.id.startsWith('behaviour-') && c.id !== 'api-version-not-bumped')).toEqual([]);
    expect(ran.stderr).toMatch(/^behaviour: the contract suite of HEAD~1 against the mock of HEAD: contract: \d+ passed, [1-9]\d* failed/m);
    expect(ran.stderr).toMatch(/^behaviour: fails, as the ERR changes predict: /m);
    // The temporary worktrees are gone.
    expect((await run('git', ['worktree', 'list'], clone)).stdout.trim().split('\n')).toHaveLength(1);
  }, 300_000);

  it('needs two git refs', async () => {
    const ran = await run(process.execPath, [join(ROOT, 'cli', 'bin.cjs'), 'diff', 'generated/openapi.json', 'git:HEAD', '--behaviour'], ROOT);
    expect([ran.code, ran.stderr.trim()]).toEqual([2, 'error: --behaviour compares the mocks of two git refs: give git:<ref> for both']);
  });
});
