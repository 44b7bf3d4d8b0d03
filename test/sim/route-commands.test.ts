import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimFleet } from '../../src/sim/fleet.js';
import { routeCommands } from '../../src/sim/route-commands.js';
import { fakeGpuEnv, writeFakeGpus } from '../../src/sim/fake-nvidia-smi.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { emptyState } from '../../src/types/state.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import { simConfig, simSshConfig, tempDir } from '../gather/sim-helpers.js';
import { defined } from '../helpers/defined.js';

test('a sim fleet running the real agent, one state dir and GPU fixture per node, gathers real reports', async () => {
  const tmp = tempDir('simagent');
  const names = ['gpu-1', 'gpu-2', 'gpu-3'];
  for (const [i, n] of names.entries()) {
    await writeFakeGpus(
      join(tmp.dir, `${n}.csv`),
      Array.from({ length: i + 1 }, () => ({ name: 'NVIDIA H100 80GB HBM3' })),
    );
  }
  mkdirSync(join(tmp.dir, 'models/org/m'), { recursive: true });
  writeFileSync(join(tmp.dir, 'models/org/m/model.safetensors'), 'x');
  const fleet = await startSimFleet({
    dir: join(tmp.dir, 'keys'),
    hosts: names.map((name) => ({ name })),
    handler: routeCommands({
      agentCommand: 'llmgw agent',
      agentEnv: (n) => ({ ...fakeGpuEnv(join(tmp.dir, `${n}.csv`)), LLMGW_STATE_DIR: join(tmp.dir, 'state', n) }),
    }),
  });
  const ssh = simSshConfig(fleet);
  const config = simConfig(fleet, ssh, { models: ['org/m'] });
  for (const n of config.cluster.nodes) n.storage = [{ path: join(tmp.dir, 'models'), kind: 'local' }];
  const transport = createSshTransport(ssh);
  try {
    const snap = await gatherSnapshot(config, { transport, previous: null, state: emptyState(), now: () => new Date() });
    const reports = snap.nodes.map((n) => (n as { report: AgentReport }).report);
    assert.equal(
      reports.map((r) => r.gpus.length),
      [1, 2, 3],
    );
    for (const r of reports) assert.equal(defined(r.storage[0]).weights, ['org/m']);
    const other = await transport.run(defined(fleet.hosts[0]), 'uptime', '').catch((e: unknown) => (e as Error).message);
    assert.match(other, /`uptime` exited with code 127: sh: 1: uptime: not found$/);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test.run();
