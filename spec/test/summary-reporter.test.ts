// The run's summary names the failing test files just before its last line, which stays
// `tests: N passed, N failed, N skipped`: a vitest run of three small files in the temporary folder, with only this
// reporter, prints exactly that tail.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'summary-reporter-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the summary reporter', () => {
  it('lists the failing files and their first failing tests just above the closing line', async () => {
    symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'));
    const test = (name: string, body: string): void => writeFileSync(join(work, name), `import { expect, it } from 'vitest';\n${body}\n`);
    test('a-passes.test.ts', "it('passes', () => expect(1).toBe(1));");
    test(
      'b-fails.test.ts',
      ["it('passes too', () => expect(1).toBe(1));", ...[1, 2, 3, 4].map((n) => `it('fails number ${n}', () => expect(${n}).toBe(0));`)].join('\n'),
    );
    test('c-broken.test.ts', "throw new Error('broken at import');\nit('never runs', () => undefined);");
    test('d-skips.test.ts', "it.skip('is skipped', () => undefined);");
    writeFileSync(
      join(work, 'vitest.config.mjs'),
      `export default { test: { include: ['*.test.ts'], reporters: [${JSON.stringify(join(ROOT, 'spec', 'test', 'summary-reporter.ts'))}] } };\n`,
    );
    const ran = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', join(work, 'vitest.config.mjs'), '--root', work],
        { cwd: work, encoding: 'utf8', timeout: 120_000 },
        (error, stdout) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout }),
      ),
    );
    expect(ran.code).toBe(1);
    expect(ran.stdout.trimEnd().split('\n').slice(-10)).toEqual([
      '',
      'failing test files (2):',
      '  b-fails.test.ts (4 failed)',
      '    × fails number 1',
      '    × fails number 2',
      '    × fails number 3',
      '    … and 1 more',
      '  c-broken.test.ts (failed outside its tests)',
      '',
      'tests: 2 passed, 5 failed, 1 skipped',
    ]);
  }, 120_000);
});
