// A simulated fleet for tests, benchmarks and the demo: N ssh2 servers on
// loopback, each on its own 127.x address (all of 127.0.0.0/8 is loopback, so
// their replicas' ports never collide), each with its own host key in one
// known_hosts file, all accepting one client key. What a command answers is
// the caller's handler: canned replies in tests, the real agent in the demo.
//
// 1000 hosts need about 1000 listening sockets plus one per open connection on
// each side: raise `ulimit -n` above ~4096 when running that many in a process.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { generateSimKey, parsedKey, type SimKeyPair } from './keys.js';
import { SimHost, type ExecHandler, type SimFault } from './ssh-host.js';

export type { ExecHandler, ExecResult, SimFault } from './ssh-host.js';

export interface SimHostSpec {
  name: string;
  /** Default: 127.0.0.2, 127.0.0.3, … then 127.0.1.2, … (250 per /24). */
  address?: string;
  fault?: SimFault;
}

export interface SimFleet {
  hosts: { name: string; host: string; port: number }[];
  knownHostsPath: string;
  identityFile: string;
  user: string;
  setFault(name: string, fault: SimFault): void;
  /** Resolves once the fault is in force (a refused host has stopped listening). */
  setFaultAsync(name: string, fault: SimFault): Promise<void>;
  /** TCP connections each host accepted so far, summed. */
  connectionCount(): number;
  /** Drop every open connection of one host (or all), as a reboot would. */
  dropConnections(name?: string): void;
  close(): Promise<void>;
}

export interface SimFleetOptions {
  hosts: SimHostSpec[];
  handler: ExecHandler;
  /** Where keys and known_hosts are written. */
  dir: string;
  /** One port for every host (they differ by address); default: a free port each. */
  basePort?: number;
  /** How long a `slow` host waits before answering (default 1500 ms). */
  slowMs?: number;
  /** The client key every host accepts; default a fresh one. Several fleet processes given the same key serve one client as one fleet. */
  clientKey?: SimKeyPair;
  /** Default addresses start at simAddress(addressOffset) (default 0): fleets in several processes take disjoint ranges. */
  addressOffset?: number;
}

/** The i-th default address: 127.0.0.2 … 127.0.0.251, then 127.0.1.2 …, distinct for any fleet size. */
export function simAddress(i: number): string {
  return `127.0.${Math.floor(i / 250)}.${(i % 250) + 2}`;
}

export async function startSimFleet(opts: SimFleetOptions): Promise<SimFleet> {
  await mkdir(opts.dir, { recursive: true });
  const clientKey = opts.clientKey ?? generateSimKey('llmgw-sim-client');
  const identityFile = join(opts.dir, 'id_ed25519');
  await writeFile(identityFile, clientKey.private, { mode: 0o600 });
  const clientParsed = parsedKey(clientKey.public);
  const wrongKey = generateSimKey('llmgw-sim-impostor');

  const hosts = opts.hosts.map(
    (spec, i) =>
      new SimHost({
        name: spec.name,
        address: spec.address ?? simAddress(i + (opts.addressOffset ?? 0)),
        port: opts.basePort ?? 0,
        hostKey: generateSimKey(`llmgw-sim-${spec.name}`),
        wrongKey,
        clientKey: clientParsed,
        handler: opts.handler,
        slowMs: opts.slowMs ?? 1500,
        fault: spec.fault ?? null,
      }),
  );
  const byName = new Map(hosts.map((h) => [h.name, h]));
  try {
    // Listen in batches: a thousand parallel binds is fine, but keeps errors readable.
    for (let i = 0; i < hosts.length; i += 100) await Promise.all(hosts.slice(i, i + 100).map((h) => h.listen()));
  } catch (err) {
    await Promise.all(hosts.map((h) => h.close()));
    throw err;
  }
  const lines = hosts.map((h) => h.knownHostsLine());
  const knownHostsPath = join(opts.dir, 'known_hosts');
  await writeFile(knownHostsPath, lines.join('\n') + '\n');
  // A host whose fault is `refuse` from the start stops listening only now, so its port is known.
  await Promise.all(hosts.filter((h) => h.fault === 'refuse').map((h) => h.unlisten()));

  const find = (name: string): SimHost => {
    const h = byName.get(name);
    if (!h) throw new Error(`no simulated host named ${name}`);
    return h;
  };
  return {
    hosts: hosts.map((h) => ({ name: h.name, host: h.address, port: h.port })),
    knownHostsPath,
    identityFile,
    user: userInfo().username,
    setFault: (name, fault) => void find(name).setFault(fault),
    setFaultAsync: (name, fault) => find(name).setFault(fault),
    connectionCount: () => hosts.reduce((n, h) => n + h.accepted, 0),
    dropConnections: (name) => (name === undefined ? hosts : [find(name)]).forEach((h) => h.dropConnections()),
    close: async () => {
      await Promise.all(hosts.map((h) => h.close()));
    },
  };
}
