// The end-to-end tests' world: the simulated fleet and bare remote of
// src/demo/sim-world.ts, a reconciler checkout, a people-side checkout for
// pushing config changes, and a tick that runs the real runTick over SSH.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runAgent } from '../../src/agent/main.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { openConfigRepo, type ConfigRepo } from '../../src/git/config-repo.js';
import { runTick, type TickOptions, type TickResult } from '../../src/daemon/tick.js';
import { cachedTransports } from '../../src/daemon/transport-for-config.js';
import { cloneRemote, commitFiles, git, pullRemote } from '../../src/demo/git-remote.js';
import { startSimWorld, type SimWorld, type SimWorldOptions } from '../../src/demo/sim-world.js';
import type { AgentReport } from '../../src/types/snapshot.js';

/** One small model on one GPU: a fleet that starts fast. */
export function modelsYaml(models: { name: string; gpus?: number; replicas?: number; weights?: string }[]): string {
  const body = models
    .map((m) => `  - { name: ${m.name}, weights: ${m.weights ?? `org/${m.name}`}, engine: vllm, gpus: ${m.gpus ?? 1}, replicas: ${m.replicas ?? 1} }`)
    .join('\n');
  return `apiVersion: llmgw/v1\nkind: Models\nmodels:${models.length === 0 ? ' []' : '\n' + body}\n`;
}

export interface E2E {
  world: SimWorld;
  repo: ConfigRepo;
  workdir: string;
  people: string;
  tick(extra?: Partial<TickOptions>): Promise<TickResult>;
  /** Commit and push files from the people-side checkout, as a merged PR. */
  push(files: Record<string, string>, message: string): Promise<string>;
  remoteHead(): Promise<string>;
  /** Replica ids each node's agent reports, over all nodes. */
  replicasOnFleet(): Promise<{ id: string; node: string; state: string }[]>;
  waitRunning(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startE2E(opts: Omit<SimWorldOptions, 'dir'> & { env?: Record<string, string | undefined> } = {}): Promise<E2E> {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-e2e-'));
  const world = await startSimWorld({ ...opts, dir });
  const workdir = join(dir, 'checkout');
  const people = join(dir, 'people');
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, GIT_TERMINAL_PROMPT: '0', ...opts.env };
  const repo = await openConfigRepo({ dir: workdir, remote: world.remote, branch: 'main', env });
  await cloneRemote(world.remote, people);
  const transports = cachedTransports((ssh) => createSshTransport(ssh, { env, keepAlive: true }));
  const e2e: E2E = {
    world,
    repo,
    workdir,
    people,
    tick: (extra = {}) =>
      runTick({ repo, transport: (c) => transports.forConfig(c), env, now: () => new Date(), push: true, log: () => undefined, ...extra }),
    async push(files, message) {
      await pullRemote(people);
      return commitFiles(people, files, message);
    },
    remoteHead: () => git(world.remote, ['rev-parse', 'main']),
    async replicasOnFleet() {
      const all = await Promise.all(
        world.nodeNames.map(async (node) => {
          const out = await runAgent('report', JSON.stringify({ version: 1, node, storage: [], weights: [] }), world.agentEnv(node));
          return (JSON.parse(out.stdout) as AgentReport).replicas.map((r) => ({ id: r.id, node, state: r.state }));
        }),
      );
      return all.flat().sort((a, b) => a.id.localeCompare(b.id) || a.node.localeCompare(b.node));
    },
    async waitRunning(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const running = (await e2e.replicasOnFleet()).filter((r) => r.state === 'running').length;
        if (running >= count) return;
        if (Date.now() > deadline) throw new Error(`only ${running} of ${count} replicas running after ${timeoutMs} ms`);
        await sleep(200);
      }
    },
    async close() {
      await transports.close();
      await world.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return e2e;
}
