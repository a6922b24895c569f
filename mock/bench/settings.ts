// The bench's options: flags (and the environment for the first four), checked before anything starts; a bad one
// is exit 2 with one line. --help prints every option.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './launch.ts';

/** The memory phase's sessions: as many as `--max-sessions` keeps by default, so none is dropped. */
export const MEMORY_SESSIONS = 100;
/** The memory phase's connections: each cycles the 200 requests (a resume and a close per session) k times. */
export const MEMORY_CONNECTIONS = 50;

const USAGE = `Usage: node mock/bench/run.ts [options]   (npm run bench -- [options])

  --stages          only the stage table and the server rows beside it: our mock (always and sample), the floor, bare
                    Express and Prism, resumeProject and closeGoal; writes mock/bench/results/stages.json
  --duration S      measured seconds per run (default 3; env BENCH_DURATION)
  --warmup S        warm-up seconds before a server's first run of a scenario (default 2; env BENCH_WARMUP)
  --rounds N        runs per server and scenario, interleaved; the median is reported (default 2; env BENCH_ROUNDS)
  --connections N   concurrent connections (default 50; env BENCH_CONNECTIONS)
  --cold-starts N   starts per server for the cold-start median (default 3)
  --cold-start      only the installed mock's cold start against bare node:http's, interleaved, --cold-starts times
                    each (default 15 here): short enough to run on a quiet machine; writes
                    mock/bench/results/cold-start.json
  --sessions N      X-Mock-Session names the session scenario rotates through (default 50)
  --prism-probe S   seconds to wait for Prism on generated/openapi.json itself before using generated/openapi.acyclic.json
                    (default 5; 0 skips the probe)
  --stage-requests N  in-process requests per operation and self-check mode for the stage table, after enough to
                    fill the session's history to its limit (default 3000; 0 skips the stage table)
  --session-writes N  writes per session in the memory phase: ${MEMORY_SESSIONS} sessions, a fresh mock (default 1000; a multiple
                    of ${MEMORY_CONNECTIONS * 2}; 0 skips the phase)
  --in-process-starts N  createMockApp() / createMockHandlers() calls, each with its first 200, per fresh process
                    (default 10; 0 skips)
  --out FILE        where to write the results (default mock/bench/results/latest.json; stages.json with --stages)
  --help            show this help

Quick smoke run: node mock/bench/run.ts --duration 1 --warmup 1 --rounds 1 --cold-starts 1 --prism-probe 0 --session-writes 0`;

export type Settings = {
  stages: boolean;
  coldOnly: boolean;
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
  coldStarts: number;
  sessions: number;
  prismProbe: number;
  stageRequests: number;
  sessionWrites: number;
  inProcessStarts: number;
  out: string;
};

function usageError(message: string): never {
  process.stderr.write(`error: ${message} (see --help)\n`);
  process.exit(2);
}

export function readSettings(): Settings {
  // biome-ignore lint/suspicious/noImplicitAnyLet: typed by the parseArgs call that assigns it (control-flow typing)
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        stages: { type: 'boolean' },
        'cold-start': { type: 'boolean' },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        rounds: { type: 'string' },
        connections: { type: 'string' },
        'cold-starts': { type: 'string' },
        sessions: { type: 'string' },
        'prism-probe': { type: 'string' },
        'stage-requests': { type: 'string' },
        'session-writes': { type: 'string' },
        'in-process-starts': { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    usageError(error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error));
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const number = (name: string, raw: string | undefined, fallback: number, min: number, max: number, integer: boolean): number => {
    if (raw === undefined || raw.trim() === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
      usageError(`${name} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${raw}"`);
    return n;
  };
  const env = process.env;
  const stages = values.stages === true;
  const coldOnly = values['cold-start'] === true;
  if (stages && coldOnly) usageError('--stages and --cold-start are two different runs: choose one');
  const settings: Settings = {
    stages,
    coldOnly,
    duration: number('--duration', values.duration ?? env['BENCH_DURATION'], 3, 0.5, 600, false),
    warmup: number('--warmup', values.warmup ?? env['BENCH_WARMUP'], 2, 0, 600, false),
    rounds: number('--rounds', values.rounds ?? env['BENCH_ROUNDS'], 2, 1, 20, true),
    connections: number('--connections', values.connections ?? env['BENCH_CONNECTIONS'], 50, 1, 1000, true),
    coldStarts: number('--cold-starts', values['cold-starts'], coldOnly ? 15 : 3, coldOnly ? 2 : 0, coldOnly ? 100 : 20, true),
    sessions: number('--sessions', values.sessions, 50, 1, 100, true),
    prismProbe: number('--prism-probe', values['prism-probe'], 5, 0, 600, false),
    stageRequests: coldOnly ? 0 : number('--stage-requests', values['stage-requests'], 3000, stages ? 1 : 0, 1_000_000, true),
    sessionWrites: number('--session-writes', values['session-writes'], 1000, 0, 100_000, true),
    inProcessStarts: number('--in-process-starts', values['in-process-starts'], 10, 0, 100, true),
    out:
      values.out ?? join(ROOT, stages ? 'mock/bench/results/stages.json' : coldOnly ? 'mock/bench/results/cold-start.json' : 'mock/bench/results/latest.json'),
  };
  if (settings.sessionWrites % (MEMORY_CONNECTIONS * 2) !== 0)
    usageError(
      `--session-writes must be a multiple of ${MEMORY_CONNECTIONS * 2} (each of ${MEMORY_CONNECTIONS} connections cycles a resume and a close of every session), got ${settings.sessionWrites}`,
    );
  if (settings.inProcessStarts === 1) usageError('--in-process-starts must be 0 or at least 2 (the first, and the ones after it)');
  return settings;
}
