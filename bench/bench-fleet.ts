// The simulated fleet of the gather benchmark, run as its own process so the
// servers' CPU is never counted as the client's. Prints one JSON line (the
// fleet's hosts, known_hosts and key) and serves until stdin closes.
//
//   node dist/bench/bench-fleet.js N DIR [FIRST CLIENT_KEY_JSON]
//
// FIRST and CLIENT_KEY_JSON split a big fleet over several processes (each a
// listening socket and a connection per host, so a process stays under the
// machine's descriptor limit): this one serves hosts FIRST … FIRST+N-1, on
// their own addresses, all accepting the one client key in the JSON file.

import { readFileSync } from 'node:fs';
import { startSimFleet } from '../src/sim/fleet.js';
import type { SimKeyPair } from '../src/sim/keys.js';
import type { AgentReport } from '../src/types/snapshot.js';

/** What an 8-GPU node with two replicas and two storage paths reports: a realistic size to parse and validate. */
export function benchReport(host: string): AgentReport {
  return {
    version: 1,
    gpus: Array.from({ length: 8 }, (_, i) => ({ index: i, uuid: `GPU-${host}-${i}`, name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, healthy: true })),
    replicas: [
      {
        id: 'llama-3.1-70b-0',
        model: 'llama-3.1-70b',
        gpus: [0, 1, 2, 3],
        state: 'running',
        startedAt: '2026-11-29T07:00:00Z',
        endpoint: `http://${host}:8000`,
        port: 8000,
        rank: 0,
        spec: '5f2c9a1e',
      },
      {
        id: 'qwen-7b-3',
        model: 'qwen-7b',
        gpus: [4],
        state: 'starting',
        startedAt: '2026-11-29T07:55:00Z',
        endpoint: `http://${host}:8001`,
        port: 8001,
        rank: 0,
        spec: '0a1b2c3d',
      },
    ],
    storage: [
      { path: '/models', kind: 'local', weights: ['meta-llama/Llama-3.1-70B-Instruct'], incomplete: [] },
      { path: '/lustre/models', kind: 'shared', filer: 'lustre-a', weights: ['Qwen/Qwen2.5-7B-Instruct'], incomplete: [] },
    ],
    warnings: [],
  };
}

async function main(): Promise<void> {
  const n = Number(process.argv[2]);
  const dir = process.argv[3] ?? '';
  const first = Number(process.argv[4] ?? 0);
  const keyFile = process.argv[5];
  const clientKey = keyFile ? (JSON.parse(readFileSync(keyFile, 'utf8')) as SimKeyPair) : undefined;
  const replies = new Map<string, string>();
  const fleet = await startSimFleet({
    dir,
    clientKey,
    addressOffset: first,
    hosts: Array.from({ length: n }, (_, i) => ({ name: `gpu-${String(first + i).padStart(4, '0')}` })),
    handler: ({ host }) => {
      let out = replies.get(host);
      if (out === undefined) replies.set(host, (out = JSON.stringify(benchReport(host)) + '\n'));
      return Promise.resolve({ stdout: out, code: 0 });
    },
  });
  process.stdout.write(JSON.stringify({ hosts: fleet.hosts, knownHostsPath: fleet.knownHostsPath, identityFile: fleet.identityFile, user: fleet.user }) + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => void fleet.close().then(() => process.exit(0)));
}

if (process.argv[1]?.endsWith('bench-fleet.js')) await main();
