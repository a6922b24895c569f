// The two gates of npm test that are not vitest assertions, lint and the drift check, are themselves tested: each
// must fail on the mistake it exists to catch.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

// Each case runs the generator or the linter in a child process: seconds, not milliseconds, on a busy machine.
vi.setConfig({ testTimeout: 60_000 });

const root = new URL('../../', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'spec-tooling-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the drift check (npm run check:generated)', () => {
  it('passes on an exact copy of generated/', () => {
    const copy = join(work, 'same');
    cpSync(join(root, 'generated'), copy, { recursive: true });
    const { status, output } = run(process.execPath, ['spec/tools/generate.ts', '--check', '--generated', copy]);
    expect(output).toContain('is up to date');
    expect(status).toBe(0);
  });

  it('fails, naming the file and the line, when generated/ was edited by hand', () => {
    const copy = join(work, 'edited');
    cpSync(join(root, 'generated'), copy, { recursive: true });
    const types = join(copy, 'types.ts');
    writeFileSync(types, readFileSync(types, 'utf8').replace('ProjectSuccessStatus: "nil" | "achieved" | "missed";', 'ProjectSuccessStatus: string;'));
    const { status, output } = run(process.execPath, ['spec/tools/generate.ts', '--check', '--generated', copy]);
    expect(status).toBe(1);
    expect(output).toMatch(/types\.ts is not what spec\/ produces \(line \d+: expected /);
    expect(output).toContain('found "        ProjectSuccessStatus: string;"');
  });
});

describe('the spec lint (npm run lint:spec)', () => {
  it('fails on an example that does not match its schema', () => {
    const spec = join(work, 'spec');
    cpSync(join(root, 'spec'), spec, { recursive: true });
    const example = join(spec, 'components', 'examples', 'CloseGoalResponse.yaml');
    writeFileSync(example, readFileSync(example, 'utf8').replace('status: achieved', 'status: closed'));
    const redocly = join(root, 'node_modules', '.bin', 'redocly');
    let output = '';
    try {
      execFileSync(redocly, ['lint', join(spec, 'openapi.yaml'), '--config', join(spec, 'redocly.yaml'), '--format', 'stylish'], {
        encoding: 'utf8',
        stdio: 'pipe',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
      });
    } catch (error) {
      const failure = error as { status: number; stdout: string; stderr: string };
      expect(failure.status).toBe(1);
      output = `${failure.stdout}${failure.stderr}`;
    }
    expect(output).toContain('no-invalid-media-type-examples');
  });
});
