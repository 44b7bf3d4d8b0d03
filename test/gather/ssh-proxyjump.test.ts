import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { startSimFleet } from '../../src/sim/fleet.js';
import { startSimBastion } from '../../src/sim/bastion.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { emptyState } from '../../src/types/state.js';
import { cannedHandler, simConfig, simSshConfig, tempDir } from './sim-helpers.js';

test('proxyJump reaches every node through one bastion connection, and the bastion key is checked too', async () => {
  const tmp = tempDir('proxyjump');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: [{ name: 'a' }, { name: 'b' }, { name: 'c', fault: 'refuse' }] });
  const bastion = await startSimBastion({ address: '127.0.8.1', knownHostsPath: fleet.knownHostsPath, identityFile: fleet.identityFile });
  const ssh = simSshConfig(fleet, { proxyJump: { user: bastion.user, host: bastion.host, port: bastion.port } });
  const withoutBastion = join(tmp.dir, 'kh_without_bastion');
  writeFileSync(
    withoutBastion,
    readFileSync(fleet.knownHostsPath, 'utf8')
      .split('\n')
      .filter((l) => !l.startsWith('[127.0.8.1]'))
      .join('\n'),
  );
  const config = simConfig(fleet, ssh);
  const transport = createSshTransport(ssh);
  const unknownBastion = createSshTransport({ ...ssh, knownHosts: withoutBastion });
  try {
    const snap = await gatherSnapshot(config, { transport, previous: null, state: emptyState(), now: () => new Date() });
    assert.equal(
      snap.nodes.map((n) => [n.name, n.reachable]),
      [
        ['a', true],
        ['b', true],
        ['c', false],
      ],
    );
    assert.match((snap.nodes[2] as { error: string }).error, /^c \(127\.0\.0\.4:\d+\): the bastion could not reach it/);
    assert.is(bastion.forwards(), 2);
    assert.is(fleet.connectionCount(), 2, 'the nodes were reached through the bastion, once each');

    const refused = await gatherSnapshot(
      { ...config, cluster: { ...config.cluster, ssh: { ...ssh, knownHosts: withoutBastion } } },
      {
        transport: unknownBastion,
        previous: null,
        state: emptyState(),
        now: () => new Date(),
      },
    );
    for (const n of refused.nodes) {
      assert.is(n.reachable, false);
      assert.match((n as { error: string }).error, /via bastion .*@127\.0\.8\.1:\d+ \(127\.0\.8\.1:\d+\): host key unknown: \[127\.0\.8\.1\]:\d+ is not in/);
    }
    assert.is(bastion.forwards(), 2, 'nothing was forwarded through an unverified bastion');
  } finally {
    await transport.close();
    await unknownBastion.close();
    await bastion.close();
    await fleet.close();
    tmp.remove();
  }
});

test('a dead bastion costs one connectTimeout for all the nodes behind it, not one each', async () => {
  const tmp = tempDir('deadbastion');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: ['a', 'b', 'c', 'd'].map((name) => ({ name })) });
  let accepted = 0;
  const sockets: Socket[] = [];
  const silent = createServer((sock) => (accepted++, sockets.push(sock)));
  await new Promise<void>((r) => silent.listen(0, '127.0.8.2', () => r()));
  const port = (silent.address() as { port: number }).port;
  const ssh = simSshConfig(fleet, { connectTimeoutMs: 600, concurrency: 1, proxyJump: { user: 'ops', host: '127.0.8.2', port } });
  const transport = createSshTransport(ssh);
  try {
    const snap = await gatherSnapshot(simConfig(fleet, ssh), { transport, previous: null, state: emptyState(), now: () => new Date() });
    for (const n of snap.nodes) {
      assert.match((n as { error: string }).error, /via bastion ops@127\.0\.8\.2:\d+ \(127\.0\.8\.2:\d+\): no SSH handshake within 0\.6s \(connectTimeout\)$/);
    }
    // One attempt at the bastion for the four nodes (events, not a wall-clock margin): the failure was remembered.
    assert.is(accepted, 1);
  } finally {
    await transport.close();
    for (const s of sockets) s.destroy();
    silent.close();
    await fleet.close();
    tmp.remove();
  }
});

test.run();
