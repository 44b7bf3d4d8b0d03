// Shared by the agent tests: a temporary node (state dir, fake GPUs) and free ports.

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEnv } from '../../src/agent/env.js';
import { runAgent } from '../../src/agent/main.js';
import { stopAllReplicas } from '../../src/agent/apply.js';
import { fakeGpuEnv, writeFakeGpus, type FakeGpu, type FakeGpuOptions } from '../../src/sim/fake-nvidia-smi.js';
import type { AgentApplyReply, AgentReport, StartRequest, StopEntry } from '../../src/types/snapshot.js';
import { stubEngineCommand } from '../../src/sim/stub-engine.js';

export interface TestNode {
  dir: string;
  env: AgentEnv;
  report(storage?: { path: string; kind: 'local' | 'shared'; filer?: string }[], weights?: string[]): Promise<AgentReport>;
  apply(start: StartRequest[], stop?: StopEntry[]): Promise<AgentApplyReply>;
  /** Rewrites the node's fake nvidia-smi fixture. */
  setGpus(gpus: FakeGpu[], opts?: FakeGpuOptions): Promise<void>;
  /** Stops every replica still recorded, and removes the directory. */
  cleanup(): Promise<void>;
}

export async function makeNode(gpus: FakeGpu[] = [{ name: 'NVIDIA H100 80GB HBM3' }], extraEnv: AgentEnv = {}): Promise<TestNode> {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-agent-'));
  await writeFakeGpus(join(dir, 'gpus.csv'), gpus);
  const env: AgentEnv = {
    PATH: process.env.PATH,
    LLMGW_STATE_DIR: join(dir, 'state'),
    LLMGW_AGENT_SUPERVISOR: 'process',
    LLMGW_AGENT_STOP_TIMEOUT: '2',
    ...fakeGpuEnv(join(dir, 'gpus.csv')),
    ...extraEnv,
  };
  const call = async <T>(sub: string, req: unknown): Promise<T> => {
    const out = await runAgent(sub, JSON.stringify(req), env);
    if (out.code !== 0) throw new Error(`agent ${sub} exited ${out.code}: ${out.stderr}`);
    return JSON.parse(out.stdout) as T;
  };
  return {
    dir,
    env,
    report: (storage = [], weights = []) => call('report', { version: 1, node: 'n1', storage, weights }),
    apply: (start, stop = []) => call('apply', { version: 1, node: 'n1', start, stop }),
    setGpus: (g, opts) => writeFakeGpus(join(dir, 'gpus.csv'), g, opts),
    async cleanup() {
      await stopAllReplicas(env);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** One node for a whole test file: made before its first test, stopped and removed after its last. */
export function fileNode(t: { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void }): TestNode & {
  stateOf: (id: string) => Promise<string | undefined>;
} {
  let n: TestNode | undefined;
  const get = (): TestNode => {
    if (!n) throw new Error('fileNode used before test.before ran');
    return n;
  };
  t.before(async () => {
    n = await makeNode();
  });
  t.after(async () => {
    await n?.cleanup();
  });
  return {
    get dir() {
      return get().dir;
    },
    get env() {
      return get().env;
    },
    report: (storage, weights) => get().report(storage, weights),
    apply: (start, stop) => get().apply(start, stop),
    setGpus: (g, opts) => get().setGpus(g, opts),
    cleanup: () => get().cleanup(),
    stateOf: async (id) => (await get().report()).replicas.find((r) => r.id === id)?.state,
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A start request running the stub engine on 127.0.0.1:port. */
export function stubStart(replica: string, port: number, opts: { readyAfter?: number; startTimeoutSeconds?: number; command?: string[] } = {}): StartRequest {
  return {
    replica,
    model: replica.replace(/-\d+$/, ''),
    spec: 'spec0001',
    weights: 'org/model',
    weightsPath: '/models/org/model',
    gpus: [0],
    port,
    endpoint: `http://127.0.0.1:${port}`,
    rank: 0,
    peers: ['n1'],
    command: opts.command ?? [...stubEngineCommand(), '--host', '127.0.0.1', '--port', String(port), '--ready-after', String(opts.readyAfter ?? 0)],
    env: { CUDA_VISIBLE_DEVICES: '0' },
    health: '/health',
    startTimeoutSeconds: opts.startTimeoutSeconds ?? 60,
  };
}

/** Polls fn until it returns true or timeoutMs passes. */
export async function waitFor(fn: () => Promise<boolean>, timeoutMs = 8000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await fn()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
