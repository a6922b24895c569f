// The V8 heap of a running node process, read through the inspector it opens on SIGUSR1, so a server started exactly
// as `npm start` starts it (no --expose-gc, no --inspect) can still be asked for its live heap after a full GC.
import { setTimeout as sleep } from 'node:timers/promises';
import { rounded } from './format.ts';
import { rssBytes } from './proc.ts';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type HeapAfterGc = { used_mb: number; total_mb: number; rss_mb: number | null } | { error: string };

/**
 * A node process's V8 heap after a full GC, without changing how it was started: SIGUSR1 opens Node's inspector (its
 * address is printed on the process's stderr), HeapProfiler.collectGarbage, then Runtime.getHeapUsage, and the RSS
 * then. `stderr` gives the end of what the process has written to its stderr so far (once per process: a second
 * SIGUSR1 prints no new address).
 */
export async function heapAfterGc(pid: number, stderr: () => string): Promise<HeapAfterGc> {
  try {
    process.kill(pid, 'SIGUSR1');
  } catch (error) {
    return { error: `SIGUSR1: ${error instanceof Error ? error.message : String(error)}` };
  }
  let address: string | undefined;
  for (let waited = 0; !address; waited += 20) {
    const said = stderr();
    address = /Debugger listening on (ws:\/\/\S+)/.exec(said)?.[1];
    const failed = /Starting inspector on \S+ failed[^\n]*/.exec(said)?.[0];
    if (failed) return { error: failed };
    if (waited > 5000) return { error: 'the inspector printed no address within 5 s' };
    if (!address) await sleep(20);
  }
  const socket = new WebSocket(address);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('error', () => reject(new Error(`could not connect to ${address}`)), { once: true });
    });
    let id = 0;
    const call = (method: string): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const mine = ++id;
        const onMessage = (event: MessageEvent): void => {
          const message: unknown = JSON.parse(String(event.data));
          if (!isObject(message) || message['id'] !== mine) return;
          socket.removeEventListener('message', onMessage);
          if (isObject(message['error'])) reject(new Error(`${method}: ${String(message['error']['message'])}`));
          else resolve(message['result']);
        };
        socket.addEventListener('message', onMessage);
        socket.send(JSON.stringify({ id: mine, method }));
      });
    await call('HeapProfiler.collectGarbage');
    const usage = await call('Runtime.getHeapUsage');
    if (!isObject(usage) || typeof usage['usedSize'] !== 'number' || typeof usage['totalSize'] !== 'number')
      return { error: 'Runtime.getHeapUsage gave no sizes' };
    const rss = rssBytes(pid);
    return {
      used_mb: rounded(usage['usedSize'] / 1048576, 1),
      total_mb: rounded(usage['totalSize'] / 1048576, 1),
      rss_mb: rss === undefined ? null : rounded(rss / 1048576, 1),
    };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    socket.close();
  }
}
