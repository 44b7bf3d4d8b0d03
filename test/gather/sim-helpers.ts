// Shared by the gather tests: a temp dir, an SshConfig pointing at a sim fleet,
// and canned replies.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config, SshConfig } from '../../src/types/config.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import type { ExecHandler, SimFleet } from '../../src/sim/fleet.js';
import type { Transport } from '../../src/types/transport.js';
import { model, testCluster } from '../fixtures/index.js';

export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `llmgw-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function simSshConfig(fleet: SimFleet, over: Partial<SshConfig> = {}): SshConfig {
  return {
    user: fleet.user,
    identityFile: fleet.identityFile,
    knownHosts: fleet.knownHostsPath,
    port: 22,
    connectTimeoutMs: 2000,
    commandTimeoutMs: 2000,
    concurrency: 16,
    ...over,
  };
}

export function cannedReport(host: string): AgentReport {
  return {
    version: 1,
    gpus: [{ index: 0, uuid: `GPU-${host}`, name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, healthy: true }],
    replicas: [],
    storage: [],
    warnings: [],
  };
}

/** Answers `… agent report` with a canned report naming the host, `… router usage` with empty usage. */
export const cannedHandler: ExecHandler = async ({ host, command }) => {
  if (command.endsWith(' usage')) return { stdout: JSON.stringify({ version: 1, startedAt: '2026-11-29T07:00:00Z', lastUsed: {} }), code: 0 };
  return { stdout: JSON.stringify(cannedReport(host)), code: 0 };
};

/** A resolved Config whose nodes (and routers) are the fleet's hosts. */
export function simConfig(fleet: SimFleet, ssh: SshConfig, opts: { routers?: string[]; models?: string[] } = {}): Config {
  const routerNames = new Set(opts.routers ?? []);
  const hosts = fleet.hosts.filter((h) => !routerNames.has(h.name));
  return {
    cluster: testCluster({
      name: 'sim',
      ssh,
      nodes: hosts.map((h) => ({ name: h.name, host: h.host, port: h.port, fabric: 'ib-a', cordon: false, storage: [{ path: '/models', kind: 'local' }] })),
      routers: fleet.hosts.filter((h) => routerNames.has(h.name)).map((h) => ({ name: h.name, host: h.host, port: h.port })),
    }),
    models: (opts.models ?? []).map((w, index) => model(`m${index}`, { weights: w, index })),
  };
}

/** cluster.yaml text for a sim fleet: one node entry per host, its address and port. */
export function simClusterYaml(fleet: SimFleet, extra: { timeouts?: string } = {}): string {
  const nodes = fleet.hosts
    .map((h) => `  - { name: ${h.name}, host: "${h.host}", port: ${h.port}, fabric: ib-a, storage: [{ path: /models, kind: local }] }`)
    .join('\n');
  return `apiVersion: llmgw/v1
kind: Cluster
name: sim
ssh:
  user: ${fleet.user}
  identityFile: ${fleet.identityFile}
  knownHosts: ${fleet.knownHostsPath}
  ${extra.timeouts ?? 'connectTimeout: 2s\n  commandTimeout: 2s'}
  concurrency: 8
fabrics: [ib-a]
nodes:
${nodes}
engines:
  vllm: { command: [vllm, serve, "{weightsPath}"] }
`;
}

export const SIM_MODELS_YAML = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: m, weights: org/m, engine: vllm, gpus: 1 }
`;

/** A transport whose every command prints `text`: a canned reply. */
export function replying(text: string): Transport {
  return { run: async () => text, close: async () => undefined };
}

/** The little of a Config gatherSnapshot reads, for one node gpu-a01 at 10.0.0.1 and no routers. */
export function oneNodeConfig(): Config {
  return {
    cluster: {
      agent: { command: 'llmgw agent' },
      router: { command: 'llmgw router' },
      nodes: [{ name: 'gpu-a01', host: '10.0.0.1', port: 22, storage: [] }],
      routers: [],
    },
    models: [],
  } as unknown as Config;
}
