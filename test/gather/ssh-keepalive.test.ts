import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSimFleet } from '../../src/sim/fleet.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { emptyState } from '../../src/types/state.js';
import { cannedHandler, simConfig, simSshConfig, tempDir } from './sim-helpers.js';
import { defined } from '../helpers/defined.js';

test('with keepAlive a second gather opens no new connection, and dropped ones are re-opened transparently', async () => {
  const tmp = tempDir('keepalive');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name })) });
  const ssh = simSshConfig(fleet);
  const config = simConfig(fleet, ssh);
  const transport = createSshTransport(ssh, { keepAlive: true });
  const gather = () => gatherSnapshot(config, { transport, previous: null, state: emptyState(), now: () => new Date() });
  const reachable = (s: Awaited<ReturnType<typeof gather>>) => s.nodes.filter((n) => n.reachable).length;
  try {
    assert.is(reachable(await gather()), 5);
    assert.is(fleet.connectionCount(), 5);
    assert.is(reachable(await gather()), 5);
    assert.is(fleet.connectionCount(), 5, 'the second gather reused every connection');

    // A host that rebooted between ticks: the client has seen the close.
    fleet.dropConnections('a');
    await new Promise((r) => setTimeout(r, 50));
    assert.is(reachable(await gather()), 5);
    assert.is(fleet.connectionCount(), 6);

    // Dropped just as the call starts, before the client has noticed: retried on a fresh connection.
    fleet.dropConnections();
    assert.is(reachable(await gather()), 5);
    assert.is(fleet.connectionCount(), 11);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test('without keepAlive every call opens its own connection and leaves none open', async () => {
  const tmp = tempDir('nokeep');
  const fleet = await startSimFleet({ dir: tmp.dir, handler: cannedHandler, hosts: [{ name: 'a' }] });
  const transport = createSshTransport(simSshConfig(fleet));
  const target = { name: 'a', host: defined(fleet.hosts[0]).host, port: defined(fleet.hosts[0]).port };
  try {
    await transport.run(target, 'llmgw agent report', '{}');
    await transport.run(target, 'llmgw agent report', '{}');
    assert.is(fleet.connectionCount(), 2);
  } finally {
    await transport.close();
    await fleet.close();
    tmp.remove();
  }
});

test.run();
