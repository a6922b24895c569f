// What the kernel says about a process (Linux /proc): CPU time, resident memory, and which process in a wrapper
// chain (npm → sh → node) is the real server. Also the machine's load and CPU count, and the node flags `npm start`
// runs the mock with, for the bench's own child processes.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { MOCK_MAIN, startArgs } from './launch.ts';

export { MOCK_MAIN } from './launch.ts';

/** The node flags of `npm start` (its start script's words before cli/mock.cjs), for a process that measures the mock in itself. */
export function startFlags(): string[] {
  const args = startArgs();
  return args.slice(0, args.indexOf(MOCK_MAIN));
}

let clockTicks: number | undefined;

/** Clock ticks per second of utime/stime in /proc/<pid>/stat (`getconf CLK_TCK`, 100 on Linux when unreadable). */
export function clkTck(): number {
  if (clockTicks === undefined) {
    try {
      const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
      clockTicks = Number.isInteger(value) && value > 0 ? value : 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime of a process in clock ticks, or undefined when it is gone. */
export function cpuTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the name: state is field 3, so utime (14) and stime (15) are at indexes 11 and 12.
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return Number.isFinite(utime) && Number.isFinite(stime) ? utime + stime : undefined;
  } catch {
    return undefined;
  }
}

/** Resident set size in bytes (VmRSS of /proc/<pid>/status), or undefined when it is gone. */
export function rssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

function children(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // gone, or no children file: no children
  }
  return out;
}

/**
 * The pid of the process that really serves: `pid` itself when its command line is the server's (contains
 * `marker`), else the first descendant whose command line does (so `npm start` or `sh -c` wrappers are skipped).
 */
export function serverPid(pid: number, marker: string): number {
  const queue = [pid];
  for (let seen = 0; queue.length > 0 && seen < 64; seen++) {
    const current = queue.shift();
    if (current === undefined) break;
    const cmd = commandLine(current);
    if (cmd.includes(marker) && !/(^|\/)(npm|npx|sh|bash)( |$)/.test(cmd.split(' ')[0] ?? '')) return current;
    queue.push(...children(current));
  }
  throw new Error(`no process running "${marker}" under pid ${pid} (${commandLine(pid) || 'gone'})`);
}

export type MachineLoad = { loadavg_1m: number; loadavg_5m: number; loadavg_15m: number; running_processes: string; cpus: number };

export function machineLoad(): MachineLoad {
  const parts = readFileSync('/proc/loadavg', 'utf8').trim().split(/\s+/);
  return { loadavg_1m: Number(parts[0]), loadavg_5m: Number(parts[1]), loadavg_15m: Number(parts[2]), running_processes: parts[3] ?? '', cpus: cpus().length };
}
