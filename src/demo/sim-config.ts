// A cluster.yaml (examples/demo's, or one's own with `llmgw demo --repo DIR`)
// adapted to a simulated fleet on loopback: each
// node's host and port are its SSH server's, keys and known_hosts are the
// sim's, storage lives under a temp dir and engines are the stub engine. The
// result is an ordinary cluster.yaml: the reconciler reads it like any other.

import { posix } from 'node:path';
import { stringify } from 'yaml';
import type { ClusterConfig, ModelConfig, NodeConfig, StorageDecl } from '../types/config.js';

/** What the simulated hosts answer to: cluster.yaml's agent and router commands. */
export const SIM_AGENT_COMMAND = 'llmgw agent';
export const SIM_ROUTER_COMMAND = 'llmgw router';

export interface SimAddress {
  name: string;
  host: string;
  port: number;
}

export interface SimClusterInput {
  example: ClusterConfig;
  hosts: SimAddress[];
  knownHostsPath: string;
  identityFile: string;
  user: string;
  /** Directory under which each node's storage paths are made real. */
  storageRoot: string;
  /** argv prefix of the stub engine; `--host {host} --port {port} --model {model}` follow. */
  engine: string[];
  /** Raw `notify.webhooks` entries (e.g. with `${VAR}` references); none by default. */
  webhooks?: Record<string, unknown>[];
  /** Overrides, as cluster.yaml durations. */
  lostAfter?: string;
  commandTimeout?: string;
  /** Where the config came from, for the header (default examples/demo). */
  origin?: string;
}

/** Where a declared storage path lives in the simulation: per node when local, per filer when shared. */
export function simStoragePath(root: string, node: string, decl: StorageDecl): string {
  return decl.kind === 'shared' ? posix.join(root, 'filers', decl.filer ?? 'shared', decl.path) : posix.join(root, 'nodes', node, decl.path);
}

const seconds = (ms: number) => `${Math.max(1, Math.round(ms / 1000))}s`;

function hostOf(input: SimClusterInput, name: string): SimAddress {
  const h = input.hosts.find((x) => x.name === name);
  if (!h) throw new Error(`the simulated fleet has no host ${name}`);
  return h;
}

function simNode(input: SimClusterInput, n: NodeConfig): Record<string, unknown> {
  const h = hostOf(input, n.name);
  const entry: Record<string, unknown> = { name: n.name, host: h.host, port: h.port, fabric: n.fabric };
  if (n.cordon) entry.cordon = true;
  if (n.storage.length > 0) {
    entry.storage = n.storage.map((s) => ({ ...s, path: simStoragePath(input.storageRoot, n.name, s) }));
  }
  return entry;
}

export function simClusterYaml(input: SimClusterInput): string {
  const c = input.example;
  const doc: Record<string, unknown> = {
    apiVersion: 'llmgw/v1',
    kind: 'Cluster',
    name: c.name,
    ssh: {
      user: input.user,
      identityFile: input.identityFile,
      knownHosts: input.knownHostsPath,
      connectTimeout: '5s',
      commandTimeout: input.commandTimeout ?? '30s',
      concurrency: c.ssh.concurrency,
    },
    agent: { command: SIM_AGENT_COMMAND },
    router: { command: SIM_ROUTER_COMMAND },
    fabrics: c.fabrics,
    ...(c.gpuClasses.length > 0 ? { gpuClasses: Object.fromEntries(c.gpuClasses.map((g) => [g.name, g.glob])) } : {}),
    nodes: c.nodes.map((n) => simNode(input, n)),
    routers: c.routers.map((r) => {
      const h = hostOf(input, r.name);
      return { name: r.name, host: h.host, port: h.port };
    }),
    engines: Object.fromEntries(
      Object.values(c.engines).map((e) => [
        e.name,
        {
          command: [...input.engine, '--host', '{host}', '--port', '{port}', '--model', '{model}'],
          basePort: e.basePort,
          health: e.health,
          startTimeout: seconds(e.startTimeoutMs),
          // The example's rules for models.yaml's args hold in the simulation too.
          ...(e.allowArgs ? { allowArgs: e.allowArgs } : {}),
        },
      ]),
    ),
    ...(input.webhooks && input.webhooks.length > 0 ? { notify: { webhooks: input.webhooks } } : {}),
    idle: { after: seconds(c.idleAfterMs) },
    lostAfter: input.lostAfter ?? seconds(c.lostAfterMs),
    safety: c.safety,
  };
  const header =
    `# ${(input.origin ?? 'examples/demo').replace(/[\u0000-\u001f\u007f]/g, ' ')}/cluster.yaml adapted by \`llmgw demo\` to a simulated fleet on loopback:\n` +
    '# SSH servers on 127.x addresses, fake GPUs, storage in a temp dir, a stub engine.\n';
  return header + stringify(doc, { lineWidth: 0 });
}

/**
 * Which weights the simulation has on disk, so placement has holdings to
 * prefer: the first model's on every shared filer, and a multi-node model's
 * on the local storage of the last fabric's first nodes. Everything else is
 * absent (an engine would fetch it).
 */
export function demoWeightDirs(input: SimClusterInput, models: ModelConfig[]): string[] {
  const dirs: string[] = [];
  const nodes = input.example.nodes;
  const first = models[0];
  if (first) {
    for (const n of nodes)
      for (const s of n.storage) if (s.kind === 'shared') dirs.push(posix.join(simStoragePath(input.storageRoot, n.name, s), first.weights));
  }
  const multi = models.find((m) => m.nodes > 1);
  const lastFabric = input.example.fabrics[input.example.fabrics.length - 1];
  if (multi) {
    const local = nodes.filter((n) => n.fabric === lastFabric).slice(0, multi.nodes);
    for (const n of local) {
      const s = n.storage.find((d) => d.kind === 'local');
      if (s) dirs.push(posix.join(simStoragePath(input.storageRoot, n.name, s), multi.weights));
    }
  }
  return [...new Set(dirs)].sort();
}
