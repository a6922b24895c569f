// `npm test`'s checks before vitest (spec/tools/checks.ts): every step runs, in two lanes; a failing step ends its lane
// as `&&` would, the other lane still finishes, and the run exits 1 naming each step that failed. The steps are an
// `npm` of the test's own on PATH that prints what it was asked to run and fails the one it is told to.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, run } from './run.ts';

const bin = mkdtempSync(join(tmpdir(), 'checks-npm-'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));
writeFileSync(
  join(bin, 'npm'),
  [
    '#!/bin/sh',
    '# npm run -s <script> [-- args]',
    'shift 2',
    'echo "ran $*"',
    '[ "$1" = "$FAIL_STEP" ] && { echo "$1 broke" >&2; exit 3; }',
    'exit 0',
    '',
  ].join('\n'),
);
chmodSync(join(bin, 'npm'), 0o755);

const checks = (failStep: string) =>
  run(process.execPath, [join(ROOT, 'spec', 'tools', 'checks.ts')], {
    cwd: ROOT,
    env: { PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}`, FAIL_STEP: failStep },
  });

describe('npm test: the checks before vitest', () => {
  it('runs every step, the build without its own type check, and exits 0', async () => {
    const result = await checks('');
    expect([result.status, result.stderr]).toEqual([0, '']);
    expect(result.stdout.trim().split('\n').sort()).toEqual(['ran build -- --no-check', 'ran check:generated', 'ran lint', 'ran lint:spec', 'ran typecheck']);
  });

  it('stops the lane at a failing step, lets the other lane finish, and exits 1 naming the step', async () => {
    const result = await checks('lint');
    expect(result.status).toBe(1);
    // The failing step's own output is printed; what came after it in its lane never ran.
    expect(result.stdout).toContain('lint broke');
    expect(
      result.stdout
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('ran'))
        .sort(),
    ).toEqual(['ran lint', 'ran lint:spec', 'ran typecheck']);
    expect(result.stderr).toBe('checks: npm run lint exited 3\n');
  });

  it('names the type check when it fails, after the other lane has run to its end', async () => {
    const result = await checks('typecheck');
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('ran build -- --no-check');
    expect(result.stderr).toBe('checks: npm run typecheck exited 3\n');
  });
});
