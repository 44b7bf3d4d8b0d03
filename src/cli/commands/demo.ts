// `llmgw demo [--repo DIR] [--keep]` (docs/overview.md): see src/demo/run-demo.ts.
// With --repo, one's own cluster.yaml and models.yaml run on the simulated
// fleet instead of examples/demo: same nodes, fabrics, storage and models,
// each node a real SSH server on loopback, every engine the stub engine.

import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/load-config.js';
import { committedSnapshot } from '../../store/read.js';
import { ConfigError, UsageError } from '../../errors.js';
import { hardwareFor } from '../../demo/hardware.js';
import { runDemo, type DemoOptions } from '../../demo/run-demo.js';
import type { Snapshot } from '../../types/snapshot.js';
import { resolveRepoDir } from '../fleet-inputs.js';
import type { Io } from '../io.js';

/** Each node is an SSH server in this process, each replica rank a process: a laptop's worth. */
export const MAX_SIM_NODES = 100;
export const MAX_SIM_ENGINES = 40;

const HELP = `Usage: llmgw demo [--repo DIR] [--keep]

A whole fleet on this machine: an SSH server on loopback per node running the
real agent over fake GPUs and stub engines, a router, a bare git remote seeded
with the config; two reconcile ticks; then the plan, STATUS.md and the repo.

  --repo DIR   run one's own cluster.yaml and models.yaml (default: examples/demo).
               Nodes, fabrics, storage, routers and models are yours; hosts, SSH
               keys, storage directories and engines are the simulation's. A node
               .llmgw/observed.json has seen gets the GPUs it reported; others
               get eight of a class the models ask for. At most ${MAX_SIM_NODES} nodes and
               ${MAX_SIM_ENGINES} engine processes (replicas × nodes).
  --keep       keep the fleet up and tick every 10 s until Ctrl-C
`;

async function ownConfig(io: Io, repo: string): Promise<Pick<DemoOptions, 'own' | 'hasRouter'>> {
  const dir = await resolveRepoDir(io, repo);
  const loaded = await loadConfig(dir, { env: io.env, strictEnv: false, displayDir: repo });
  if (!loaded.ok) throw new ConfigError('the config is invalid', loaded.errors);
  const { cluster, models } = loaded.config;
  if (cluster.nodes.length > MAX_SIM_NODES) {
    throw new UsageError(
      `${repo}/cluster.yaml has ${cluster.nodes.length} nodes; the simulation runs at most ${MAX_SIM_NODES} (an SSH server each, in this process)`,
    );
  }
  const engines = models.reduce((n, m) => n + m.replicas * m.nodes, 0);
  if (engines > MAX_SIM_ENGINES) {
    throw new UsageError(`${repo}/models.yaml asks for ${engines} engine processes (replicas × nodes); the simulation runs at most ${MAX_SIM_ENGINES}`);
  }
  // What the fleet last looked like, when llmgw has observed it: its GPUs are simulated as seen.
  const snapshot: Snapshot | null = await committedSnapshot(dir).catch(() => null);
  return { own: { exampleDir: dir, origin: repo, hardware: (config) => hardwareFor(config, snapshot) }, hasRouter: cluster.routers.length > 0 };
}

export async function run(argv: string[], io: Io): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        repo: { type: 'string' },
        keep: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const own = values.repo === undefined ? {} : await ownConfig(io, values.repo);
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let signals = 0;
  // Not `once`: a second Ctrl-C must not kill the process half-way through
  // stopping the engines, which would leave them running on loopback.
  const onSignal = (): void => {
    if (signals++ > 0) io.stderr.write('llmgw demo: stopping the engines, SSH servers and router; one moment\n');
    resolveStopped();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await runDemo({ keep: values.keep, out: (t) => io.stdout.write(t), env: io.env, stopped, ...own });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
