// Running a command the way the package tests need it: without blocking the test process (which may be serving the
// requests the command makes), with the repository's Node 24 first on PATH as npm gives it, killed after a timeout.
import { spawn, type SpawnOptions } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'node_modules', '.bin');

export type Result = { status: number | null; stdout: string; stderr: string };

export function run(command: string, args: string[], options: SpawnOptions & { timeout?: number } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...options,
      env: { ...process.env, PATH: `${BIN}${delimiter}${process.env['PATH'] ?? ''}`, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeout ?? 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** A command's exit and output, for an assertion's message. */
export const explain = (r: Result): string => `exit ${String(r.status)}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
