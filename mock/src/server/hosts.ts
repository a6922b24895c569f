// The Host names a listening server answers (guard.ts says why a server checks them): its address, the loopback names,
// and the names the operator gives with --allowed-host. Node only (the CLI's servers): the core gets a predicate.
import { networkInterfaces } from 'node:os';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The Host values a server answers: exact `name:port` values, and names answered on any port and with none
 * (`--allowed-host NAME` without a port: nginx's `proxy_pass http://mock;` sends `Host: mock`). `has` takes a Host as
 * the request sends it, in lower case; iterating lists each name as a 421 shows it (`mock (any port)`).
 */
export class HostNames extends Set<string> {
  readonly #anyPort = new Set<string>();

  /** Answers `name` on any port, and with none. */
  addAnyPort(name: string): void {
    this.#anyPort.add(name);
    super.add(`${name} (any port)`);
  }

  override has(host: string): boolean {
    if (host.includes(' ')) return false;
    if (super.has(host)) return true;
    // The name without its port ([::1]:4010 → [::1], mock:8080 → mock, mock → mock).
    const name = /^(\[[^\]]*\]|[^:]*)(:\d*)?$/.exec(host)?.[1];
    return name !== undefined && this.#anyPort.has(name);
  }
}

/** The Host values a server listening on `host`:`port` answers: its address, loopback names, and `extra` names. */
export function listenHosts(host: string, port: number, extra: ReadonlyArray<string> = []): HostNames {
  const names = new HostNames();
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
    else names.addAnyPort(lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower);
  }
  return names;
}

/** Whether `--allowed-host` names a host (a DNS name or an address, with an optional port). */
export function isHostName(text: string): boolean {
  return /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?)(:\d{1,5})?$/i.test(text);
}
