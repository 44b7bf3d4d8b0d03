// A whole fleet on this machine (docs/overview.md): an SSH server per node on its
// own loopback address running the real agent over fake GPUs, a real router
// with its admin socket, and a bare git remote seeded with examples/demo's
// config adapted to all that. The demo, the end-to-end tests and the tick
// benchmark's smaller cousins all start from here; the reconciler then runs
// against it exactly as against a production fleet.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { highestEpoch } from '../agent/fence.js';
import { runAgent } from '../agent/main.js';
import { loadConfig } from '../config/load-config.js';
import { ConfigError } from '../errors.js';
import { runRouterClient } from '../router/client.js';
import { startRouter } from '../router/server.js';
import { fakeGpuEnv, writeFakeGpus } from '../sim/fake-nvidia-smi.js';
import { startSimFleet, type ExecHandler, type SimFleet } from '../sim/fleet.js';
import { routeCommands } from '../sim/route-commands.js';
import { stubEngineCommand } from '../sim/stub-engine.js';
import type { Config } from '../types/config.js';
import type { AgentReport } from '../types/snapshot.js';
import { createSeededRemote } from './git-remote.js';
import { demoGpus, type Hardware } from './hardware.js';
import { SIM_AGENT_COMMAND, SIM_ROUTER_COMMAND, demoWeightDirs, simClusterYaml, type SimClusterInput } from './sim-config.js';

/** examples/demo in the package (this file is dist/src/demo/sim-world.js). */
export const DEMO_EXAMPLE_DIR = fileURLToPath(new URL('../../../examples/demo/', import.meta.url));

export interface SimWorldOptions {
  /** Everything lives under here: keys, agents' state, storage, the remote. */
  dir: string;
  exampleDir?: string;
  /** models.yaml text to seed instead of the example's. */
  modelsYaml?: string;
  webhooks?: SimClusterInput['webhooks'];
  lostAfter?: string;
  commandTimeout?: string;
  /** Each node's fake GPUs; default: examples/demo's (H100 on the first fabric, H200 elsewhere). */
  hardware?: (config: Config) => Hardware;
  /** How cluster.yaml's header names where it came from. */
  origin?: string;
  /** Wraps what every simulated host answers (tests: a log of what nodes were asked, a slow node). */
  wrapHandler?: (handler: ExecHandler) => ExecHandler;
}

export interface SimWorld {
  dir: string;
  /** The bare remote's path, usable as a git URL. */
  remote: string;
  clusterYaml: string;
  modelsYaml: string;
  sim: SimFleet;
  /** Node name -> its loopback address (also its `host` in cluster.yaml). */
  hostOf: ReadonlyMap<string, string>;
  nodeNames: string[];
  /** The env the node's agent runs with. */
  agentEnv(node: string): Record<string, string | undefined>;
  routerPort: number;
  /** Stop every replica the agents started (the stub engines are real processes). */
  stopEngines(): Promise<void>;
  /** stopEngines, then close the router and the SSH servers. */
  close(): Promise<void>;
}

/** Outside Linux's ephemeral range (32768-60999), so no outgoing connection ever holds it. */
const BLOCK_CLAIM_PORT = 65001;

/**
 * A /16 of loopback per world, so two worlds (parallel test files) never share an
 * engine's address and port: a world claims 127.B.0.1:65001 by listening on it for
 * as long as it lives (its nodes start at 127.B.0.2), and a world in another
 * process that finds the claim taken tries the next block of 127.100-249 (or of
 * the range given). Picking at random alone let two worlds meet now and then, and
 * an engine then failed to start on a taken port.
 */
export async function claimAddressBlock(first = 100, count = 150): Promise<{ block: number; release: () => Promise<void> }> {
  const start = Math.floor(Math.random() * count);
  for (let k = 0; k < count; k++) {
    const block = first + ((start + k) % count);
    const claim = createServer();
    const held = await new Promise<boolean>((resolve) => {
      claim.once('error', () => resolve(false));
      claim.listen({ host: `127.${block}.0.1`, port: BLOCK_CLAIM_PORT, exclusive: true }, () => resolve(true));
    });
    if (held) {
      claim.unref();
      return { block, release: () => new Promise<void>((resolve) => claim.close(() => resolve())) };
    }
  }
  throw new Error(`no free loopback block for a simulated world: 127.${first}-${first + count - 1}.0.1:${BLOCK_CLAIM_PORT} are all taken`);
}

async function loadExample(dir: string): Promise<Config> {
  const loaded = await loadConfig(dir, { env: {}, strictEnv: false });
  if (!loaded.ok) throw new ConfigError(`${dir}: the example config is invalid`, loaded.errors);
  return loaded.config;
}

/** Each node's agent env: its own state dir and fake GPUs. */
async function agentEnvs(example: Config, dir: string, hardware: Hardware): Promise<Map<string, Record<string, string | undefined>>> {
  const envs = new Map<string, Record<string, string | undefined>>();
  for (const n of example.cluster.nodes) {
    const state = join(dir, 'agents', n.name);
    const fixture = join(state, 'gpus.csv');
    await writeFakeGpus(fixture, hardware(n));
    envs.set(n.name, {
      PATH: process.env.PATH,
      LLMGW_STATE_DIR: state,
      // Never systemd-run in a simulation, even as root on a systemd machine.
      LLMGW_AGENT_SUPERVISOR: 'process',
      ...fakeGpuEnv(fixture),
    });
  }
  return envs;
}

/** Weights on disk, then the bare remote with the adapted config. */
async function seedRepo(opts: SimWorldOptions, input: SimClusterInput, example: Config, modelsYaml: string): Promise<{ remote: string; clusterYaml: string }> {
  const clusterYaml = simClusterYaml(input);
  for (const d of demoWeightDirs(input, example.models)) {
    await mkdir(d, { recursive: true });
    await writeFile(join(d, 'model.safetensors'), 'stub weights\n');
  }
  const remote = await createSeededRemote(opts.dir, { 'cluster.yaml': clusterYaml, 'models.yaml': modelsYaml });
  return { remote, clusterYaml };
}

/** Stop every replica the agents started: the stub engines are real processes. */
async function stopAll(nodeNames: string[], agentEnv: (node: string) => Record<string, string | undefined>): Promise<void> {
  await Promise.all(
    nodeNames.map(async (node) => {
      const req = { version: 1, node, storage: [], weights: [] };
      const out = await runAgent('report', JSON.stringify(req), agentEnv(node));
      if (out.code !== 0) return;
      const ids = (JSON.parse(out.stdout) as AgentReport).replicas.map((r) => r.id);
      // At the node's own highest epoch (docs/safety.md#fencing): a lease-less stop would be refused as fenced.
      const lease = { epoch: await highestEpoch(agentEnv(node)), holder: 'llmgw demo cleanup' };
      if (ids.length > 0) await runAgent('apply', JSON.stringify({ version: 1, node, lease, start: [], stop: ids }), agentEnv(node));
    }),
  );
}

export async function startSimWorld(opts: SimWorldOptions): Promise<SimWorld> {
  const exampleDir = opts.exampleDir ?? DEMO_EXAMPLE_DIR;
  const example = await loadExample(exampleDir);
  const modelsYaml = opts.modelsYaml ?? (await readFile(join(exampleDir, 'models.yaml'), 'utf8'));
  const nodeNames = example.cluster.nodes.map((n) => n.name);
  const names = [...nodeNames, ...example.cluster.routers.map((r) => r.name)];
  const hardware = opts.hardware?.(example) ?? ((n) => demoGpus(example.cluster, n));
  const envs = await agentEnvs(example, opts.dir, hardware);
  const agentEnv = (node: string) => {
    const env = envs.get(node);
    if (!env) throw new Error(`no simulated node ${node}`);
    return env;
  };
  const stopEngines = () => stopAll(nodeNames, agentEnv);

  const adminSocket = join(opts.dir, 'router.sock');
  const router = await startRouter({ listen: { host: '127.0.0.1', port: 0 }, adminSocket });
  let claim: Awaited<ReturnType<typeof claimAddressBlock>> | null = null;
  let sim: SimFleet | null = null;
  try {
    claim = await claimAddressBlock();
    const { block, release } = claim;
    sim = await startSimFleet({
      dir: join(opts.dir, 'ssh'),
      hosts: names.map((name, i) => ({ name, address: `127.${block}.${Math.floor(i / 250)}.${(i % 250) + 2}` })),
      handler: (opts.wrapHandler ?? ((h) => h))(
        routeCommands({
          agentCommand: SIM_AGENT_COMMAND,
          agentEnv,
          routerCommand: SIM_ROUTER_COMMAND,
          router: (_name, sub, stdin) => runRouterClient(sub, stdin, { LLMGW_ROUTER_SOCKET: adminSocket }),
        }),
      ),
    });
    const input: SimClusterInput = {
      example: example.cluster,
      hosts: sim.hosts,
      knownHostsPath: sim.knownHostsPath,
      identityFile: sim.identityFile,
      user: sim.user,
      storageRoot: join(opts.dir, 'storage'),
      engine: stubEngineCommand(),
      webhooks: opts.webhooks,
      lostAfter: opts.lostAfter,
      commandTimeout: opts.commandTimeout,
      origin: opts.origin,
    };
    const { remote, clusterYaml } = await seedRepo(opts, input, example, modelsYaml);
    const running = sim;
    return {
      dir: opts.dir,
      remote,
      clusterYaml,
      modelsYaml,
      sim: running,
      hostOf: new Map(running.hosts.map((h) => [h.name, h.host])),
      nodeNames,
      agentEnv,
      routerPort: router.port,
      stopEngines,
      async close() {
        await stopEngines().catch(() => undefined);
        await router.close();
        await running.close();
        await release();
      },
    };
  } catch (err) {
    // Half a world is no world: close what did start, so nothing keeps the process alive.
    await sim?.close();
    await router.close();
    await claim?.release();
    throw err;
  }
}
