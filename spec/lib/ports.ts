// A free loopback port for a program that binds it itself (a Redis, a mock process, Prism): taken below Linux's
// ephemeral range (32768–60999 by default), which the kernel hands out for `listen(0)` and for the local end of every
// outgoing connection; a port found free there could be taken by any socket before the program it is for binds it
// (with many servers and connections on loopback at once, a replica or a Redis then never started).
import { createServer } from 'node:net';

const FIXED_PORTS = { from: 20_000, to: 32_767 } as const;

/** A port that was free a moment ago, outside the range the kernel picks from by itself. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = FIXED_PORTS.from + Math.floor(Math.random() * (FIXED_PORTS.to - FIXED_PORTS.from + 1));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port in ${FIXED_PORTS.from}–${FIXED_PORTS.to} after 50 tries`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
