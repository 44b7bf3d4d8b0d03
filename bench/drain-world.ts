// The simulated fleet of bench:drain: src/demo/sim-world.ts (real SSH servers,
// the real agent, stub engines, the real router, a bare git remote), a
// reconciler checkout, a people checkout to merge config changes from, and
// ticks on the real clock — the bench times what a reconciler would take.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { runAgent } from '../src/agent/main.js';
import { runTick, type TickResult } from '../src/tick/run.js';
import { cachedTransports } from '../src/tick/transport-source.js';
import { cloneRemote, commitFiles, pullRemote } from '../src/demo/git-remote.js';
import { startSimWorld, type SimWorld } from '../src/demo/sim-world.js';
import { createSshTransport } from '../src/gather/ssh-transport.js';
import { openConfigRepo } from '../src/git/config-repo.js';
import { runRouterClient } from '../src/router/client.js';
import type { AgentReport, ReplicaReport, RouterUsage } from '../src/types/snapshot.js';

/** cluster.yaml as a benchmark edits it: the keys it touches, typed; the rest as read. */
export type ClusterDoc = Record<string, unknown> & { safety: Record<string, unknown> };

export interface DrainWorld {
  world: SimWorld;
  /** The args of the last spec rolled to (the bench's own bookkeeping). */
  lastArgs?: string;
  tick(): Promise<TickResult>;
  replicas(): Promise<ReplicaReport[]>;
  usage(): Promise<RouterUsage>;
  merge(files: { models?: string; cluster?: (doc: ClusterDoc) => void }): Promise<void>;
  close(): Promise<void>;
}

export async function startDrainWorld(modelsYaml: string): Promise<DrainWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-bench-drain-'));
  const world = await startSimWorld({ dir, modelsYaml });
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, GIT_TERMINAL_PROMPT: '0' };
  const repo = await openConfigRepo({ dir: join(dir, 'checkout'), remote: world.remote, branch: 'main', env });
  const people = join(dir, 'people');
  await cloneRemote(world.remote, people);
  const transports = cachedTransports((ssh) => createSshTransport(ssh, { env, keepAlive: true }));
  const socket = join(dir, 'router.sock');
  return {
    world,
    tick: () => runTick({ repo, transport: (c) => transports.forConfig(c), env, now: () => new Date(), push: true, log: () => undefined, notify: false }),
    async replicas() {
      const all = await Promise.all(
        world.nodeNames.map(async (node) => {
          const out = await runAgent('report', JSON.stringify({ version: 1, node, storage: [], weights: [] }), world.agentEnv(node));
          return (JSON.parse(out.stdout) as AgentReport).replicas.filter((r) => (r.rank ?? 0) === 0);
        }),
      );
      return all.flat();
    },
    async usage() {
      const out = await runRouterClient('usage', '', { LLMGW_ROUTER_SOCKET: socket });
      return JSON.parse(out.stdout) as RouterUsage;
    },
    async merge(files) {
      await pullRemote(people);
      const out: Record<string, string> = {};
      if (files.models) out['models.yaml'] = files.models;
      if (files.cluster) {
        const doc = parse(await readFile(join(people, 'cluster.yaml'), 'utf8')) as ClusterDoc;
        files.cluster(doc);
        out['cluster.yaml'] = stringify(doc, { lineWidth: 0 });
      }
      await commitFiles(people, out, 'bench: a merged pull request');
    },
    async close() {
      await transports.close();
      await world.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
