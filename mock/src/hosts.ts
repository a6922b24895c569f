// The Host names a listening server answers (guard.ts says why a server checks them): its address, the loopback names,
// and the names the operator gives with --allowed-host. Node only (the CLI's servers): the core gets a predicate.
import { networkInterfaces } from 'node:os';
import { ANY_PORT } from './guard.ts';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The Host values a server listening on `host`:`port` answers: its address, loopback names, and `extra` names (a name
 * without a port stands for that name on any port: `NAME:*`, which guard.ts's hostAllowed reads).
 */
export function listenHosts(host: string, port: number, extra: ReadonlyArray<string> = []): Set<string> {
  const names = new Set<string>();
  const add = (name: string): void => {
    const lower = name.toLowerCase();
    const bracketed = lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
    names.add(`${bracketed}:${port}`);
    if (port === 80) names.add(bracketed);
  };
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  for (const name of LOOPBACK_NAMES) add(name);
  if (!wildcard) add(host);
  else {
    // Bound to every address: each of this machine's own addresses is a name it is reached by.
    for (const list of Object.values(networkInterfaces())) for (const address of list ?? []) add(address.address.split('%')[0] ?? address.address);
  }
  for (const name of extra) {
    const lower = name.toLowerCase();
    if (/:\d+$/.test(lower) && !lower.endsWith(']')) names.add(lower);
    else {
      // A name without a port matches that name on any port, and with none (a proxy's `Host: mock`).
      const bracketed = lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
      names.add(bracketed);
      names.add(`${bracketed}${ANY_PORT}`);
    }
  }
  return names;
}

/** Whether `--allowed-host` names a host (a DNS name or an address, with an optional port). */
export function isHostName(text: string): boolean {
  return /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?)(:\d{1,5})?$/i.test(text);
}
