// Part of the simulated fleet of bench/tick.ts, run as its own process: at
// 10,000 nodes the servers' listening and accepted sockets would not fit one
// process's 20,000 descriptors beside the reconciler's own connections, and
// their CPU is then not the reconciler's. Reads one JSON line on stdin (the
// hosts to serve, the shared client key, where to write), answers the canned
// agent replies (test/fixtures/canned-fleet.ts), prints one JSON line (the
// hosts' ports and known_hosts lines), then answers each `count` line with the
// connections accepted so far, and closes when stdin does.
//
//   node dist/bench/tick-fleet.js

import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { startSimFleet } from '../src/sim/fleet.js';
import type { SimKeyPair } from '../src/sim/keys.js';
import { cannedFleet } from '../test/fixtures/canned-fleet.js';

export interface TickFleetRequest {
  hosts: { name: string; address: string }[];
  /** The names that are GPU nodes (the rest, a router). */
  nodes: string[];
  clientKey: SimKeyPair;
  dir: string;
  routerStartedAt: string;
}

export interface TickFleetReady {
  hosts: { name: string; host: string; port: number }[];
  knownHosts: string;
}

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  let fleet: Awaited<ReturnType<typeof startSimFleet>> | null = null;
  for await (const line of lines) {
    if (fleet === null) {
      const req = JSON.parse(line) as TickFleetRequest;
      const canned = cannedFleet({ nodes: req.nodes, routerStartedAt: req.routerStartedAt });
      fleet = await startSimFleet({ dir: req.dir, hosts: req.hosts, clientKey: req.clientKey, handler: (ctx) => canned.handler(ctx) });
      const ready: TickFleetReady = { hosts: fleet.hosts, knownHosts: readFileSync(fleet.knownHostsPath, 'utf8') };
      process.stdout.write(JSON.stringify(ready) + '\n');
    } else if (line === 'count') {
      process.stdout.write(JSON.stringify({ count: fleet.connectionCount() }) + '\n');
    }
  }
  await fleet?.close();
  process.exit(0);
}

if (process.argv[1]?.endsWith('tick-fleet.js')) await main();
