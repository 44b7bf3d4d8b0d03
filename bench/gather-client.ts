// One measured llmgw gather (warm: the median of three), in its own process so
// its CPU time and peak memory are its own. Prints one JSON line: wall and CPU ms of the gather
// (the transport's setup — loading ssh2, reading known_hosts, compiling the
// schema — included), peak RSS, and how many nodes answered.
//
//   node dist/bench/gather-client.js FLEET_JSON N cold|warm CONCURRENCY

import { readFileSync } from 'node:fs';
import { createSshTransport } from '../src/gather/ssh-transport.js';
import { gatherSnapshot } from '../src/gather/gather.js';
import { emptyState } from '../src/types/state.js';
import type { Config, SshConfig } from '../src/types/config.js';

interface FleetInfo {
  hosts: { name: string; host: string; port: number }[];
  knownHostsPath: string;
  identityFile: string;
  user: string;
}

function benchConfig(fleet: FleetInfo, n: number, concurrency: number): Config {
  const ssh: SshConfig = {
    user: fleet.user,
    identityFile: fleet.identityFile,
    knownHosts: fleet.knownHostsPath,
    port: 22,
    connectTimeoutMs: 30_000,
    commandTimeoutMs: 30_000,
    concurrency,
    // The warm target holds with every node's connection kept (docs/config.md ssh.keepOpen).
    keepOpen: Math.max(n, 1),
  };
  return {
    cluster: {
      name: 'bench',
      ssh,
      agent: { command: 'llmgw agent' },
      router: { command: 'llmgw router' },
      fabrics: ['ib-a'],
      gpuClasses: [],
      nodes: fleet.hosts.slice(0, n).map((h) => ({ ...h, fabric: 'ib-a', cordon: false, storage: [{ path: '/models', kind: 'local' as const }] })),
      routers: [],
      engines: {},
      notify: { webhooks: [] },
      idleAfterMs: 86_400_000,
      lostAfterMs: 600_000,
      safety: { maxStopFraction: 0.5, minReachableFraction: 0.5 },
      git: { timeoutMs: 60_000 },
    },
    models: [
      {
        name: 'llama-3.1-70b',
        weights: 'meta-llama/Llama-3.1-70B-Instruct',
        engine: 'vllm',
        gpus: 4,
        nodes: 1,
        replicas: 1,
        priority: 0,
        args: [],
        index: 0,
        drainTimeoutMs: 600_000,
        stopGraceMs: 30_000,
        check: null,
        rollout: null,
      },
    ],
  };
}

async function main(): Promise<void> {
  const [file, nText, mode, concText] = process.argv.slice(2);
  const fleet = JSON.parse(readFileSync(file ?? '', 'utf8')) as FleetInfo;
  const config = benchConfig(fleet, Number(nText), Number(concText));
  const deps = { previous: null, state: emptyState(), now: () => new Date() };
  const transport = createSshTransport(config.cluster.ssh, { keepAlive: mode === 'warm' });
  if (mode === 'warm') await gatherSnapshot(config, { ...deps, transport }); // opens the connections
  // Cold: one gather. Warm: the median of three, as the steady ticks of `llmgw run` are.
  const runs: { wallMs: number; cpuMs: number; snap: Awaited<ReturnType<typeof gatherSnapshot>> }[] = [];
  for (let i = 0; i < (mode === 'warm' ? 3 : 1); i++) {
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const snap = await gatherSnapshot(config, { ...deps, transport });
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const cpu = process.cpuUsage(cpu0);
    runs.push({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, snap });
  }
  const { wallMs, cpuMs } = runs.sort((a, b) => a.wallMs - b.wallMs)[Math.floor(runs.length / 2)] ?? { wallMs: NaN, cpuMs: NaN };
  await transport.close();
  // Every run must have reached every node, not just the median one.
  const reachable = Math.min(...runs.map((r) => r.snap.nodes.filter((x) => x.reachable).length));
  const firstError = runs.flatMap((r) => r.snap.nodes).find((x) => !x.reachable);
  process.stdout.write(
    JSON.stringify({
      wallMs,
      cpuMs,
      maxRssMB: process.resourceUsage().maxRSS / 1024,
      reachable,
      firstError: firstError ? firstError.error : null,
    }) + '\n',
  );
}

await main();
