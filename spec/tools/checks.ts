// `npm test`'s checks before vitest, in two lanes at once: the type check alone in one (the longest step), the spec's
// lint, the code's lint, the generated files' drift check and the build in the other, each lane in its order. The
// build skips its own type check (`--no-check`): the type check beside it is that check, so nothing runs twice.
//   node spec/tools/checks.ts        exit 0 when every step passed; 1 naming the steps that failed
// Each step is the npm script of its name (package.json holds the command, once); its output is printed whole when it
// ends, so two steps never interleave their lines.
import { spawn } from 'node:child_process';

const LANES: ReadonlyArray<ReadonlyArray<ReadonlyArray<string>>> = [
  [['typecheck']],
  [['lint:spec'], ['lint'], ['check:generated'], ['build', '--', '--no-check']],
];

type Step = { name: string; code: number };

function runStep(args: ReadonlyArray<string>): Promise<Step> {
  const name = args.join(' ');
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '-s', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => out.push(chunk));
    child.on('error', (error) => {
      process.stderr.write(`checks: npm run ${name} did not start: ${error.message}\n`);
      resolve({ name, code: 1 });
    });
    child.on('close', (code, signal) => {
      process.stdout.write(Buffer.concat(out));
      resolve({ name, code: code ?? (signal ? 1 : 0) });
    });
  });
}

/** A lane's steps one after another; the first that fails ends the lane, as `&&` would. */
async function runLane(lane: ReadonlyArray<ReadonlyArray<string>>): Promise<Step[]> {
  const done: Step[] = [];
  for (const args of lane) {
    const step = await runStep(args);
    done.push(step);
    if (step.code !== 0) break;
  }
  return done;
}

const failed = (await Promise.all(LANES.map(runLane))).flat().filter((step) => step.code !== 0);
if (failed.length > 0) {
  process.stderr.write(`checks: ${failed.map((step) => `npm run ${step.name} exited ${step.code}`).join('; ')}\n`);
  process.exit(1);
}
